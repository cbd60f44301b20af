"""Rule `rq3_tables`: RQ3's tables (Fig. 7, 8b and 8c data)."""

from pathlib import Path

from hinter.rq import rq3
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.rq.scores import ScoreFile
from hinter.workflow import check_outputs, run


def main() -> None:
    params = snakemake.params
    out_dir = Path(snakemake.output[0]).parent
    written = rq3.write_tables(
        out_dir,
        shards=[
            rq3.ValidityShard(t.track, t.dataset, t.suite, Path(t.mutants), Path(t.validity))
            for t in params.shards
        ],
        summaries=[rq3.ValiditySummary(t.track, t.dataset, Path(t.path)) for t in params.summaries],
        outcome_files=[
            OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant) for t in params.files
        ],
        score_files=[ScoreFile(t.model, t.dataset, Path(t.path)) for t in params.scores],
        datasets=list(params.datasets),
        boot=Bootstrap(**params.statistics),
        discarded_models=list(params.discarded_models),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ3")


run(snakemake, main)
