"""Rule `rq5_tables`: Table 5 (atomic, 2- and 3-intersectional) and the Table-6-style example."""

from pathlib import Path

from hinter.rq import rq5
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    keys = snakemake.params.outcome_keys
    files = [
        OutcomeFile(model, dataset, suite, Path(path))
        for (model, dataset, suite), path in zip(keys, snakemake.input.outcomes, strict=True)
    ]
    limits = {tuple(k.split("/", 1)): v for k, v in dict(snakemake.params.limits).items()}
    shards = {}
    for dataset, path in zip(
        snakemake.params.document_datasets, snakemake.input.documents, strict=True
    ):
        shards.setdefault(dataset, []).append(path)
    # positions are only read where a limit applies
    limited = {d for (_, d), v in limits.items() if v is not None}
    positions = {d: rq5.read_positions(p) for d, p in shards.items() if d in limited}
    written = rq5.write_tables(
        files,
        list(snakemake.input.examples),
        out_dir,
        models=list(snakemake.params.models),
        datasets=list(snakemake.params.datasets),
        stats=Bootstrap.from_config({"statistics": dict(snakemake.params.statistics)}).keywords(),
        paper=snakemake.params.paper,
        limits=limits,
        positions=positions,
        examples=int(snakemake.params.examples),
    )
    check_outputs(written, snakemake.output, f"{out_dir}: RQ5")


run(snakemake, main)
