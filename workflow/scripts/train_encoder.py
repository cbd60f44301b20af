"""Rules train_encoder and labe_train: fine-tune one encoder on one dataset (LexGLUE recipe).

The model and dataset are the rule's wildcards, or its params (labe_train: the agency classifier
on LAC)."""

import torch

from hinter.models.training import train_encoder
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    train_encoder(
        model_name=snakemake.params.get("model") or snakemake.wildcards.model,
        spec=dict(snakemake.params.spec),
        training=dict(snakemake.params.training),
        dataset=snakemake.params.get("dataset") or snakemake.wildcards.dataset,
        split_paths=dict(zip(("train", "validation", "test"), snakemake.input.splits, strict=True)),
        meta_path=snakemake.input.meta,
        out_dir=snakemake.output.model,
        metrics_path=snakemake.output.metrics,
        seed=snakemake.params.seed,
    )


run(snakemake, main)
