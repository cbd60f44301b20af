"""Score the balanced sample of one (model, dataset): read, draw, materialise, check, write.

Inputs are the run's own tables (outcomes of every suite of the model, the suites' mutants as
edits, the tested documents); texts are materialised with :func:`hinter.edits.apply_edits`.
Each distinct text is checked once: first from the persistent score cache, then by the
checker, and stored as it goes, so an interrupted job resumes where it stopped. The output
is one row per sampled text (:data:`SCORES`) and a JSON summary of the draw.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hinter import io, tables
from hinter.edits import apply_edits
from hinter.errors import DataError
from hinter.grammar.cache import ScoreCache
from hinter.grammar.checkers import Checker
from hinter.grammar.sample import OUTCOME_COLUMNS, Sample, SampleOptions, draw_suites
from hinter.grammar.scoring import CATEGORIES, count_words, counted_issues, score

log = logging.getLogger(__name__)

# results/<run>/grammar/<model>/<dataset>.parquet — one row per sampled text.
# - kind: original | mutant; text_id: the doc_id of an original, the mutant_id of a mutant.
# - order: the mutant's order; for an original, the order of the mutants it was sampled with
#   (an original sampled with atomic and intersectional mutants has one row per order).
# - suite, attributes, valid: the mutant's (null for an original).
# - biased: a mutant is bias-inducing for the model; an original is bias-inducing for that
#   order (>= 1 bias-inducing valid mutant of that order); null when the outcome is unknown.
# - words, issues (counted categories), score (hinter.grammar.scoring), and the issues of
#   every category; checker and checker_version name what scored it.
SCORES = pa.schema(
    [
        pa.field("kind", pa.string()),
        pa.field("text_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("order", pa.int8()),
        pa.field("suite", pa.string()),
        pa.field("attributes", pa.list_(pa.string())),
        pa.field("valid", pa.bool_()),
        pa.field("biased", pa.bool_()),
        pa.field("chars", pa.int32()),
        pa.field("words", pa.int32()),
        pa.field("issues", pa.int32()),
        pa.field("score", pa.float64()),
        *[pa.field(f"issues_{c}", pa.int32()) for c in CATEGORIES],
        pa.field("checker", pa.string()),
        pa.field("checker_version", pa.string()),
    ]
)
_STORE_EVERY = 200  # texts checked between cache writes (what an interruption can lose)


def outcome_parts(files: Sequence[tuple[str, str | Path]]):
    """(suite, outcome rows with the sample's columns) of each file, read one at a time."""
    for suite, path in files:
        yield suite, io.read_parquet(path, tables.OUTCOMES, columns=OUTCOME_COLUMNS).to_pandas()


def _iter_tables(path: str | Path, columns: list[str]):
    """The file by batches, through the project's checked reader (integrity included)."""
    yield from io.iter_batches(path, columns)


def document_lengths(docs: Sequence[str | Path]) -> pd.Series:
    """Characters of every tested original, by doc_id (shard files read batch by batch)."""
    parts = []
    for path in docs:
        for t in _iter_tables(path, ["doc_id", "text"]):
            lengths = pc.utf8_length(pc.fill_null(t["text"], ""))
            parts.append(pd.Series(lengths.to_numpy(), index=t["doc_id"].to_pylist()))
    return pd.concat(parts) if parts else pd.Series(dtype="int64")


def document_texts(docs: Sequence[str | Path], wanted: set[str]) -> dict[str, str]:
    """Texts of the wanted originals."""
    keys = pa.array(sorted(wanted), type=pa.string())
    found: dict[str, str] = {}
    for path in docs:
        for t in _iter_tables(path, ["doc_id", "text"]):
            t = t.filter(pc.is_in(t["doc_id"], value_set=keys))
            found.update(zip(t["doc_id"].to_pylist(), t["text"].to_pylist(), strict=True))
    return found


def mutant_edits(paths: Sequence[str | Path], wanted: set[str]) -> dict[str, list]:
    """Edits of the wanted mutants (mutant shards read batch by batch)."""
    keys = pa.array(sorted(wanted), type=pa.string())
    found: dict[str, list] = {}
    for path in paths:
        for t in _iter_tables(path, ["mutant_id", "edits"]):
            t = t.filter(pc.is_in(t["mutant_id"], value_set=keys))
            found.update(zip(t["mutant_id"].to_pylist(), t["edits"].to_pylist(), strict=True))
    return found


def materialise(
    sample: Sample, docs: Sequence[str | Path], mutants: Mapping[str, Sequence[str | Path]]
) -> dict[str, str]:
    """The text of every sampled original (by doc_id) and mutant (by mutant_id)."""
    texts = document_texts(docs, set(sample.originals["doc_id"]) | set(sample.mutants["doc_id"]))
    out = {doc_id: texts[doc_id] or "" for doc_id in sample.originals["doc_id"]}
    for suite, group in sample.mutants.groupby("suite", sort=True):
        if suite not in mutants:
            raise DataError(f"grammar sample: no mutant files given for suite {suite}")
        edits = mutant_edits(mutants[suite], set(group["mutant_id"]))
        for mid, doc_id in zip(group["mutant_id"], group["doc_id"], strict=True):
            if mid not in edits:
                raise DataError(f"{suite}: mutant {mid} of the outcomes is in no mutant shard")
            out[mid] = apply_edits(texts[doc_id] or "", edits[mid])
    return out


def check_texts(
    texts: Sequence[str], checker: Checker, cache: ScoreCache | None = None
) -> dict[str, dict[str, int]]:
    """Issues per category of every distinct text: from the cache, else by the checker."""
    distinct = list(dict.fromkeys(texts))
    found = cache.get_many(distinct) if cache is not None else {}
    todo = [t for t in distinct if t not in found]
    log.info(
        "%s %s: %d distinct texts, %d cached, %d to check",
        checker.identity,
        checker.version,
        len(distinct),
        len(found),
        len(todo),
    )
    pending: list[tuple[str, dict[str, int]]] = []
    start = last = time.monotonic()
    try:
        for i, text in enumerate(todo, 1):
            counts = dict.fromkeys(CATEGORIES, 0)
            for issue in checker.check(text):
                counts[issue.category] += 1
            found[text] = counts
            pending.append((text, counts))
            if cache is not None and len(pending) >= _STORE_EVERY:
                cache.put_many(pending)
                pending = []
            now = time.monotonic()
            if now - last >= 30 or i == len(todo):
                rate = i / max(now - start, 1e-9)
                eta = (len(todo) - i) / rate
                log.info("checked %d/%d texts (%.1f/s, ETA %.0f s)", i, len(todo), rate, eta)
                last = now
    finally:  # what was checked before an error or an interruption is kept
        if cache is not None:
            cache.put_many(pending)
    return found


def score_table(
    sample: Sample,
    texts: Mapping[str, str],
    counts: Mapping[str, Mapping[str, int]],
    checker: Checker,
) -> pa.Table:
    """One :data:`SCORES` row per sampled original (per order) and mutant."""
    originals = sample.originals.assign(
        kind="original", text_id=sample.originals["doc_id"], suite=None, attributes=None, valid=None
    )
    mutants = sample.mutants.assign(kind="mutant", text_id=sample.mutants["mutant_id"])
    frame = pd.concat([originals[_ROW_KEYS], mutants[_ROW_KEYS]], ignore_index=True)
    body = [texts[t] for t in frame["text_id"]]
    per_text = [counts[t] for t in body]
    frame["chars"] = [len(t) for t in body]
    frame["words"] = [count_words(t) for t in body]
    frame["issues"] = [counted_issues(c) for c in per_text]
    frame["score"] = [score(i, w) for i, w in zip(frame["issues"], frame["words"], strict=True)]
    for c in CATEGORIES:
        frame[f"issues_{c}"] = [pc_[c] for pc_ in per_text]
    frame["checker"] = checker.identity
    frame["checker_version"] = checker.version
    frame["biased"] = frame["biased"].astype("boolean")
    frame["valid"] = frame["valid"].astype("boolean")
    return pa.Table.from_pandas(frame, schema=SCORES, preserve_index=False)


_ROW_KEYS = ["kind", "text_id", "doc_id", "order", "suite", "attributes", "valid", "biased"]


def score_sample(
    *,
    outcomes: Sequence[tuple[str, str | Path]],
    mutants: Mapping[str, Sequence[str | Path]],
    docs: Sequence[str | Path],
    checker: Checker,
    options: SampleOptions,
    output: str | Path,
    summary: str | Path,
    cache_path: str | Path | None = None,
) -> pa.Table:
    """Draw, materialise and score the sample of one (model, dataset); write table + summary."""
    if not outcomes:
        raise DataError(f"grammar sample of {output}: no outcome files given")
    lengths = document_lengths(docs)
    suites = [suite for suite, _ in outcomes]
    try:
        sample = draw_suites(outcome_parts(outcomes), suites, lengths, options)
    except ValueError as exc:
        raise DataError(f"grammar sample of {Path(output).name}: {exc}") from None
    texts = materialise(sample, docs, mutants)
    if cache_path is None:
        counts = check_texts(list(texts.values()), checker)
    else:
        with ScoreCache(cache_path, checker.identity, checker.version) as cache:
            counts = check_texts(list(texts.values()), checker, cache)
    table = score_table(sample, texts, counts, checker)
    io.write_parquet(table, output, SCORES)
    stats = dict(sample.stats)
    stats["checker"] = {"identity": checker.identity, "version": checker.version}
    stats["scored"] = {"rows": table.num_rows, "distinct_texts": len(set(texts.values()))}
    io.write_json(summary, stats)
    log.info("%s: %d rows (%s)", output, table.num_rows, stats["sampled"])
    return table
