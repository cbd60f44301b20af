"""Rule mutate: the mutants of one suite for one shard of tested documents."""

from hinter import mutation
from hinter.workflow import run


def main():
    wc = snakemake.wildcards
    mutation.mutate_job(
        snakemake.input.docs,
        snakemake.input.pairs,
        snakemake.output.mutants,
        snakemake.output.stats,
        suite=snakemake.params.suite,
        track=wc.track,
        track_spec=snakemake.params.track,
        dataset=wc.dataset,
        shard=wc.shard,
        n_shards=snakemake.params.n_shards,
        mutation=snakemake.params.mutation,
        seed=snakemake.params.seed,
    )


run(snakemake, main)
