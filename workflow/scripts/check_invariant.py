"""Rule check_invariant: the validity of one suite shard and its summary (hinter.invariant)."""

from hinter.invariant import check_shard
from hinter.io import parquet_rows
from hinter.progress import Progress
from hinter.workflow import run


def main():
    # A progress line with an ETA in the job's log every few seconds (hinter.progress).
    total = parquet_rows(snakemake.input.mutants)
    with Progress("invariant", total, "mutants") as bar:
        _check(bar.update)


def _check(progress):
    check_shard(
        snakemake.input.mutants,
        snakemake.input.docs,
        snakemake.output.validity,
        snakemake.output.stats,
        pipeline=snakemake.params.pipeline,
        invariant=snakemake.params.invariant,
        cache_dir=snakemake.params.cache_dir,
        threads=snakemake.threads,
        suite=snakemake.wildcards.suite,
        shard=snakemake.wildcards.shard,
        atomic_validity=list(snakemake.input.atomic),
        progress=progress,
    )


run(snakemake, main)
