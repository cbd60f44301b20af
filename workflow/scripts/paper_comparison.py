"""Rule `paper_comparison`: the paper's numbers beside this run's (results/<run>/paper/)."""

from pathlib import Path

from hinter.rq import comparison
from hinter.rq.intervals import Bootstrap
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = comparison.write(
        dict(zip(comparison.SOURCES, snakemake.input.tables, strict=True)),
        [(t.model, t.dataset, t.path) for t in snakemake.params.scores],
        out_dir,
        Bootstrap.from_config({"statistics": dict(snakemake.params.statistics)}),
        dict(snakemake.params.settings),
        list(snakemake.params.config_files),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: the comparison")


run(snakemake, main)
