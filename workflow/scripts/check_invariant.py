"""Rule check_invariant: the validity of one suite shard and its summary (hinter.invariant)."""

import sys

from hinter.invariant import check_shard
from hinter.io import parquet_rows
from hinter.progress import Progress
from hinter.workflow import run


def main():
    # spaCy's thinc imports torch (2-3 s per job) only for optional torch-backed layers; the
    # tagger and parser of en_core_web_sm are numpy models, so this job runs without torch.
    sys.modules.setdefault("torch", None)
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
