"""The workflow stage: validity of one suite shard, and the per-(track, dataset) summary.

Validity files list every mutants row (atomic parents carried by intersectional suites
included), in the same order, whatever the verdict: whether discarded mutants are predicted is
decided downstream (``invariant.keep_discarded``).
"""

from __future__ import annotations

import csv
import io
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from hinter import tables
from hinter.edits import normalise
from hinter.errors import DataError
from hinter.invariant.cache import ParseCache
from hinter.invariant.check import CheckStats, IncrementalChecker
from hinter.invariant.compare import DISABLED, REASONS, Verdict
from hinter.invariant.compat import workflow_compatibility
from hinter.invariant.parse import SpacyParser, load_pipeline, pipeline_info
from hinter.invariant.split import SentenceSplitter
from hinter.io import (
    ParquetStreamWriter,
    iter_batches,
    read_json,
    read_parquet,
    write_json,
    write_text,
)

log = logging.getLogger(__name__)

_MUTANT_COLUMNS = ["mutant_id", "doc_id", "role", "edits"]
_CHUNK_ROWS = 20_000  # mutants checked together (bounded memory); cut at document boundaries
CACHE_FILE = "parses.sqlite"


def check_shard(
    mutants_path: str | Path,
    docs_path: str | Path,
    validity_path: str | Path,
    stats_path: str | Path,
    *,
    pipeline: str,
    invariant: Mapping,
    cache_dir: str | Path,
    threads: int = 1,
    suite: str = "",
    shard: str = "",
    atomic_validity: Sequence[str | Path] = (),
    progress: Callable[[int], None] | None = None,
    chunk_rows: int = _CHUNK_ROWS,
) -> tuple[dict, CheckStats | None]:
    """Write the validity of every row of ``mutants_path`` and its summary.

    Returns the summary (as written) and the checker's work counters (None when disabled).
    ``invariant`` is the config section (enabled, max_sentence_chars, batch_size, parse_cache).
    ``atomic_validity``: validity files of the atomic suites; the atomic parents carried by an
    intersectional suite must get the same verdict there as here. ``progress`` is called with
    the rows of each chunk of at most ``chunk_rows`` rows checked.
    """
    start = time.perf_counter()
    compat = workflow_compatibility(invariant)  # before any work
    texts = _documents(docs_path)
    enabled = bool(invariant.get("enabled", True))
    checker = None
    cache = None
    info = None
    if enabled:
        nlp = load_pipeline(pipeline)
        info = pipeline_info(nlp)
        parser = SpacyParser(
            nlp,
            info.fingerprint,
            batch_size=int(invariant.get("batch_size", 256)),
            n_process=threads,
        )
        if invariant.get("parse_cache", True):
            cache = ParseCache(Path(cache_dir) / CACHE_FILE, info.fingerprint)
        checker = IncrementalChecker(
            SentenceSplitter.for_pipeline(nlp),
            parser,
            cache,
            max_sentence_chars=invariant.get("max_sentence_chars", 500),
            compat=compat,
        )
        log.info("parse cache %s (key %s)", cache.path if cache else "off", info.fingerprint)

    counts: dict[str, Counter] = {"mutant": Counter(), "parent": Counter()}
    parents: dict[str, Verdict] = {}
    try:
        with ParquetStreamWriter(validity_path, tables.VALIDITY) as out:
            for rows in _chunks(mutants_path, chunk_rows):
                items = [_item(mutants_path, row, texts) for row in rows]
                if checker is None:
                    verdicts = [Verdict(True, DISABLED, None)] * len(rows)
                else:
                    verdicts = checker.check(items)
                out.write(
                    [
                        {
                            "mutant_id": row["mutant_id"],
                            "valid": v.valid,
                            "reason": v.reason,
                            "sentence_index": v.sentence_index,
                        }
                        for row, v in zip(rows, verdicts, strict=True)
                    ]
                )
                for row, v in zip(rows, verdicts, strict=True):
                    role = "parent" if row["role"] == "parent" else "mutant"
                    counts[role][v.reason] += 1
                    if role == "parent":
                        parents[row["mutant_id"]] = v
                if progress is not None:
                    progress(len(rows))
            _check_parents(validity_path, parents, atomic_validity, cache)
    finally:
        if cache is not None:
            cache.close()

    summary = _summary(suite, shard, enabled, info, counts)
    write_json(stats_path, summary)
    if checker is not None:
        log.info("work: %s", checker.stats.as_dict())
    log.info(
        "%s/%s: %d mutants, %d valid, discarded %s (%.1f s)",
        suite,
        shard,
        summary["generated"],
        summary["valid"],
        {k: v for k, v in summary["discarded_by_reason"].items() if v},
        time.perf_counter() - start,
    )
    return summary, (checker.stats if checker is not None else None)


def _documents(path: str | Path) -> dict[str, str]:
    table = read_parquet(path, tables.TESTED_DOCUMENTS, columns=["doc_id", "text"])
    texts: dict[str, str] = {}
    for doc_id, text in zip(
        table.column("doc_id").to_pylist(), table.column("text").to_pylist(), strict=True
    ):
        if doc_id in texts:
            raise DataError(f"{path}: duplicate doc_id {doc_id!r}")
        texts[doc_id] = text or ""
    return texts


