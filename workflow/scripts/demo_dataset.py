"""Rule demo_dataset: a synthetic dataset -> documents tables + meta.json (hub loader's schema)."""

from pathlib import Path

from hinter.demo import corpus
from hinter.workflow import run

run(
    snakemake,
    lambda: corpus.write_demo_dataset(
        snakemake.wildcards.dataset,
        snakemake.params.demo,
        Path(snakemake.output.meta).parent,
        resources=snakemake.params.resources,
    ),
)
