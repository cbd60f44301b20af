"""Rule model_performance: our encoders' scores beside LexGLUE's reported ones."""

from hinter.models.performance import performance_rows, read_reported, write_performance
from hinter.workflow import run


def main():
    rows = performance_rows(
        list(snakemake.input.metrics),
        dict(snakemake.params.checkpoints),
        read_reported(snakemake.input.reported),
        list(snakemake.params.runs),
    )
    write_performance(rows, snakemake.output.csv, snakemake.output.md, snakemake.output.html)


run(snakemake, main)
