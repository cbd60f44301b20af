"""Rule `rq5_tables`: Table 5 (atomic, 2- and 3-intersectional) and the Table-6-style example."""

from pathlib import Path

from hinter.rq import rq5
from hinter.rq.intervals import Bootstrap
from hinter.rq.outcomes import OutcomeFile
from hinter.workflow import check_outputs, run


def main() -> None:
    out_dir = Path(snakemake.output[0]).parent
    files = [
        OutcomeFile(t.model, t.dataset, t.suite, Path(t.path), t.variant)
        for t in snakemake.params.files
    ]
    limits = {(r.model, r.dataset): r.limit for r in snakemake.params.runs}
    shards = {}
    for t in snakemake.params.documents:
        shards.setdefault(t.dataset, []).append(t.path)
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
