"""Rule `rq2_figures`: Fig. 8a, drawn from the RQ2 table's CSV file."""

from pathlib import Path

from hinter.rq import rq2
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq2.write_figures(Path(snakemake.input[0]).parent, out_dir)
    check_outputs(written, snakemake.output, f"{out_dir}: RQ2")


run(snakemake, main)
