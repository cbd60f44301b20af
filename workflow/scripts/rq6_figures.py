"""Rule `rq6_figures`: Figs. 11 and 12, drawn from the RQ6 tables' CSV files."""

from pathlib import Path

from hinter.rq import rq6
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq6.write_figures(
        Path(snakemake.input[0]).parent, out_dir, str(snakemake.params.rule)
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ6")


run(snakemake, main)
