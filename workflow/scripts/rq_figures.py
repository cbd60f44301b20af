"""Rules `rq<N>_figures`: an RQ's figures (:mod:`hinter.plots.rq<N>`), drawn from the CSV files
of its tables."""

from importlib import import_module
from pathlib import Path

from hinter.workflow import check_outputs, run


def main() -> None:
    rq = int(snakemake.params.rq)
    plots = import_module(f"hinter.plots.rq{rq}")
    out_dir = Path(snakemake.output[0]).parent
    written = plots.write_figures(
        Path(snakemake.input[0]).parent, out_dir, **snakemake.params.options
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ{rq}")


run(snakemake, main)
