"""Rule `rq2_figures`: Fig. 8a, drawn from the RQ2 table's CSV file."""

from pathlib import Path

from hinter.errors import DataError
from hinter.rq import rq2
from hinter.workflow import run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq2.write_figures(Path(snakemake.input[0]).parent, out_dir)
    expected = {Path(p) for p in snakemake.output}
    if set(written) != expected:
        raise DataError(
            f"{out_dir}: RQ2 drew {sorted(map(str, written))}, the rule expects {sorted(expected)}"
        )


run(snakemake, main)
