"""One suite over one shard of tested documents: streamed in, capped, streamed out as edits.

Documents are read in record batches and mutants written in row groups as they are made, so
memory stays bounded whatever the number of mutants (a per-suite cap holds at most its share of
mutants until the shard ends). Intersectional files are self-contained for the oracle: after a
document's mutants come, once each, their atomic parents (role ``parent``).
"""

from __future__ import annotations

import csv
import hashlib
import heapq
import io as _io
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import io, plan, tables
from hinter.errors import DataError
from hinter.mutation.generate import Counts, Mutant, Pair, SuiteMutator, load_pairs
from hinter.mutation.window import TokenizerWindow, WordWindow, window_for

log = logging.getLogger(__name__)

Window = WordWindow | TokenizerWindow


@dataclass(frozen=True)
class Options:
    """How a suite is generated (``mutation`` config block, resolved for one shard)."""

    mode: str = "simultaneous"
    max_mutants_per_document: int | None = None
    max_mutants_per_suite: int | None = None  # this shard's share
    max_documents: int | None = None  # documents with position < max_documents
    seed: int = 0
    excluded: frozenset[str] = frozenset()  # documents never mutated (an LLM's examples)


@dataclass
class Stats:
    """Per suite and shard; ``generated`` is counted before caps, ``written`` after."""

    documents: int = 0  # documents considered (within the suite's document limit)
    beyond_limit: int = 0  # documents at position >= max_documents
    excluded: int = 0  # documents left out (an LLM track's few-shot examples)
    skipped_texts: dict[str, int] = field(
        default_factory=lambda: {"empty": 0, "missing": 0, "non_string": 0}
    )
    truncated_documents: int = 0  # documents longer than the model-visible window
    documents_with_generated: int = 0
    documents_with_mutants: int = 0  # with >= 1 written mutant
    counts: Counts = field(default_factory=Counts)
    written: int = 0
    parents: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "counts"}
        out.update(asdict(self.counts))
        out["skipped"] = sum(self.skipped_texts.values())
        out["capped"] = self.counts.generated - self.written
        return out


def name_order(attributes: Sequence[str]) -> tuple[str, ...]:
    """The attributes in the order their suite's name lists them (``plan.suite_name``)."""
    return tuple(plan.suite_name(attributes).split("-", 1)[1].split("+"))


def shard_share(total: int | None, n_shards: int, shard: int) -> int | None:
    """A shard's part of a per-suite cap: ``total`` split as evenly as possible."""
    if total is None:
        return None
    return total // n_shards + (1 if shard < total % n_shards else 0)


def classify_text(text: object) -> str | None:
    """Why a text cannot be mutated (``missing``, ``non_string``, ``empty``), or None."""
    if text is None:
        return "missing"
    if not isinstance(text, str):
        return "non_string"
    if not text.strip():
        return "empty"
    return None


@dataclass(frozen=True)
class Document:
    doc_id: str
    position: int | None
    text: object


def read_documents(path: str | Path, batch_size: int = 64) -> Iterator[list[Document]]:
    """Tested documents in file order, in batches; a bad file or row is a one-line DataError."""
    row = 0
    seen: set[str] = set()
    for batch in io.iter_batches(
        path, ["doc_id", "text"], optional=["position"], batch_size=batch_size
    ):
        data = batch.to_pydict()
        positions = data.get("position", [None] * batch.num_rows)
        out = []
        for doc_id, text, position in zip(data["doc_id"], data["text"], positions, strict=True):
            if not isinstance(doc_id, str) or not doc_id:
                raise DataError(f"{path} row {row}: doc_id is missing or not a string")
            if doc_id in seen:
                raise DataError(f"{path} row {row}: duplicate doc_id {doc_id!r}")
            seen.add(doc_id)
            if position is not None and not isinstance(position, int):
                raise DataError(f"{path} row {row}: position {position!r} is not an integer")
            out.append(Document(doc_id, position, text))
            row += 1
        yield out


