"""Rule download_sbic: SBIC.v2.tgz -> verified -> the six CSVs under resources/sbic/."""

from pathlib import Path

from hinter.dictionary import sbic
from hinter.workflow import run

run(
    snakemake,
    lambda: sbic.acquire(
        snakemake.params.url, Path(snakemake.output[0]).parent, snakemake.params.checksums
    ),
)
