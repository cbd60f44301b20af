"""Rule labe_generation_tables: score the generations; mutant agency bias with intervals."""

from pathlib import Path

import torch

from hinter.labe.stages import generation_tables
from hinter.plots.labe import write_mutant_rates
from hinter.workflow import run


def main():
    torch.set_num_threads(snakemake.threads)
    result = generation_tables(
        dict(zip(snakemake.params.llms, snakemake.input.generations, strict=True)),
        snakemake.input.model,
        dict(snakemake.params.settings),
        dict(snakemake.output.items()),
        cache_dir=snakemake.params.cache_dir,
        resamples=snakemake.params.resamples,
        seed=snakemake.params.seed,
    )
    write_mutant_rates(result["rates"], Path(snakemake.output.figure).with_suffix(""))


run(snakemake, main)
