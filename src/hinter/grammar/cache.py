"""Persistent score cache: (checker, checker version, text hash) -> issues per category.

One SQLite database under ``cache_dir`` (``grammar.sqlite``) is shared by every job and rerun,
so a text is checked once per checker and version, ever: an interrupted scoring job resumes
where it stopped, and the same original sampled for several models is checked once. Values
are JSON objects of category counts (never pickles); the text key is a 128-bit hash. WAL mode
lets jobs read while one writes (as the parse cache: keep ``cache_dir`` on a local disk).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from hinter.edits import text_hash
from hinter.grammar.scoring import CATEGORIES
from hinter.store import TextCache

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    checker TEXT NOT NULL,
    version TEXT NOT NULL,
    text TEXT NOT NULL,
    counts TEXT NOT NULL,
    PRIMARY KEY (checker, version, text)
) WITHOUT ROWID
"""


class ScoreCache(TextCache):
    """Issue counts of one checker (identity and version); many texts per call. A damaged row
    is checked again and replaced (:class:`hinter.store.TextCache`)."""

    def __init__(self, path: str | Path, checker: str, version: str, timeout: float = 300.0):
        super().__init__(path, "grammar score cache", _SCHEMA, timeout)
        self.checker = checker
        self.version = version

    def get_many(self, texts: Iterable[str]) -> dict[str, dict[str, int]]:
        """Cached category counts of ``texts`` (missing or damaged ones are absent)."""
        query = (
            "SELECT text, counts FROM scores WHERE checker = ? AND version = ? "
            "AND text IN ({marks})"
        )
        return self.lookup(query, [self.checker, self.version], texts, _decode)

    def put_many(self, items: Sequence[tuple[str, Mapping[str, int]]]) -> None:
        """Store counts (the first writer wins: a checker version's verdict on a text is fixed)."""
        rows = [
            (self.checker, self.version, text_hash(t), json.dumps(dict(c), sort_keys=True))
            for t, c in items
        ]
        self.save("scores", rows, key_at=2)


def _decode(raw: str) -> dict[str, int] | None:
    """Stored counts, or None for a damaged row (not every category, a negative count)."""
    try:
        counts = json.loads(raw)
    except (TypeError, ValueError):
        return None
    ok = isinstance(counts, dict) and set(counts) == set(CATEGORIES)
    ok = ok and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts.values()
    )
    return counts if ok else None
