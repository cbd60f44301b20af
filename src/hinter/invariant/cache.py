"""Persistent parse cache: (pipeline fingerprint, sentence text) -> tags and dependency labels.

One SQLite database under ``cache_dir`` is shared by every suite, shard, concurrent job and
rerun, so a sentence is parsed once per pipeline, ever. WAL mode lets readers proceed while one
job writes; writers wait up to ``timeout`` seconds for each other. Values are JSON arrays of
strings (never pickles); the key is a 128-bit hash of the sentence text.

Caveat: SQLite's WAL mode needs shared memory between the processes using the database, so it
must live on a local filesystem. On a network filesystem (NFS, Lustre, ... as on many
clusters) point ``cache_dir`` at a node-local disk or set ``invariant.parse_cache: false``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from hinter.edits import text_hash
from hinter.invariant.compare import Parse
from hinter.store import TextCache

_SCHEMA = """
CREATE TABLE IF NOT EXISTS parses (
    pipeline TEXT NOT NULL,
    sentence TEXT NOT NULL,
    tags TEXT NOT NULL,
    deps TEXT NOT NULL,
    PRIMARY KEY (pipeline, sentence)
) WITHOUT ROWID
"""


class ParseCache(TextCache):
    """A parse cache for one pipeline; lookups and inserts take many sentences at once. A
    damaged row is parsed again and replaced (:class:`hinter.store.TextCache`)."""

    def __init__(self, path: str | Path, pipeline: str, timeout: float = 300.0):
        super().__init__(path, "parse cache", _SCHEMA, timeout)
        self.pipeline = pipeline

    def get_many(self, texts: Iterable[str]) -> dict[str, Parse]:
        """Cached parses of ``texts`` (missing or damaged ones are absent from the result)."""
        query = (
            "SELECT sentence, tags, deps FROM parses WHERE pipeline = ? AND sentence IN ({marks})"
        )
        return self.lookup(query, [self.pipeline], texts, _decode)

    def put_many(self, items: Sequence[tuple[str, Parse]]) -> None:
        """Store parses (the first writer wins: a sentence's parse never changes for a pipeline)."""
        rows = [
            (self.pipeline, text_hash(t), json.dumps(p.tags), json.dumps(p.deps)) for t, p in items
        ]
        self.save("parses", rows, key_at=1)


def _decode(tags: str, deps: str) -> Parse | None:
    """A stored parse, or None for a damaged row."""
    try:
        parse = Parse(tuple(json.loads(tags)), tuple(json.loads(deps)))
    except (TypeError, ValueError):
        return None
    same = len(parse.tags) == len(parse.deps)
    strings = all(isinstance(x, str) for x in (*parse.tags, *parse.deps))
    return parse if same and strings else None