def _chunks(path: str | Path, chunk_rows: int = _CHUNK_ROWS) -> Iterator[list[dict]]:
    """Mutants rows in file order, in chunks that end at a change of document."""
    buffer: list[dict] = []
    for table in iter_batches(path, _MUTANT_COLUMNS, schema=tables.MUTANTS, batch_size=chunk_rows):
        buffer.extend(table.to_pylist())
        if len(buffer) >= chunk_rows:
            cut = len(buffer) - 1
            while cut > 0 and buffer[cut]["doc_id"] == buffer[cut - 1]["doc_id"]:
                cut -= 1
            if cut > 0:
                yield buffer[:cut]
                buffer = buffer[cut:]
    if buffer:
        yield buffer


def _item(path, row: dict, texts: Mapping[str, str]) -> tuple[str, str, list]:
    """``(doc_id, original text, edits)`` of a mutants row, checked against its original."""
    doc_id = row["doc_id"]
    text = texts.get(doc_id)
    if text is None:
        raise DataError(f"{path}: mutant {row['mutant_id']}: unknown doc_id {doc_id!r}")
    try:
        edits = normalise(row["edits"] or [], len(text))
    except ValueError as exc:
        raise DataError(f"{path}: mutant {row['mutant_id']}: {exc}") from None
    return doc_id, text, edits


def _check_parents(where, parents: Mapping[str, Verdict], atomic_validity, cache) -> None:
    """Atomic parents carried by an intersectional suite agree with the atomic suites."""
    if not parents:
        return
    for path in atomic_validity:
        table = read_parquet(path, tables.VALIDITY)
        for row in table.to_pylist():
            mine = parents.get(row["mutant_id"])
            if mine is None:
                continue
            theirs = Verdict(row["valid"], row["reason"], row["sentence_index"])
            if theirs != mine:
                fix = f"; delete {cache.path} and rerun" if cache is not None else ""
                raise DataError(
                    f"{where}: parent {row['mutant_id']} is {mine.reason} here but "
                    f"{theirs.reason} in {path} (parser or parse cache changed between jobs{fix})"
                )


def _summary(suite, shard, enabled, info, counts: Mapping[str, Counter]) -> dict:
    mutants = counts["mutant"]
    generated = sum(mutants.values())
    valid = mutants["ok"] + mutants[DISABLED]
    return {
        "suite": suite,
        "shard": shard,
        "enabled": enabled,
        "pipeline": info.fingerprint if info else None,
        "parser": info.as_dict() if info else None,
        "generated": generated,
        "valid": valid,
        "discarded": generated - valid,
        "discarded_by_reason": {r: mutants[r] for r in REASONS if r not in ("ok", DISABLED)},
        "reasons": {r: mutants[r] for r in REASONS},
        "parents": {"rows": sum(counts["parent"].values()), "valid": _valid(counts["parent"])},
    }


def _valid(counter: Counter) -> int:
    return counter["ok"] + counter[DISABLED]


SUMMARY_COLUMNS = [
    "suite",
    "order",
    "generated",
    "valid",
    "discarded",
    "valid_share",
    *[r for r in REASONS if r not in ("ok", DISABLED)],
    "parser",
    "parser_version",
]
_COUNTED = [c for c in SUMMARY_COLUMNS[2:] if c not in ("valid_share", "parser", "parser_version")]


def summarise(stats_paths: Sequence[str | Path], out_path: str | Path) -> list[dict]:
    """One row per suite (shards pooled) and a total row: generated, valid, discards by reason,
    and the parser (name and version) that decided them; shards of two parsers are an error."""
    rows: dict[str, dict] = {}
    parsers: dict[tuple[str, str], str | Path] = {}
    for path in stats_paths:
        stats = read_json(path)
        try:
            suite = stats["suite"]
            row = rows.setdefault(suite, _empty_row(suite))
            row["generated"] += stats["generated"]
            row["valid"] += stats["valid"]
            row["discarded"] += stats["discarded"]
            for reason, n in stats["discarded_by_reason"].items():
                row[reason] += n
            parser = stats.get("parser") or {}
            parsers.setdefault((parser.get("name", ""), parser.get("version", "")), path)
        except (KeyError, TypeError, AttributeError) as exc:
            raise DataError(f"{path}: not an invariant summary (missing {exc})") from None
    if len(parsers) > 1:
        (first, first_path), (other, other_path) = list(parsers.items())[:2]
        raise DataError(
            f"{other_path}: decided by parser {' '.join(other).strip() or 'none'} but "
            f"{first_path} by {' '.join(first).strip() or 'none'} (the parser changed between "
            "jobs; rerun the invariant)"
        )
    name, version = next(iter(parsers), ("", ""))
    ordered = sorted(rows.values(), key=lambda r: (r["order"], r["suite"]))
    total = _empty_row("all")
    total["order"] = ""
    for row in ordered:
        for key in _COUNTED:
            total[key] += row[key]
    result = [*ordered, total]
    for row in result:
        row["parser"], row["parser_version"] = name, version
        row["valid_share"] = f"{row['valid'] / row['generated']:.4f}" if row["generated"] else ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(result)
    write_text(out_path, buffer.getvalue())
    return result


def _empty_row(suite: str) -> dict:
    order = len(suite.partition("-")[2].split("+")) if suite != "all" else ""
    return {"suite": suite, "order": order, **dict.fromkeys(_COUNTED, 0)}
