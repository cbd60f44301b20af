"""Rule `rq3_figures`: Figs. 7, 8b and 8c, drawn from the RQ3 tables' CSV files."""

from pathlib import Path

from hinter.errors import DataError
from hinter.rq import rq3
from hinter.workflow import run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq3.write_figures(Path(snakemake.input[0]).parent, out_dir)
    expected = {Path(p) for p in snakemake.output}
    if set(written) != expected:
        raise DataError(
            f"{out_dir}: RQ3 drew {sorted(map(str, written))}, the rule expects {sorted(expected)}"
        )


run(snakemake, main)
