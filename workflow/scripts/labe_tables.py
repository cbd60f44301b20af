"""Rule labe_tables: 004 Table 1 beside the paper's, estimates, classifier, splitter, figures."""

from pathlib import Path

from hinter.labe.stages import released_tables
from hinter.plots.labe import write_released
from hinter.workflow import run


def main():
    out = snakemake.output
    est = released_tables(
        dict(zip(snakemake.params.sources, snakemake.input.scores, strict=True)),
        snakemake.input.metrics,
        snakemake.input.human[0] if snakemake.input.human else None,
        dict(out.items()),
        resamples=snakemake.params.resamples,
        seed=snakemake.params.seed,
    )
    sources = [s for s in snakemake.params.sources if s != "human"]
    write_released(
        est, sources, Path(out.group_means).with_suffix(""), Path(out.variances).with_suffix("")
    )


run(snakemake, main)