def generate(
    batches: Iterable[Sequence[Document]],
    pairs: Sequence[Pair],
    attributes: Sequence[str],
    window: Window | None,
    options: Options,
    stats: Stats,
    suite: str | None = None,
    where: str = "documents",
) -> Iterator[tuple[str, Mutant, str]]:
    """``(doc_id, mutant, role)`` rows of one suite, in output order; fills ``stats``.

    Attributes, pair ids and parent ids follow the suite name's order (``inter-race+gender``:
    race first; also the order in which sequential mode applies the pairs).
    Per document: its kept mutants in generation order, then the atomic parents they refer to
    (once each, in order of first reference). Caps keep the mutants with the smallest seeded
    hash of their text (bottom-k sampling: deterministic, independent of generation order).
    """
    attributes = name_order(attributes)
    suite = suite or plan.suite_name(attributes)
    salt = hashlib.blake2b(f"{options.seed}\x00{suite}".encode(), digest_size=16).digest()
    mutator = SuiteMutator(pairs, attributes, options.mode, salt=salt)
    stats.counts = mutator.counts  # the mutator adds to it as documents go by
    per_doc = options.max_mutants_per_document
    per_suite = options.max_mutants_per_suite
    held: list[tuple] = []  # per-suite bottom-k heap: (-key, doc index, seq, doc_id, candidate)
    sequence = 0
    doc_index = -1

    for batch in batches:
        selected = []
        for doc in batch:
            if doc.doc_id in options.excluded:
                stats.excluded += 1
                continue
            if options.max_documents is not None:
                if doc.position is None:
                    raise DataError(
                        f"{where}: document {doc.doc_id} has no position, which the suite's "
                        "document limit needs"
                    )
                if doc.position >= options.max_documents:
                    stats.beyond_limit += 1
                    continue
            stats.documents += 1
            reason = classify_text(doc.text)
            if reason is not None:
                stats.skipped_texts[reason] += 1
                continue
            selected.append(doc)
        if not selected:
            continue
        ends = window.ends([d.text for d in selected]) if window is not None else None
        for i, doc in enumerate(selected):
            text = doc.text
            end = len(text) if ends is None else ends[i]
            if end < len(text):
                stats.truncated_documents += 1
            doc_index += 1
            candidates = mutator.candidates(doc.doc_id, text, end)
            if per_doc is None and per_suite is None:  # stream without holding the document
                mutants = (mutator.build(doc.doc_id, c) for c in candidates)
                stats.documents_with_generated += yield from _emit(doc.doc_id, mutants, stats)
                continue
            kept: list[tuple] = []  # per-document bottom-k heap: (-key, seq, candidate)
            any_generated = False
            for candidate in candidates:
                any_generated = True
                sequence += 1
                negated = -int.from_bytes(candidate.key[:8], "big")  # seeded by the salt
                if per_doc is not None:
                    _offer(kept, per_doc, (negated, sequence, candidate))
                else:
                    _offer(held, per_suite, (negated, doc_index, sequence, doc.doc_id, candidate))
            stats.documents_with_generated += any_generated
            if per_doc is None:
                continue
            if per_suite is None:
                kept.sort(key=lambda k: k[1])
                mutants = [mutator.build(doc.doc_id, c) for _, _, c in kept]
                yield from _emit(doc.doc_id, mutants, stats)
                continue
            for negated, seq, candidate in kept:
                _offer(held, per_suite, (negated, doc_index, seq, doc.doc_id, candidate))
    if per_suite is not None:
        held.sort(key=lambda h: (h[1], h[2]))
        start = 0
        while start < len(held):
            stop = start
            while stop < len(held) and held[stop][1] == held[start][1]:
                stop += 1
            doc_id = held[start][3]
            mutants = [mutator.build(doc_id, h[4]) for h in held[start:stop]]
            yield from _emit(doc_id, mutants, stats)
            start = stop


def _offer(heap: list[tuple], cap: int, item: tuple) -> None:
    """Bottom-k: keep the ``cap`` items with the largest first fields (negated sample keys)."""
    if len(heap) < cap:
        heapq.heappush(heap, item)
    elif cap and item[:2] > heap[0][:2]:
        heapq.heapreplace(heap, item)


