"""Rule reconcile_corpus: every variant of the invariant on one real corpus (hinter.invariant)."""

import sys

from hinter.invariant.reconcile_run import reconcile_corpus
from hinter.workflow import run


def main():
    sys.modules.setdefault("torch", None)  # spaCy's tagger and parser need no torch
    reconcile_corpus(
        snakemake.wildcards.corpus,
        snakemake.params.spec,
        snakemake.params.settings,
        snakemake.input.dictionary,
        snakemake.params.pipeline,
        snakemake.params.cache_dir,
        snakemake.output.rows,
    )


run(snakemake, main)
