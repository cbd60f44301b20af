"""Rule extract_sbic_terms: SBIC CSVs -> sbic_terms.tsv, sbic_mentions.parquet, stats."""

import logging

from hinter.dictionary import sbic
from hinter.workflow import run


def main():
    extraction = sbic.extract_mentions(
        list(snakemake.input.annotations),
        list(snakemake.input.aggregated) if snakemake.params.aggregated else None,
    )
    out = snakemake.output
    sbic.write_extraction(extraction, out.terms, out.mentions, out.stats)
    logging.getLogger("hinter").info("SBIC extraction: %s", extraction.stats)


run(snakemake, main)
