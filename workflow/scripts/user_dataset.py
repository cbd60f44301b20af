"""Rule user_dataset: a dataset declared in the config (files, hub id) -> documents + meta.json."""

from pathlib import Path

from hinter import userdata
from hinter.workflow import run

run(
    snakemake,
    lambda: userdata.prepare(
        snakemake.wildcards.dataset,
        snakemake.params.spec,
        Path(snakemake.output.meta).parent,
        snakemake.params.base_dir,
    ),
)
