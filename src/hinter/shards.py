"""Deterministic assignment of documents to shards by a hash of their id."""

from __future__ import annotations

import hashlib


def shard_of(doc_id: str, n_shards: int) -> int:
    """Shard index of a document: stable across runs, machines and Python versions."""
    digest = hashlib.blake2b(doc_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % n_shards


def shard_name(index: int) -> str:
    return f"{index:03d}"
