"""Rule mutation_summary: per-suite counts of one (track, dataset), summed over shards."""

import logging

from hinter import mutation
from hinter.workflow import run


def main():
    rows = mutation.write_summary(snakemake.input.stats, snakemake.output.summary)
    for row in rows:
        logging.getLogger("hinter").info(
            "%s: %d generated, %d written (+%d parents) from %d documents",
            row["suite"], row["generated"], row["written"], row["parents"], row["documents"],
        )  # fmt: skip


run(snakemake, main)
