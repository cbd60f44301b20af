"""Rule `rq1_tables`: RQ1's tables (Table 3, atomic rates, truth table, examples, ...)."""

from pathlib import Path

from hinter.rq import rq1
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    written = rq1.write_tables(
        [
            OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant)
            for t in snakemake.params.files
        ],
        list(snakemake.input.examples),
        out_dir,
        datasets=list(snakemake.params.datasets),
        examples=int(snakemake.params.examples),
        boot=Bootstrap.from_config({"statistics": dict(snakemake.params.statistics)}),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ1")


run(snakemake, main)
