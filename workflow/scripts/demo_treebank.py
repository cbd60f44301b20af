"""Rule demo_treebank: the demo grammar's treebank -> train/dev spaCy DocBin files."""

import logging

from hinter.demo import treebank
from hinter.workflow import run


def main():
    stats = treebank.write_treebank(
        snakemake.params.sentences,
        snakemake.params.seed,
        snakemake.output.train,
        snakemake.output.dev,
        resources=snakemake.params.resources,
    )
    logging.getLogger("hinter").info("demo treebank: %s", stats)


run(snakemake, main)
