"""Persistent prediction cache: reruns and new suites never repeat a forward pass.

One SQLite file per model fingerprint under ``<cache_dir>/predictions/``, with two tables:

- ``texts``: text hash → hash of the model-visible token ids (the text after tokenisation and
  truncation), so a rerun needs neither tokenisation nor the model;
- ``outputs``: token-ids hash → the model's output: an encoder's logits (float32,
  little-endian bytes), an LLM's generation (JSON: answer text, token ends, log-probabilities);
  never pickles.

Keying outputs by the visible token ids means two texts that differ only beyond the model's
window, or only in ways its tokenizer ignores (case, for an uncased model), share one forward
pass. SQLite's locking makes the cache safe for concurrent Snakemake jobs (every write is one
short transaction; readers wait up to ``timeout`` seconds for a writer). Prefer a local or
POSIX-locking file system for ``cache_dir`` on a cluster. The file is a
:class:`hinter.store.Store`: a damaged row (logits of the wrong size or not finite, a generation
that is not a well-formed JSON object) is ignored with a warning, computed again and replaced.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hinter.errors import DataError
from hinter.store import Store

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS texts (text_hash TEXT PRIMARY KEY, ids_hash TEXT NOT NULL)"
    " WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS outputs (ids_hash TEXT PRIMARY KEY, logits BLOB NOT NULL)"
    " WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


class LogitsCodec:
    """An encoder's output: ``n_labels`` logits as float32 bytes."""

    def __init__(self, n_labels: int):
        self.n_labels = n_labels
        self.kind = str(n_labels)  # what the cache's meta table records

    def value(self, output: Any) -> np.ndarray:
        return np.asarray(output, dtype=np.float32)

    def dumps(self, output: Any) -> bytes:
        return np.asarray(output, dtype="<f4").tobytes()

    def loads(self, blob: bytes) -> np.ndarray | None:
        """The logits, or None for a damaged row (wrong size, not finite)."""
        if not isinstance(blob, bytes) or len(blob) != 4 * self.n_labels:
            return None
        value = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return value if np.isfinite(value).all() else None


class JsonCodec:
    """A JSON object (an LLM's generation), stored as canonical UTF-8 JSON."""

    kind = "json"
    n_labels = 0

    def value(self, output: Any) -> Any:
        return output

    def dumps(self, output: Any) -> bytes:
        return json.dumps(output, sort_keys=True, ensure_ascii=False).encode()

    def loads(self, blob: bytes) -> Any:
        """The generation, or None for a damaged row: not a JSON object, or a text, token ends
        or log-probabilities of the wrong shape (finite log-probabilities <= 0)."""
        try:
            value = json.loads(blob)
        except (TypeError, ValueError, UnicodeDecodeError):
            return None
        return value if _well_formed(value) else None


def _well_formed(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if "text" in value and not isinstance(value["text"], str):
        return False
    logprobs, ends = value.get("logprobs", []), value.get("token_ends", [])
    if not isinstance(logprobs, list) or not isinstance(ends, list):
        return False
    numbers = all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x <= 0
        for x in logprobs
    )
    return numbers and all(isinstance(e, int) and not isinstance(e, bool) for e in ends)


class MemoryCache:
    """The cache interface, in memory: used when the persistent cache is off, and in tests.

    ``n_labels`` gives an encoder's logits cache; ``codec`` another kind of output."""

    def __init__(self, n_labels: int = 0, codec: LogitsCodec | JsonCodec | None = None):
        self.codec = codec or LogitsCodec(n_labels)
        self.n_labels = self.codec.n_labels
        self._texts: dict[str, str] = {}
        self._outputs: dict[str, Any] = {}

    def get_ids(self, text_hashes: Iterable[str]) -> dict[str, str]:
        return {h: self._texts[h] for h in text_hashes if h in self._texts}

    def get_logits(self, ids_hashes: Iterable[str]) -> dict[str, Any]:
        """Stored outputs (logits, or generations) by ids hash."""
        return {h: self._outputs[h] for h in ids_hashes if h in self._outputs}

    get_outputs = get_logits

    def put(self, texts: Mapping[str, str], outputs: Mapping[str, Any]) -> None:
        for h, output in outputs.items():
            self._outputs.setdefault(h, self.codec.value(output))
        for h, ids in texts.items():
            self._texts.setdefault(h, ids)

    def close(self) -> None:
        pass


class PredictionCache(MemoryCache):
    """The SQLite-backed cache of one model fingerprint (see the module docstring)."""

    def __init__(
        self,
        cache_dir: str | Path,
        fingerprint: str,
        n_labels: int = 0,
        timeout: float = 600,
        codec: LogitsCodec | JsonCodec | None = None,
    ):
        self.codec = codec or LogitsCodec(n_labels)
        self.n_labels = self.codec.n_labels
        self.path = Path(cache_dir) / "predictions" / f"{fingerprint[:40]}.sqlite"
        self.store = Store(self.path, "prediction cache", _SCHEMA, timeout=timeout)
        try:
            with self.store.transaction():
                self.store.db.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('fingerprint', ?), ('n_labels', ?)",
                    (fingerprint, self.codec.kind),
                )
            stored = dict(self.store.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None
        if stored.get("fingerprint") != fingerprint or stored.get("n_labels") != self.codec.kind:
            raise DataError(f"{self.path}: the cache belongs to another model; delete it")

    def _select(self, table: str, key: str, value: str, keys: Iterable[str]) -> list[tuple]:
        query = f"SELECT {key}, {value} FROM {table} WHERE {key} IN ({{marks}})"
        try:
            return self.store.select(query, (), keys)
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None

    def get_ids(self, text_hashes: Iterable[str]) -> dict[str, str]:
        return dict(self._select("texts", "text_hash", "ids_hash", text_hashes))

    def get_logits(self, ids_hashes: Iterable[str]) -> dict[str, Any]:
        """Stored outputs by ids hash; a damaged row is missing (computed again, replaced)."""
        rows = self._select("outputs", "ids_hash", "logits", ids_hashes)
        return self.store.decoded(rows, self.codec.loads)

    get_outputs = get_logits

    def put(self, texts: Mapping[str, str], outputs: Mapping[str, Any]) -> None:
        """Store outputs before the text mappings that point at them, in one transaction (the
        first writer wins, but an output replaces a damaged row read before)."""
        if not texts and not outputs:
            return
        rows = [(h, self.codec.dumps(v)) for h, v in outputs.items()]
        try:
            with self.store.transaction():
                self.store.insert("outputs", rows)
                self.store.insert("texts", list(texts.items()))
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None

    def close(self) -> None:
        self.store.close()
