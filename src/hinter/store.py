"""The one SQLite key-value store under every persistent cache of the project.

The prediction cache (:mod:`hinter.models.cache`), the parse cache (:mod:`hinter.invariant.cache`),
the grammar score cache (:mod:`hinter.grammar.cache`) and the API response cache
(:mod:`hinter.models.chat_openai`) each keep their own tables and file, and share what a cache
must get right:

- **opening**: the folder is created, the connection set up (autocommit; WAL where the cache is
  shared by concurrent jobs), the schema created; a file that is not a usable database is a
  one-line :class:`DataError` (:func:`hinter.errors.sqlite_error`: delete it, free space, check
  permissions, or wait for a lock, as the cause requires);
- **reading many keys at once**, in chunks below SQLite's limit on bound parameters;
- **rows validated on read**: each cache decodes its rows with a function that returns None for a
  row it cannot trust (not JSON, the wrong shape, an impossible value). Such a row is treated as
  missing — computed or fetched again, never a crash, never a wrong value — and the new value
  replaces it (:meth:`Store.write` replaces the damaged keys it saw; every other key keeps its
  first writer's value); one warning per store says so;
- **a digest per row**: every row written through :meth:`Store.insert` carries a BLAKE2b digest
  of all its values in an extra last column (``hinter_digest``, added to a table on its first
  write). :meth:`Store.select` checks it: a row whose bytes changed after it was written (a
  flipped bit that keeps the row well-formed: a logit's sign, one letter of a cached answer) is
  treated as damaged like a row its decoder rejects. Rows written before the digest existed
  (``NULL``) are read as before;
- **writing** in one short ``BEGIN IMMEDIATE`` transaction, rolled back on failure.

Values are JSON or raw bytes, never pickles.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hinter.edits import text_hash
from hinter.errors import DataError, os_error, sqlite_error

log = logging.getLogger(__name__)

CHUNK = 500  # keys per IN (...) query, well under SQLite's limit on bound parameters
DIGEST_COLUMN = "hinter_digest"
# the queries of the caches: SELECT <columns> FROM <table> WHERE ... IN ({marks})
_QUERY = re.compile(
    r"\s*SELECT\s+(?P<columns>.+?)\s+FROM\s+(?P<table>\w+)\s+(?P<rest>WHERE\s.*)", re.S
)


def row_digest(table: str, values: Sequence[Any]) -> str:
    """The digest of one row's values (as SQLite gives them back: text, bytes, numbers, NULL)."""
    h = hashlib.blake2b(table.encode(), digest_size=16)
    for value in values:
        if value is None:
            h.update(b"N")
            continue
        if isinstance(value, bytes):
            data = b"B" + value
        else:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            data = b"S" + str(value).encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


