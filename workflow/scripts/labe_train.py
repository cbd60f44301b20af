"""Rule labe_train: fine-tune the agency classifier on LAC (the LexGLUE encoders' training)."""

import torch

from hinter.models.training import train_encoder
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    train_encoder(
        model_name=snakemake.params.name,
        spec=dict(snakemake.params.spec),
        training=dict(snakemake.params.training),
        dataset="lac",
        split_paths=dict(zip(("train", "validation", "test"), snakemake.input.splits, strict=True)),
        meta_path=snakemake.input.meta,
        out_dir=snakemake.output.model,
        metrics_path=snakemake.output.metrics,
        seed=snakemake.params.seed,
    )


run(snakemake, main)
