"""Rule `rq4_figures`: Figs. 9 and 10 (and the compatibility and UpSet figures), from the CSVs."""

from pathlib import Path

from hinter.rq import rq4
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq4.write_figures(Path(snakemake.input[0]).parent, out_dir)
    check_outputs(written, snakemake.output, f"{out_dir}: RQ4")


run(snakemake, main)
