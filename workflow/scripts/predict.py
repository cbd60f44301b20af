"""Rule predict: predictions of one model for the originals and mutants of one shard."""

import torch

from hinter.models.inference import predict_shard
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    predict_shard(
        model_dir=snakemake.input.model,
        docs_path=snakemake.input.docs,
        mutants_paths=list(snakemake.input.mutants),
        validity_paths=list(snakemake.input.validity),
        meta_path=snakemake.input.meta,
        out_path=snakemake.output[0],
        inference=dict(snakemake.params.inference),
        keep_discarded=snakemake.params.keep_discarded,
        cache_dir=snakemake.params.cache_dir,
    )


run(snakemake, main)
