"""Mutants as edits: non-overlapping replacements of character spans of the original text.

Mutants are stored as edits, never as full texts (docs/design.md §4); every stage that needs
a mutant's text calls :func:`apply_edits`. A mutant's id is derived from its document and its
edits, so the same mutant gets the same id in every suite, run and machine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Edit:
    """Replace ``text[start:end]`` with ``replacement`` (offsets into the original text)."""

    start: int
    end: int
    replacement: str

    def as_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "replacement": self.replacement}


def as_edits(edits: Iterable[Edit | Mapping]) -> list[Edit]:
    """Accept Edit objects or the ``{start, end, replacement}`` dicts of a Parquet row."""
    out = []
    for e in edits:
        out.append(
            e if isinstance(e, Edit) else Edit(int(e["start"]), int(e["end"]), e["replacement"])
        )
    return out


def normalise(edits: Iterable[Edit | Mapping], text_length: int | None = None) -> list[Edit]:
    """Sort edits by position and check that they are well-formed and do not overlap."""
    result = sorted(as_edits(edits))
    previous_end = 0
    for e in result:
        if e.start < previous_end or e.end < e.start:
            raise ValueError(f"overlapping or inverted edit {e}")
        if text_length is not None and e.end > text_length:
            raise ValueError(f"edit {e} beyond the end of a text of {text_length} characters")
        previous_end = e.end
    return result


def apply_edits(text: str, edits: Sequence[Edit | Mapping]) -> str:
    """The mutant's text: all edits applied simultaneously to the original ``text``."""
    parts = []
    cursor = 0
    for e in normalise(edits, len(text)):
        parts.append(text[cursor : e.start])
        parts.append(e.replacement)
        cursor = e.end
    parts.append(text[cursor:])
    return "".join(parts)


def mutant_id(doc_id: str, edits: Sequence[Edit | Mapping]) -> str:
    """Stable id of a mutant: a hash of its document id and its sorted edits."""
    h = hashlib.blake2b(digest_size=10)
    h.update(doc_id.encode("utf-8"))
    for e in normalise(edits):
        h.update(b"\x00%d\x00%d\x00" % (e.start, e.end))
        h.update(e.replacement.encode("utf-8"))
    return h.hexdigest()


def text_hash(text: str) -> str:
    """Content key of a text (prediction and parse caches)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
