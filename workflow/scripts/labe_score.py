"""Rule labe_score: one released generation file (or the human reviews) -> per-text scores."""

import torch

from hinter.labe.stages import score_source
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    score_source(
        snakemake.wildcards.source,
        snakemake.input.texts,
        snakemake.input.model,
        snakemake.output[0],
        cache_dir=snakemake.params.cache_dir,
        limit=snakemake.params.limit,
    )


run(snakemake, main)
