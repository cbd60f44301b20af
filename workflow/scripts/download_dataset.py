"""Rule download_dataset: hub (or mirror) dataset -> documents tables + meta.json."""

from pathlib import Path

from hinter import data
from hinter.workflow import run

run(
    snakemake,
    lambda: data.prepare_from_hub(
        snakemake.wildcards.dataset,
        snakemake.params.source,
        Path(snakemake.output.meta).parent,
        labels_dir=snakemake.params.labels,
        mirror=snakemake.params.mirror,
    ),
)