def _emit(doc_id: str, mutants: Iterable[Mutant], stats: Stats):
    """Yield one document's mutants, then their parents; return whether there was any."""
    parents: dict[str, Mutant] = {}
    written = 0
    for mutant in mutants:
        written += 1
        yield doc_id, mutant, "mutant"
        for parent in mutant.parents:
            parents.setdefault(parent.mutant_id, parent)
    for parent in parents.values():
        yield doc_id, parent, "parent"
    stats.written += written
    stats.parents += len(parents)
    stats.documents_with_mutants += written > 0
    return written > 0


class _Rows:
    """Column buffers of the mutants table, turned into Arrow arrays without per-row dicts."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.ids: list[str] = []
        self.doc_ids: list[str] = []
        self.orders: list[int] = []
        self.roles: list[str] = []
        self.attributes: list[tuple[str, ...]] = []
        self.pair_ids: list[tuple[str, ...]] = []
        self.parent_ids: list[tuple[str, ...]] = []
        self.edit_offsets = [0]
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.replacements: list[str] = []

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, doc_id: str, mutant: Mutant, role: str) -> None:
        self.ids.append(mutant.mutant_id)
        self.doc_ids.append(doc_id)
        self.orders.append(mutant.order)
        self.roles.append(role)
        self.attributes.append(mutant.attributes)
        self.pair_ids.append(mutant.pair_ids)
        self.parent_ids.append(tuple(p.mutant_id for p in mutant.parents))
        for e in mutant.edits:
            self.starts.append(e.start)
            self.ends.append(e.end)
            self.replacements.append(e.replacement)
        self.edit_offsets.append(len(self.starts))

    def table(self) -> pa.Table:
        edits = pa.ListArray.from_arrays(
            pa.array(self.edit_offsets, pa.int32()),
            pa.StructArray.from_arrays(
                [
                    pa.array(self.starts, pa.int32()),
                    pa.array(self.ends, pa.int32()),
                    pa.array(self.replacements, pa.string()),
                ],
                fields=list(tables.EDIT),
            ),
        )
        strings = pa.list_(pa.string())
        columns = [
            pa.array(self.ids, pa.string()),
            pa.array(self.doc_ids, pa.string()),
            pa.array(self.orders, pa.int8()),
            pa.array(self.roles, pa.string()),
            pa.array(self.attributes, strings),
            pa.array(self.pair_ids, strings),
            edits.cast(tables.MUTANTS.field("edits").type),
            pa.array(self.parent_ids, strings),
        ]
        return pa.Table.from_arrays(columns, schema=tables.MUTANTS)


def write_mutants(
    rows: Iterable[tuple[str, Mutant, str]], path: str | Path, row_group_rows: int = 20_000
) -> int:
    """Stream ``rows`` into a mutants Parquet file (atomic); return the number of rows."""
    buffer = _Rows()
    with io.ParquetStreamWriter(path, tables.MUTANTS) as writer:
        for doc_id, mutant, role in rows:
            buffer.add(doc_id, mutant, role)
            if len(buffer) >= row_group_rows:
                writer.write(buffer.table())
                buffer.clear()
        if len(buffer):
            writer.write(buffer.table())
        return writer.rows


def mutate_shard(
    docs_path: str | Path,
    pairs_path: str | Path,
    out_path: str | Path,
    stats_path: str | Path,
    *,
    attributes: Sequence[str],
    window: Window | None,
    options: Options,
    meta: Mapping[str, Any] | None = None,
    batch_size: int = 64,
    row_group_rows: int = 20_000,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Write the mutants of one suite for one shard and its stats JSON; return the stats.

    ``progress`` is called with the number of documents of each batch done.
    """
    pairs = load_pairs(pairs_path, attributes)
    stats = Stats()
    suite = plan.suite_name(attributes)
    attributes = name_order(attributes)
    began = time.perf_counter()
    batches = read_documents(docs_path, batch_size)
    rows = generate(
        _reported(batches, progress) if progress else batches,
        pairs, attributes, window, options, stats, suite, where=str(docs_path),
    )  # fmt: skip
    write_mutants(rows, out_path, row_group_rows)
    elapsed = time.perf_counter() - began
    result = {
        "suite": suite,
        "attributes": list(attributes),
        "order": len(attributes),
        "mode": options.mode,
        "window": None
        if window is None
        else {"tokenizer": window.name, "max_tokens": window.max_tokens},
        "caps": {
            "max_documents": options.max_documents,
            "max_mutants_per_document": options.max_mutants_per_document,
            "max_mutants_per_suite": options.max_mutants_per_suite,
        },
        **dict(meta or {}),
        **stats.as_dict(),
    }
    io.write_json(stats_path, result)
    log.info(
        "%s: %d documents, %d generated, %d written (+%d parents), %d overlapping, "
        "%d duplicates, %d skipped texts in %.1fs (%.0f mutants/s)",
        suite, stats.documents, stats.counts.generated, stats.written, stats.parents,
        stats.counts.overlapping, stats.counts.duplicates, result["skipped"], elapsed,
        stats.counts.generated / elapsed if elapsed else 0.0,
    )  # fmt: skip
    return result


