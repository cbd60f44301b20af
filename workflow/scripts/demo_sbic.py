"""Rule demo_sbic: one synthetic SBIC split (per-annotation and aggregated CSVs)."""

from hinter.demo import sbic
from hinter.workflow import run

run(
    snakemake,
    lambda: sbic.write_split(
        snakemake.output.annotations,
        snakemake.output.aggregated,
        posts=snakemake.params.posts,
        seed=snakemake.params.seed,
        split=snakemake.wildcards.sbic_split,
    ),
)
