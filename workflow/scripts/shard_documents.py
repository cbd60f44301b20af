"""Rule shard_documents: the tested documents that fall into one shard."""

from hinter import io, tables, tested_order
from hinter.workflow import run


def main():
    splits = snakemake.params.splits
    # data.order: positions in split order, or in a seeded label-balanced order (RQ5's subset)
    table = tested_order.tested_shard(
        dict(zip(splits, snakemake.input.splits, strict=True)),
        splits,
        shard=int(snakemake.wildcards.shard),
        n_shards=snakemake.params.n_shards,
        max_documents=snakemake.params.max_documents,
        order=snakemake.params.order,
        seed=snakemake.params.seed,
    )
    # Small row groups: downstream stages stream a shard document batch by document batch.
    io.write_parquet(table, snakemake.output[0], tables.TESTED_DOCUMENTS, row_group_size=64)


run(snakemake, main)
