"""Mutants of one document for one suite: atomic, intersectional (simultaneous) or sequential.

docs/design.md §2: an atomic mutant replaces every whole-word occurrence of one pair's source; an
intersectional mutant of order N takes one pair from each of N distinct attributes whose
sources all occur and do not overlap, and applies them simultaneously to the original. Its
atomic parents are the same pairs applied one at a time. ``sequential`` mode reproduces the
original artifact (each pair applied to the previous pair's output), for comparison only.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, product
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa

from hinter import io, tables
from hinter.edits import Edit, mutant_id
from hinter.errors import DataError
from hinter.mutation.matching import (
    Matcher,
    Span,
    at_sentence_start,
    match_key,
    transfer_case,
)

MODES = ("simultaneous", "sequential")
_START = attrgetter("start")


@dataclass(frozen=True)
class Pair:
    """A directed dictionary pair; ``source`` is the matching key (see ``match_key``),
    ``target`` and ``form`` (the source's) are canonical forms (how each is written
    mid-sentence: ``Native American``); ``form`` defaults to the key."""

    pair_id: str
    attribute: str
    source: str
    target: str
    form: str = ""

    @property
    def source_form(self) -> str:
        return self.form or self.source


@dataclass(frozen=True)
class Mutant:
    """A mutant of one document; ``parents`` are its atomic parents (empty for order 1)."""

    mutant_id: str
    attributes: tuple[str, ...]
    pair_ids: tuple[str, ...]
    edits: tuple[Edit, ...]
    parents: tuple[Mutant, ...] = ()

    @property
    def order(self) -> int:
        return len(self.attributes)


class Candidate(NamedTuple):
    """A distinct mutant before its id is computed (``key``: a salted hash of its text)."""

    key: bytes
    edits: tuple[Edit, ...]
    parents: tuple[Mutant, ...]
    atomic: Mutant | None  # the mutant itself, for an atomic suite


@dataclass
class Counts:
    """What happened to the candidate mutants of a suite (summed over documents)."""

    combinations: int = 0  # one pair per attribute, every source occurring (the raw product)
    overlapping: int = 0  # combinations whose source spans overlap
    unchanged: int = 0  # text identical to the original
    duplicates: int = 0  # text identical to an earlier mutant of the same document
    generated: int = 0  # distinct mutants (before caps)

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def load_pairs(path: str | Path, attributes: Sequence[str]) -> list[Pair]:
    """The pairs of ``attributes`` from a pairs file, checked, in a stable order."""
    table = io.read_parquet(
        path, tables.PAIRS, columns=["pair_id", "attribute", "source", "target"]
    )
    return pairs_from_table(table, attributes, where=str(path))


def pairs_from_table(
    table: pa.Table, attributes: Sequence[str], where: str = "pairs"
) -> list[Pair]:
    """The pairs of ``attributes`` from a PAIRS table, checked, in a stable order.

    Sorted by (attribute, source, target, pair_id) so output order does not depend on how the
    dictionary stage happened to order its rows.
    """
    seen: set[str] = set()
    pairs = []
    wanted = set(attributes)
    columns = [table.column(c).to_pylist() for c in ("pair_id", "attribute", "source", "target")]
    for row, (pair_id, attribute, source, target) in enumerate(zip(*columns, strict=True)):
        at = f"{where} row {row}"
        if not pair_id:
            raise DataError(f"{at}: pair_id is missing")
        if pair_id in seen:
            raise DataError(f"{at}: duplicate pair_id {pair_id!r}")
        seen.add(pair_id)
        if attribute not in wanted:
            continue
        for name, value in (("source", source), ("target", target)):
            if not isinstance(value, str) or not value.strip():
                raise DataError(f"{at} (pair {pair_id}): {name} is empty")
        pairs.append(
            Pair(
                pair_id,
                attribute,
                match_key(source),
                " ".join(target.split()),
                " ".join(source.split()),
            )
        )
    present = {p.attribute for p in pairs}
    missing = [a for a in attributes if a not in present]
    if missing:
        raise DataError(f"{where}: no pairs for attribute(s) {', '.join(missing)}")
    return sorted(pairs, key=lambda p: (p.attribute, p.source, p.target, p.pair_id))


class SuiteMutator:
    """The mutants of one suite (1..N attributes), document by document.

    The dictionary is compiled once; :meth:`mutants` yields a document's distinct mutants in a
    deterministic order and adds to :attr:`counts`.
    """

    def __init__(
        self,
        pairs: Sequence[Pair],
        attributes: Sequence[str],
        mode: str = "simultaneous",
        salt: bytes = b"",
    ):
        if mode not in MODES:
            raise ValueError(f"unknown mutation mode {mode!r} (known: {', '.join(MODES)})")
        if len(set(attributes)) != len(attributes) or not attributes:
            raise ValueError(f"a suite needs distinct attributes, got {list(attributes)}")
        self.attributes = tuple(attributes)
        self.mode = mode
        self.by_source: dict[str, dict[str, list[Pair]]] = {a: {} for a in self.attributes}
        self.pairs: dict[str, Pair] = {}
        for pair in pairs:
            if pair.attribute in self.by_source:
                self.by_source[pair.attribute].setdefault(pair.source, []).append(pair)
                self.pairs[pair.pair_id] = pair
        missing = [a for a in self.attributes if not self.by_source[a]]
        if missing:
            raise ValueError(f"no pairs for attribute(s) {', '.join(missing)}")
        self.matcher = Matcher({a: list(self.by_source[a]) for a in self.attributes})
        self.counts = Counts()
        # keyed text hashes: exact duplicate detection, and seeded sampling keys for the caps
        self._hasher = hashlib.blake2b(digest_size=16, key=salt)

    def mutants(self, doc_id: str, text: str, window_end: int | None = None) -> Iterator[Mutant]:
        """The distinct mutants of one document whose edits lie within ``text[:window_end]``."""
        for candidate in self.candidates(doc_id, text, window_end):
            yield self.build(doc_id, candidate)

    def candidates(
        self, doc_id: str, text: str, window_end: int | None = None
    ) -> Iterator[Candidate]:
        """Like :meth:`mutants`, but ids are left to :meth:`build` (caps skip most of them)."""
        end = len(text) if window_end is None else window_end
        occurrences = self.matcher.find(text, end)
        groups = [self._candidates(doc_id, text, a, occurrences[a]) for a in self.attributes]
        original = self._text_key(text)
        seen = {original}  # a mutant equal to the original counts as unchanged
        if len(self.attributes) == 1:
            stream = ((c.edits, (), c) for _, _, cands in groups[0] for c in cands)
        elif self.mode == "simultaneous":
            stream = self._simultaneous(groups)
        else:
            stream = self._sequential(text, end, groups)
        for edits, parents, atomic in stream:
            key = self._text_key(_materialise(text, edits))
            if key in seen:
                if key == original:
                    self.counts.unchanged += 1
                else:
                    self.counts.duplicates += 1
                continue
            seen.add(key)
            self.counts.generated += 1
            yield Candidate(key, edits, parents, atomic)

    def _text_key(self, text: str) -> bytes:
        h = self._hasher.copy()
        h.update(text.encode("utf-8", "surrogatepass"))
        return h.digest()

    @staticmethod
    def build(doc_id: str, candidate: Candidate) -> Mutant:
        """The mutant of a candidate, with its stable id."""
        if candidate.atomic is not None:
            return candidate.atomic
        parents = candidate.parents
        return Mutant(
            mutant_id(doc_id, candidate.edits),
            tuple(p.attributes[0] for p in parents),
            tuple(p.pair_ids[0] for p in parents),
            candidate.edits,
            parents,
        )

    def _candidates(
        self, doc_id: str, text: str, attribute: str, found: Mapping[str, list[Span]]
    ) -> list[tuple[str, list[Span], list[Mutant]]]:
        """Per source term occurring: its spans and the atomic mutants of its pairs.

        Pairs whose replacement leaves the text unchanged are counted and dropped here, so that
        no intersectional mutant has an atomic parent identical to the original.
        """
        groups = []
        for source, spans in sorted(found.items(), key=lambda kv: (kv[1][0], kv[0])):
            candidates = []
            occurrences = _occurrences(text, spans)
            for pair in self.by_source[attribute][source]:
                edits = tuple(
                    Edit(s, e, transfer_case(occ, pair.source_form, pair.target, first))
                    for s, e, occ, first in occurrences
                )
                if all(ed.replacement == text[ed.start : ed.end] for ed in edits):
                    if len(self.attributes) == 1:
                        self.counts.combinations += 1
                        self.counts.unchanged += 1
                    continue
                candidates.append(
                    Mutant(mutant_id(doc_id, edits), (attribute,), (pair.pair_id,), edits)
                )
            if candidates:
                groups.append((source, spans, candidates))
        if len(self.attributes) == 1:
            self.counts.combinations += sum(len(c) for _, _, c in groups)
        return groups

    def _simultaneous(self, groups) -> Iterator[tuple[tuple[Edit, ...], tuple[Mutant, ...], None]]:
        self.counts.combinations += math.prod(sum(len(c) for _, _, c in g) for g in groups)
        overlaps: dict[tuple[int, int, int, int], bool] = {}
        for combo in product(*[range(len(g)) for g in groups]):
            chosen = [groups[a][i] for a, i in enumerate(combo)]
            if self._any_overlap(combo, chosen, overlaps):
                self.counts.overlapping += math.prod(len(c) for _, _, c in chosen)
                continue
            for parents in product(*[c for _, _, c in chosen]):
                edits = tuple(sorted(chain.from_iterable(p.edits for p in parents), key=_START))
                yield edits, parents, None

    @staticmethod
    def _any_overlap(combo, chosen, cache) -> bool:
        for a in range(len(chosen)):
            for b in range(a + 1, len(chosen)):
                key = (a, combo[a], b, combo[b])
                if key not in cache:
                    cache[key] = spans_overlap(chosen[a][1], chosen[b][1])
                if cache[key]:
                    return True
        return False

    def _sequential(self, text: str, end: int, groups):
        """The original artifact's loops: pair k is matched in the output of pairs 1..k-1."""
        self.counts.combinations += math.prod(sum(len(c) for _, _, c in g) for g in groups)
        flat = [[(source, c) for source, _, cands in g for c in cands] for g in groups]
        overlaps: dict[tuple[int, int, int, int], bool] = {}
        for combo in product(*[range(len(g)) for g in groups]):
            chosen = [groups[a][i] for a, i in enumerate(combo)]
            if self._any_overlap(combo, chosen, overlaps):
                self.counts.overlapping += math.prod(len(c) for _, _, c in chosen)
        # The text before step k depends on the first k choices only: its matches are found
        # once per distinct text, not once per combination (the same result, far fewer scans).
        found: dict[tuple[str, int, str], Mapping[str, list[Span]]] = {}
        for chosen in product(*flat):
            parents = tuple(c for _, c in chosen)
            segments = Segments(text)
            current, current_end = text, end
            for step, (source, parent) in enumerate(chosen):
                if step == 0:
                    step_edits = list(parent.edits)
                else:
                    attribute = self.attributes[step]
                    key = (current, current_end, attribute)
                    if key not in found:
                        found[key] = self.matcher.find(current, current_end, [attribute])[attribute]
                    spans = found[key]
                    pair = self.pairs[parent.pair_ids[0]]
                    step_edits = [
                        Edit(s, e, transfer_case(occ, pair.source_form, pair.target, first))
                        for s, e, occ, first in _occurrences(current, spans.get(source, []))
                    ]
                current_end = _shift(current_end, step_edits)
                segments.apply(step_edits)
                current = segments.text()
            yield tuple(segments.edits()), parents, None


