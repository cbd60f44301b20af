"""Rule labe_lac: LAC's CSV splits -> documents tables and meta.json (hinter.labe.data)."""

from pathlib import Path

from hinter.labe.data import LAC_SPLITS, prepare_lac
from hinter.workflow import run

run(
    snakemake,
    lambda: prepare_lac(
        dict(zip(LAC_SPLITS, snakemake.input.splits, strict=True)),
        Path(snakemake.output.meta).parent,
    ),
)
