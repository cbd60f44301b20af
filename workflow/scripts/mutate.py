"""Rule mutate: the mutants of one suite for one shard of tested documents."""

from hinter import mutation
from hinter.workflow import run


def main():
    wc, params = snakemake.wildcards, snakemake.params
    window, excluded = None, ()
    if params.track.get("from_models"):
        # The track's LLMs: what they read under every prompt, without their few-shot examples.
        from hinter.models.llm import read_track_windows

        window, excluded = read_track_windows(snakemake.input.windows, snakemake.input.docs)
    mutation.mutate_job(
        snakemake.input.docs,
        snakemake.input.pairs,
        snakemake.output.mutants,
        snakemake.output.stats,
        suite=params.suite,
        track=wc.track,
        track_spec=params.track,
        dataset=wc.dataset,
        shard=wc.shard,
        n_shards=params.n_shards,
        mutation=params.mutation,
        seed=params.seed,
        window=window,
        excluded=excluded,
    )


run(snakemake, main)
