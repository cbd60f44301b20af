"""Rule `outcomes`: the oracle's verdict on every mutant of one suite for one model."""

from hinter import oracle
from hinter.workflow import run


def main() -> None:
    oracle.write_suite_outcomes(
        snakemake.wildcards.suite,
        docs=list(snakemake.input.docs),
        mutants=list(snakemake.input.mutants),
        validity=list(snakemake.input.validity),
        predictions=list(snakemake.input.predictions),
        meta=snakemake.input.meta,
        output=snakemake.output[0],
        threshold=float(snakemake.params.threshold),
    )


run(snakemake, main)