class Store:
    """One SQLite file with the given schema (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        what: str,
        schema: Sequence[str],
        *,
        timeout: float = 600.0,
        wal: bool = False,
        threads: bool = False,
    ):
        self.path = Path(path)
        self.what = what  # "prediction cache", ...: named in every message
        self._warned = False
        self.damaged: set[Any] = set()  # keys of rows rejected on read: replaced when written
        self._digested: set[str] = set()  # tables known to have the digest column
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(os_error(exc, f"cannot create the {what} folder")) from None
        try:
            self.db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=not threads
            )
            # a damaged byte in a text value is a damaged row (its digest fails), not a failed query
            self.db.text_factory = lambda raw: raw.decode("utf-8", "surrogateescape")
            if wal:
                mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    log.warning("%s: SQLite WAL mode unavailable (journal mode %s)", path, mode)
            self.db.execute("PRAGMA synchronous=NORMAL")
            with self.transaction():
                for statement in schema:
                    self.db.execute(statement)
        except sqlite3.DatabaseError as exc:
            raise self.error(exc) from None

    def error(self, exc: BaseException) -> DataError:
        return DataError(sqlite_error(self.path, exc, self.what))

    def transaction(self):
        db = self.db

        class _Transaction:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, exc, tb):
                if exc_type is None:
                    db.execute("COMMIT")
                elif db.in_transaction:
                    db.execute("ROLLBACK")

        return _Transaction()

    def select(self, query: str, fixed: Sequence[Any], keys: Iterable[Any]) -> list[tuple]:
        """Rows of ``query`` (whose last condition is ``IN ({marks})``) for every key, by chunk;
        ``fixed`` are the parameters before the keys."""
        keys = list(dict.fromkeys(keys))
        match = _QUERY.match(query)
        checked = match is not None and self._has_digest(match["table"])
        width = len(match["columns"].split(",")) if match else 0
        if checked:  # the selected columns, then the whole row to check
            query = f"SELECT {match['columns']}, * FROM {match['table']} {match['rest']}"
        rows: list[tuple] = []
        bad = 0
        for i in range(0, len(keys), CHUNK):
            part = keys[i : i + CHUNK]
            marks = ",".join("?" * len(part))
            found = self.db.execute(query.format(marks=marks), [*fixed, *part]).fetchall()
            if not checked:
                rows.extend(found)
                continue
            for row in found:
                values, stored = row[width:-1], row[-1]
                if stored is not None and stored != row_digest(match["table"], values):
                    bad += 1
                    self.damaged.add(row[0])
                    continue
                rows.append(row[:width])
        if bad:
            self._warn(bad)
        return rows

    def _has_digest(self, table: str) -> bool:
        if table not in self._digested:
            columns = [r[1] for r in self.db.execute(f"PRAGMA table_info({table})").fetchall()]
            if DIGEST_COLUMN in columns:
                self._digested.add(table)
        return table in self._digested

    def _add_digest(self, table: str) -> None:
        """Give ``table`` its digest column (inside the caller's write transaction)."""
        if not self._has_digest(table):
            self.db.execute(f"ALTER TABLE {table} ADD COLUMN {DIGEST_COLUMN} TEXT")
            self._digested.add(table)

    def _warn(self, bad: int) -> None:
        if not self._warned:
            self._warned = True
            log.warning(
                "%s: %d damaged %s entr%s ignored; computed again and replaced",
                self.path, bad, self.what, "y" if bad == 1 else "ies",
            )  # fmt: skip

    def decoded(self, rows: Iterable[tuple], decode: Callable[..., Any]) -> dict[Any, Any]:
        """``{key: decode(*values)}`` for rows ``(key, *values)``; a row ``decode`` rejects (None)
        is left out — treated as missing, so it is computed again and replaced."""
        out = {}
        bad = 0
        for key, *values in rows:
            value = decode(*values)
            if value is None:
                bad += 1
                self.damaged.add(key)
                continue
            out[key] = value
        if bad:
            self._warn(bad)
        return out

    def write(
        self, table: str, rows: Sequence[tuple], *, key_at: int = 0, replace: bool = False
    ) -> None:
        """Insert rows in one transaction: the first writer of a key wins, but a row whose key
        (``row[key_at]``) was rejected on read, or every row with ``replace``, replaces the
        stored one."""
        with self.transaction():
            self.insert(table, rows, key_at=key_at, replace=replace)

    def insert(
        self, table: str, rows: Sequence[tuple], *, key_at: int = 0, replace: bool = False
    ) -> None:
        """:meth:`write` inside the caller's transaction."""
        if not rows:
            return
        self._add_digest(table)
        rows = [(*r, row_digest(table, r)) for r in rows]
        marks = ",".join("?" * len(rows[0]))
        fresh = [r for r in rows if replace or r[key_at] in self.damaged]
        kept = [r for r in rows if not (replace or r[key_at] in self.damaged)]
        if fresh:
            self.db.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", fresh)
        if kept:
            self.db.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({marks})", kept)

    def close(self) -> None:
        self.db.close()


class TextCache:
    """A cache of values per text (its 128-bit hash) under fixed key columns, shared by
    concurrent jobs in WAL mode (the parse and grammar score caches). A lock held for longer than
    ``timeout`` makes a lookup a miss and a write a skipped update — the work is redone, never
    failed; any other database fault is one :class:`DataError`."""

    def __init__(self, path: str | Path, what: str, schema: str, timeout: float):
        self.path = Path(path)
        self.what = what
        self.store = Store(self.path, what, [schema], timeout=timeout, wal=True)

    def lookup(
        self, query: str, fixed: Sequence[Any], texts: Iterable[str], decode: Callable[..., Any]
    ) -> dict[str, Any]:
        """``{text: decoded value}`` for the cached ``texts`` (``query`` selects the hash and
        the stored values; missing and damaged rows are absent)."""
        by_key = {text_hash(t): t for t in texts}
        try:
            rows = self.store.select(query, fixed, by_key)
        except sqlite3.OperationalError as exc:  # locked for too long: a miss, not a failure
            log.warning("%s: %s lookup failed (%s); computing instead", self.path, self.what, exc)
            return {}
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None
        return {by_key[k]: v for k, v in self.store.decoded(rows, decode).items()}

    def save(self, table: str, rows: Sequence[tuple], key_at: int) -> None:
        """Store ``rows`` (the first writer wins; a row damaged on read is replaced)."""
        try:
            self.store.write(table, rows, key_at=key_at)
        except sqlite3.OperationalError as exc:
            log.warning("%s: %s not updated (%s)", self.path, self.what, exc)

    def close(self) -> None:
        self.store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
