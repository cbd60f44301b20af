"""Rule summarise_invariant: one table of generated, valid and discarded mutants by reason."""

from hinter.invariant import summarise
from hinter.workflow import run


def main():
    summarise(list(snakemake.input.stats), snakemake.output.summary)


run(snakemake, main)
