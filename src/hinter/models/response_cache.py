"""The response cache of the API backend (:mod:`hinter.models.chat_openai`): every usable
response, stored as it arrives, keyed by (base URL, the full request body, run index) so that a
paid call is never repeated; rows are validated by the caller when read."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hinter.store import Store

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
    "response TEXT NOT NULL) WITHOUT ROWID"
)


class ResponseCache:
    """Responses by request key, one SQLite file shared by every job (thread-safe); a
    :class:`hinter.store.Store` whose rows the caller validates (:func:`validate_response`)."""

    def __init__(self, cache_dir: str | Path, timeout: float = 600):
        self.path = Path(cache_dir) / "api" / "responses.sqlite"
        self._lock = threading.Lock()
        self.store = Store(self.path, "response cache", [_SCHEMA], timeout=timeout, threads=True)

    def get(self, key: str) -> Any:
        """The stored response (any JSON value, or the raw text of a row that is not JSON: the
        caller validates it and fetches a damaged one again), or None when there is none."""
        try:
            with self._lock:
                rows = self.store.select(
                    "SELECT key, response FROM responses WHERE key IN ({marks})", (), [key]
                )
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None
        if not rows:
            return None
        try:
            return json.loads(rows[0][1])
        except (TypeError, ValueError):
            return str(rows[0][1])  # fails validation: fetched again and replaced

    def has(self, keys: Sequence[str]) -> set[str]:
        try:
            with self._lock:
                rows = self.store.select(
                    "SELECT key FROM responses WHERE key IN ({marks})", (), keys
                )
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None
        return {r[0] for r in rows}

    def put(self, key: str, model: str, response: Mapping, replace: bool = False) -> None:
        """Store a validated response (``replace``: over a stored row that failed validation)."""
        body = json.dumps(response, sort_keys=True, ensure_ascii=False)
        try:
            with self._lock:
                self.store.write("responses", [(key, model, body)], replace=replace)
        except sqlite3.DatabaseError as exc:
            raise self.store.error(exc) from None

    def close(self) -> None:
        with self._lock:
            self.store.close()


def request_key(base_url: str, body: Mapping[str, Any], run: int) -> str:
    """The cache key of a request: the endpoint, the full body, the run index (no secrets)."""
    blob = json.dumps(
        {"base_url": base_url.rstrip("/"), "body": body, "run": run},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()
