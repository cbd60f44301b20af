"""Rule `rq3_tables`: RQ3's tables (Fig. 7, 8b and 8c data)."""

from pathlib import Path

from hinter.rq import rq3
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.rq.scores import ScoreFile
from hinter.workflow import check_outputs, run


def main() -> None:
    params, inputs = snakemake.params, snakemake.input
    out_dir = Path(snakemake.output[0]).parent
    written = rq3.write_tables(
        out_dir,
        shards=[
            rq3.ValidityShard(track, dataset, suite, Path(m), Path(v))
            for (track, dataset, suite, _), m, v in zip(
                params.shard_keys, inputs.mutants, inputs.validity, strict=True
            )
        ],
        summaries=[
            rq3.ValiditySummary(track, dataset, Path(p))
            for (track, dataset), p in zip(params.summary_keys, inputs.summaries, strict=True)
        ],
        outcome_files=[
            OutcomeFile(model, dataset, suite, Path(p))
            for (model, dataset, suite), p in zip(params.outcome_keys, inputs.outcomes, strict=True)
        ],
        score_files=[
            ScoreFile(model, dataset, Path(p))
            for (model, dataset), p in zip(params.grammar_keys, inputs.scores, strict=True)
        ],
        datasets=list(params.datasets),
        boot=Bootstrap(**params.statistics),
        discarded_models=list(params.discarded_models),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ3")


run(snakemake, main)