def _occurrences(text: str, spans: Sequence[Span]) -> list[tuple[int, int, str, bool]]:
    """``(start, end, occurrence, at a sentence start)`` of each span; whether a span begins a
    sentence only matters for an occurrence that begins with a capital (see transfer_case)."""
    out = []
    for s, e in spans:
        occurrence = text[s:e]
        first = occurrence[:1].isupper() and at_sentence_start(text, s)
        out.append((s, e, occurrence, first))
    return out


def _shift(position: int, edits: Sequence[Edit]) -> int:
    """``position`` after ``edits`` (edits that end at or before it move it)."""
    return position + sum(
        len(e.replacement) - (e.end - e.start) for e in edits if e.end <= position
    )


def spans_overlap(a: Sequence[Span], b: Sequence[Span]) -> bool:
    """Whether two sorted, internally disjoint span lists share at least one character."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][0] < b[j][1] and b[j][0] < a[i][1]:
            return True
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return False


def _materialise(text: str, edits: Sequence[Edit]) -> str:
    """``apply_edits`` for edits already sorted and disjoint (the hot path of deduplication)."""
    parts = []
    cursor = 0
    for e in edits:
        parts.append(text[cursor : e.start])
        parts.append(e.replacement)
        cursor = e.end
    parts.append(text[cursor:])
    return "".join(parts)


@dataclass
class Segments:
    """A text built by successive edit rounds, tracked as pieces of the original and new text.

    Used by sequential mode: after any number of rounds (each against the previous round's
    output), :meth:`edits` gives the same text as edits against the original.
    """

    original: str
    pieces: list[tuple[int, int] | str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.pieces and self.original:
            self.pieces = [(0, len(self.original))]

    def _length(self, piece) -> int:
        return len(piece) if isinstance(piece, str) else piece[1] - piece[0]

    def _slice(self, piece, a: int, b: int):
        """Characters a..b of one piece, as a piece."""
        return piece[a:b] if isinstance(piece, str) else (piece[0] + a, piece[0] + b)

    def text(self) -> str:
        return "".join(p if isinstance(p, str) else self.original[p[0] : p[1]] for p in self.pieces)

    def apply(self, edits: Sequence[Edit]) -> None:
        """Apply non-overlapping edits whose offsets refer to the current :meth:`text`."""
        edits = sorted(edits)  # the order apply_edits uses, also for insertions at one point
        cuts = sorted({e.start for e in edits} | {e.end for e in edits})
        split: list[tuple[int, tuple[int, int] | str]] = []  # (position, piece), cut at edges
        position = 0
        c = 0
        for piece in self.pieces:
            length = self._length(piece)
            local = 0
            while c < len(cuts) and cuts[c] < position + length:
                cut = cuts[c] - position
                if cut > local:
                    split.append((position + local, self._slice(piece, local, cut)))
                    local = cut
                c += 1
            split.append((position + local, self._slice(piece, local, length)))
            position += length
        out: list[tuple[int, int] | str] = []
        k = 0
        covered_until = 0
        for start, piece in split:
            while k < len(edits) and edits[k].start <= start:
                out.append(edits[k].replacement)
                covered_until = max(covered_until, edits[k].end)
                k += 1
            if start >= covered_until:
                out.append(piece)
        out.extend(e.replacement for e in edits[k:])
        self.pieces = [p for p in out if self._length(p) > 0]

    def edits(self) -> list[Edit]:
        """Edits against the original that give :meth:`text` (one per changed region)."""
        out = []
        previous_end = 0
        inserted: list[str] = []
        for piece in self.pieces:
            if isinstance(piece, str):
                inserted.append(piece)
                continue
            start, stop = piece
            if start != previous_end or inserted:
                out.append(Edit(previous_end, start, "".join(inserted)))
                inserted = []
            previous_end = stop
        n = len(self.original)
        if previous_end != n or inserted:
            out.append(Edit(previous_end, n, "".join(inserted)))
        return [e for e in out if e.replacement != self.original[e.start : e.end]]
