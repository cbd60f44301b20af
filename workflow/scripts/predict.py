"""Rule predict: one model (variant) on the originals and mutants of one shard."""

import torch

from hinter import userdata
from hinter.models.predictor import PredictJob, load_predictor
from hinter.models.stage import run_predict_stage
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    inputs, params, wc = snakemake.input, snakemake.params, snakemake.wildcards
    inference = dict(params.inference)
    job = PredictJob(
        model=wc.model,
        kind=params.kind,
        dataset=wc.dataset,
        variant=wc.variant,
        meta_path=inputs.meta,
        cache_dir=params.cache_dir,
        inference=inference,
        model_dir=inputs.get("model"),
        spec=params.spec,
        companions=list(params.companions or []),
        train_path=inputs.get("train"),
        from_hub=params.from_hub,
        track=params.track,
        prompts_dir=userdata.prompts_dir(wc.dataset, params.prompt),
    )
    predictor = load_predictor(job)
    run_predict_stage(
        predictor,
        docs_path=inputs.docs,
        mutants_paths=list(inputs.mutants),
        validity_paths=list(inputs.validity),
        out_path=snakemake.output[0],
        keep_discarded=params.keep_discarded,
        chunk_size=int(inference.get("chunk_size", 4096)),
    )


run(snakemake, main)
