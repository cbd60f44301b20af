"""Rule download: the run's datasets into data.mirror, the SBIC archive checked, the parser."""

from pathlib import Path

from hinter import download
from hinter.workflow import run

run(
    snakemake,
    lambda: download.download(
        snakemake.params.config,
        snakemake.output[0],
        workdir=Path.cwd(),
        sbic_dir=snakemake.params.sbic_dir,
        sbic_checksums=snakemake.params.sbic_checksums,
        parser_lock=snakemake.params.parser_lock,
    ),
)
