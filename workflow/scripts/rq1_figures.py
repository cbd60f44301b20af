"""Rule `rq1_figures`: Figs. 4–6, drawn from the RQ1 tables' CSV files."""

from pathlib import Path

from hinter.rq import rq1
from hinter.workflow import check_outputs, run


def main() -> None:
    tables_dir = Path(snakemake.input[0]).parent
    out_dir = Path(snakemake.output[0]).parent
    written = rq1.write_figures(tables_dir, out_dir)
    check_outputs(written, snakemake.output, f"{out_dir}: RQ1")


run(snakemake, main)
