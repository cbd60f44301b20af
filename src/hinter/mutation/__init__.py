"""The mutation engine: atomic and intersectional mutants of documents, stored as edits.

- :mod:`~hinter.mutation.matching`: dictionary terms found in one pass, case transfer;
- :mod:`~hinter.mutation.window`: the model-visible window of a track;
- :mod:`~hinter.mutation.generate`: the mutants of one document for one suite;
- :mod:`~hinter.mutation.shard`: one suite over one shard, streamed, capped, with its stats.

A mutant's text is always ``hinter.edits.apply_edits(original, edits)`` (see :func:`mutant_texts`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hinter import io, tables
from hinter.edits import apply_edits
from hinter.errors import DataError
from hinter.mutation.generate import MODES, Counts, Mutant, Pair, SuiteMutator, load_pairs
from hinter.mutation.matching import Matcher, match_key, transfer_case
from hinter.mutation.shard import (
    Options,
    Stats,
    generate,
    mutate_job,
    mutate_shard,
    read_documents,
    shard_share,
    summarise,
    write_summary,
)
from hinter.mutation.window import TokenizerWindow, WordWindow, load_tokenizer, window_for

__all__ = [
    "MODES",
    "Counts",
    "Matcher",
    "Mutant",
    "Options",
    "Pair",
    "Stats",
    "SuiteMutator",
    "TokenizerWindow",
    "WordWindow",
    "generate",
    "load_pairs",
    "load_tokenizer",
    "match_key",
    "mutant_texts",
    "mutate_job",
    "mutate_shard",
    "read_documents",
    "shard_share",
    "summarise",
    "transfer_case",
    "window_for",
    "write_summary",
]


def mutant_texts(mutants_path: str | Path, docs_path: str | Path) -> Iterator[tuple[dict, str]]:
    """Each row of a mutants file with its text, materialised from the tested documents."""
    docs = io.read_parquet(docs_path, columns=["doc_id", "text"])
    originals = dict(
        zip(docs.column("doc_id").to_pylist(), docs.column("text").to_pylist(), strict=True)
    )
    for batch in io.read_parquet(mutants_path, tables.MUTANTS).to_batches():
        for row in batch.to_pylist():
            text = originals.get(row["doc_id"])
            if not isinstance(text, str):
                raise DataError(f"{docs_path}: no text for document {row['doc_id']!r}")
            yield row, apply_edits(text, row["edits"])
