"""Rule shard_documents: the tested documents that fall into one shard."""

from hinter import data, io, tables, tested_order
from hinter.workflow import run


def main():
    splits = snakemake.params.splits
    paths = dict(zip(splits, snakemake.input.splits, strict=True))
    # data.order: positions in split order, or in a seeded label-balanced order (RQ5's subset)
    positions = tested_order.dataset_positions(
        paths, splits, snakemake.params.order, snakemake.params.seed
    )
    table = data.tested_shard(
        paths,
        splits,
        shard=int(snakemake.wildcards.shard),
        n_shards=snakemake.params.n_shards,
        max_documents=snakemake.params.max_documents if positions is None else None,
    )
    if positions is not None:
        table = tested_order.reposition(table, positions, snakemake.params.max_documents)
    # Small row groups: downstream stages stream a shard document batch by document batch.
    io.write_parquet(table, snakemake.output[0], tables.TESTED_DOCUMENTS, row_group_size=64)


run(snakemake, main)
