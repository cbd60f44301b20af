"""Persistent score cache: (checker, checker version, text hash) -> issues per category.

One SQLite database under ``cache_dir`` (``grammar.sqlite``) is shared by every job and rerun,
so a text is checked once per checker and version, ever: an interrupted scoring job resumes
where it stopped, and the same original sampled for several models is checked once. Values
are JSON objects of category counts (never pickles); the text key is a 128-bit hash. WAL mode
lets jobs read while one writes (as the parse cache: keep ``cache_dir`` on a local disk).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from hinter.edits import text_hash
from hinter.errors import DataError
from hinter.grammaticality.scoring import CATEGORIES

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    checker TEXT NOT NULL,
    version TEXT NOT NULL,
    text TEXT NOT NULL,
    counts TEXT NOT NULL,
    PRIMARY KEY (checker, version, text)
) WITHOUT ROWID
"""
_CHUNK = 500  # keys per SELECT


class ScoreCache:
    """Issue counts of one checker (identity and version); many texts per call."""

    def __init__(self, path: str | Path, checker: str, version: str, timeout: float = 300.0):
        self.path = Path(path)
        self.checker = checker
        self.version = version
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise DataError(
                f"{self.path}: unusable grammar score cache ({exc}); delete the file to rebuild it"
            ) from None

    def get_many(self, texts: Iterable[str]) -> dict[str, dict[str, int]]:
        """Cached category counts of ``texts`` (missing ones are absent from the result)."""
        by_key = {text_hash(t): t for t in texts}
        keys = list(by_key)
        found: dict[str, dict[str, int]] = {}
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(
                    f"SELECT text, counts FROM scores WHERE checker = ? AND version = ? "
                    f"AND text IN ({marks})",
                    [self.checker, self.version, *chunk],
                ).fetchall()
            except sqlite3.OperationalError as exc:  # locked too long: a miss, not a failure
                log.warning("%s: grammar cache lookup failed (%s); rechecking", self.path, exc)
                return found
            for key, counts in rows:
                found[by_key[key]] = _decode(self.path, counts)
        return found

    def put_many(self, items: Sequence[tuple[str, Mapping[str, int]]]) -> None:
        """Store counts (first writer wins: a checker version's verdict on a text is fixed)."""
        if not items:
            return
        rows = [
            (self.checker, self.version, text_hash(t), json.dumps(dict(c), sort_keys=True))
            for t, c in items
        ]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            log.warning("%s: grammar cache not updated (%s)", self.path, exc)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _decode(path: Path, raw: str) -> dict[str, int]:
    try:
        counts = json.loads(raw)
        ok = isinstance(counts, dict) and set(counts) == set(CATEGORIES)
        ok = ok and all(isinstance(v, int) and v >= 0 for v in counts.values())
    except json.JSONDecodeError:
        ok = False
    if not ok:
        raise DataError(f"{path}: corrupt grammar cache entry; delete the file to rebuild it")
    return counts
