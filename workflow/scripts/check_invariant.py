"""Rule check_invariant: the validity of one suite shard and its summary (hinter.invariant)."""

from hinter.invariant import check_shard
from hinter.workflow import run


def main():
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
    )


run(snakemake, main)
