"""Rule train_encoder: fine-tune one encoder on one dataset (LexGLUE recipe)."""

import torch

from hinter.models.training import train_encoder
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    train_encoder(
        model_name=snakemake.wildcards.model,
        spec=dict(snakemake.params.spec),
        training=dict(snakemake.params.training),
        dataset=snakemake.wildcards.dataset,
        split_paths=dict(zip(("train", "validation", "test"), snakemake.input.splits, strict=True)),
        meta_path=snakemake.input.meta,
        out_dir=snakemake.output.model,
        metrics_path=snakemake.output.metrics,
        seed=snakemake.params.seed,
    )


run(snakemake, main)
