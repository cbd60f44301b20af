"""Rule compile_pairs: the configured attributes -> pairs.parquet and review.tsv."""

import logging

from hinter.dictionary import pairs
from hinter.workflow import run


def main():
    params = snakemake.params
    compiled = pairs.compile_dictionary(
        params.attributes,
        params.resources,
        pairing=params.pairing,
        custom=params.custom,
        base_dir=params.base_dir,
        drop_ambiguous=params.drop_ambiguous,
    )
    pairs.write_compiled(compiled, snakemake.output.pairs, snakemake.output.review)
    for stats in compiled.stats:
        logging.getLogger("hinter").info("%s", stats)


run(snakemake, main)
