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
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from hinter.edits import text_hash
from hinter.errors import DataError, os_error, sqlite_error
from hinter.invariant.compare import Parse

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS parses (
    pipeline TEXT NOT NULL,
    sentence TEXT NOT NULL,
    tags TEXT NOT NULL,
    deps TEXT NOT NULL,
    PRIMARY KEY (pipeline, sentence)
) WITHOUT ROWID
"""
_CHUNK = 500  # keys per SELECT (well below SQLite's limit on bound parameters)


class ParseCache:
    """A parse cache for one pipeline; lookups and inserts take many sentences at once."""

    def __init__(self, path: str | Path, pipeline: str, timeout: float = 300.0):
        self.path = Path(path)
        self.pipeline = pipeline
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(os_error(exc, "cannot create the parse cache folder")) from None
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                log.warning("%s: SQLite WAL mode unavailable (journal mode %s)", self.path, mode)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise DataError(sqlite_error(self.path, exc, "parse cache")) from None

    def get_many(self, texts: Iterable[str]) -> dict[str, Parse]:
        """Cached parses of ``texts`` (missing ones are absent from the result)."""
        by_key = {text_hash(t): t for t in texts}
        keys = list(by_key)
        found: dict[str, Parse] = {}
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self._db.execute(
                    f"SELECT sentence, tags, deps FROM parses WHERE pipeline = ? "
                    f"AND sentence IN ({marks})",
                    [self.pipeline, *chunk],
                ).fetchall()
            except sqlite3.OperationalError as exc:  # locked for too long: a miss, not a failure
                log.warning("%s: parse cache lookup failed (%s); parsing instead", self.path, exc)
                return found
            for key, tags, deps in rows:
                found[by_key[key]] = _decode(self.path, tags, deps)
        return found

    def put_many(self, items: Sequence[tuple[str, Parse]]) -> None:
        """Store parses (first writer wins: a sentence's parse never changes for a pipeline)."""
        if not items:
            return
        rows = [
            (self.pipeline, text_hash(t), json.dumps(p.tags), json.dumps(p.deps)) for t, p in items
        ]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR IGNORE INTO parses VALUES (?, ?, ?, ?)", rows)
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            log.warning("%s: parse cache not updated (%s)", self.path, exc)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ParseCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _decode(path: Path, tags: str, deps: str) -> Parse:
    try:
        parse = Parse(tuple(json.loads(tags)), tuple(json.loads(deps)))
    except (json.JSONDecodeError, TypeError):
        parse = None
    if parse is None or len(parse.tags) != len(parse.deps):
        raise DataError(f"{path}: corrupt parse cache entry; delete the file to rebuild it")
    return parse
