"""Rule `rq4_tables`: Fig. 9's counts (definition and artifact's condition), Fig. 10's regions."""

from pathlib import Path

from hinter.rq import rq4
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    files = [
        OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant)
        for t in snakemake.params.files
    ]
    written = rq4.write_tables(
        files,
        out_dir,
        models=list(snakemake.params.models),
        datasets=list(snakemake.params.datasets),
        stats=Bootstrap.from_config({"statistics": dict(snakemake.params.statistics)}).keywords(),
        order=int(snakemake.params.order),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ4")


run(snakemake, main)
