"""Rule `rq6_tables`: rates per variant (Fig. 11) and under confidence thresholds (Fig. 12)."""

from pathlib import Path

from hinter.rq import rq6
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    params = snakemake.params
    written = rq6.write_tables(
        [
            OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant)
            for t in params.variant_files
        ],
        [
            OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant)
            for t in params.threshold_files
        ],
        out_dir,
        models=list(snakemake.params.models),
        datasets=list(snakemake.params.datasets),
        variant_names=list(snakemake.params.variants),
        thresholds=[float(t) for t in snakemake.params.thresholds],
        rule=str(snakemake.params.rule),
        stats=Bootstrap.from_config({"statistics": dict(snakemake.params.statistics)}).keywords(),
        order=int(snakemake.params.order),
        runs_decoding=str(snakemake.params.runs_decoding),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ6")


run(snakemake, main)
