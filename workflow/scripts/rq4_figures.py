"""Rule `rq4_figures`: Figs. 9 and 10 (and the compatibility and UpSet figures), from the CSVs."""

from pathlib import Path

from hinter.errors import DataError
from hinter.rq import rq4
from hinter.workflow import run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq4.write_figures(Path(snakemake.input[0]).parent, out_dir)
    expected = {Path(p) for p in snakemake.output}
    if set(written) != expected:
        raise DataError(f"{out_dir}: RQ4 drew {sorted(map(str, written))}, not {sorted(expected)}")


run(snakemake, main)
