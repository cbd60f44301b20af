"""Rule `rq3_figures`: Figs. 7, 8b and 8c, drawn from the RQ3 tables' CSV files."""

from pathlib import Path

from hinter.rq import rq3
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq3.write_figures(Path(snakemake.input[0]).parent, out_dir)
    check_outputs(written, snakemake.output, f"{out_dir}: RQ3")


run(snakemake, main)