def _reported(batches: Iterable[list[Document]], progress: Callable[[int], None]):
    """The batches, reporting each one's documents once it has been mutated."""
    for batch in batches:
        yield batch
        progress(len(batch))


def mutate_job(
    docs: str,
    pairs: str,
    out: str,
    stats: str,
    *,
    suite: plan.Suite,
    track: str,
    track_spec: Mapping[str, Any],
    dataset: str,
    shard: str,
    n_shards: int,
    mutation: Mapping[str, Any],
    seed: int,
    window: Window | None = None,
    excluded: Sequence[str] = (),
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The ``mutate`` rule: one suite of one (track, dataset, shard) from the validated config.

    ``window`` replaces the track's tokenizer window (an LLM track's prompt window, which
    :func:`hinter.models.llm.track_setup` computes with ``excluded``, the documents the track's
    LLMs see as examples). The track's ``max_documents`` and ``max_mutants_per_document``
    narrow the suite's own limits."""
    limits = [n for n in (suite.max_documents, track_spec.get("max_documents")) if n is not None]
    per_document = track_spec.get("max_mutants_per_document")
    options = Options(
        mode=mutation.get("mode", "simultaneous"),
        max_mutants_per_document=per_document
        if per_document is not None
        else mutation.get("max_mutants_per_document"),
        max_mutants_per_suite=shard_share(
            mutation.get("max_mutants_per_suite"), n_shards, int(shard)
        ),
        max_documents=min(limits) if limits else None,
        seed=seed,
        excluded=frozenset(excluded),
    )
    if window is None:
        if track_spec.get("from_models"):
            raise ValueError(f"track {track}: its window comes from its LLMs; pass it")
        window = window_for(track, track_spec, dataset)
    meta = {"track": track, "dataset": dataset, "shard": shard, "excluded_ids": sorted(excluded)}
    return mutate_shard(docs, pairs, out, stats, attributes=suite.attributes, window=window,
                        options=options, meta=meta, progress=progress)  # fmt: skip


SUMMARY_COLUMNS = (
    "suite", "order", "attributes", "mode", "shards", "documents", "beyond_limit",
    "skipped", "truncated_documents", "documents_with_generated", "documents_with_mutants",
    "combinations", "overlapping", "unchanged", "duplicates", "generated", "written", "capped",
    "parents",
)  # fmt: skip
_SUMMED = SUMMARY_COLUMNS[5:]


def summarise(stats_paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Per-suite totals over shards, ordered by (order, suite name)."""
    by_suite: dict[str, dict[str, Any]] = {}
    for path in stats_paths:
        stats = io.read_json(path)
        try:
            row = by_suite.setdefault(
                stats["suite"],
                {
                    "suite": stats["suite"],
                    "order": stats["order"],
                    "attributes": "+".join(stats["attributes"]),
                    "mode": stats["mode"],
                    "shards": 0,
                    **dict.fromkeys(_SUMMED, 0),
                },
            )
            row["shards"] += 1
            for column in _SUMMED:
                row[column] += int(stats[column])
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{path}: not a mutation stats file ({exc!r})") from None
    return sorted(by_suite.values(), key=lambda r: (r["order"], r["suite"]))


def write_summary(stats_paths: Iterable[str | Path], out_path: str | Path) -> list[dict[str, Any]]:
    """The summary CSV of one (track, dataset): one row per suite."""
    rows = summarise(stats_paths)
    buffer = _io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    io.write_text(out_path, buffer.getvalue())
    return rows
