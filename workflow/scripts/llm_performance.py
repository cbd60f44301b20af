"""Rule llm_performance: our LLMs' scores on the original documents beside the paper's."""

from hinter.models.performance import llm_performance_rows, read_reported, write_llm_performance
from hinter.workflow import run


def main():
    rows = llm_performance_rows(
        list(snakemake.params.runs),
        dict(snakemake.params.checkpoints),
        read_reported(snakemake.input.reported),
    )
    write_llm_performance(rows, snakemake.output.csv, snakemake.output.md, snakemake.output.html)


run(snakemake, main)
