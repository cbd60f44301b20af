"""Rule labe_generate: one chat LLM generates 004 Table 10's prompts and their mutants."""

import torch

from hinter.labe.stages import run_generation
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    run_generation(
        snakemake.wildcards.llm,
        dict(snakemake.params.spec),
        dict(snakemake.params.settings),
        snakemake.output[0],
        cache_dir=snakemake.params.cache_dir,
    )


run(snakemake, main)
