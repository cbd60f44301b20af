"""Rule reconciliation_table: the ablation table of the reconciliation (hinter.invariant)."""

from hinter.invariant.reconcile_run import write_table
from hinter.workflow import run


def main():
    write_table(list(snakemake.input.rows), snakemake.output.csv, snakemake.output.md)


run(snakemake, main)
