"""Rule `hidden_examples`: render a few hidden-bias examples of one intersectional suite."""

from hinter.rq import examples
from hinter.workflow import run


def main() -> None:
    examples.write_hidden_examples(
        model=snakemake.wildcards.model,
        dataset=snakemake.wildcards.dataset,
        suite=snakemake.wildcards.suite,
        outcomes=snakemake.input.outcomes,
        mutants=list(snakemake.input.mutants),
        docs=list(snakemake.input.docs),
        meta=snakemake.input.meta,
        output=snakemake.output[0],
        k=int(snakemake.params.examples),
        context=int(snakemake.params.context),
    )


run(snakemake, main)
