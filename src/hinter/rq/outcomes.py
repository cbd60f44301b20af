"""Reading a run's outcomes for the RQ tables: which files, and their counts before pooling.

Outcome files are read one (model, dataset) at a time, and only the columns the counts need,
so memory follows one model and dataset whatever the size of the run. Every number is a count
from :mod:`hinter.rates`; the RQ modules pool and divide.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import io, rates, statistics, tables
from hinter.layout import DEFAULT_VARIANT, RunLayout
from hinter.models.performance import majority
from hinter.oracle import suite_attributes

log = logging.getLogger(__name__)

# Columns of the outcome rows the counts need (labels are left on disk).
RATE_COLUMNS = [
    "doc_id",
    "suite",
    "order",
    "valid",
    "biased",
    "skipped_identical",
    "parents_valid",
    "parent_biased",
    "correct_original",
    "correct_mutant",
]
# Each original's predicted labels: collect names a model that gave them all one set (G12).
ORIGINAL_LABELS = "labels_original"
# What RQ6.3 also needs to re-decide every flip under a confidence threshold.
THRESHOLD_COLUMNS = ["flipped", "confidence_original", "confidence", "parent_flipped",
                     "parent_confidence"]  # fmt: skip


@dataclass(frozen=True)
class OutcomeFile:
    """One outcomes file and the (model, dataset, suite, variant) it belongs to."""

    model: str
    dataset: str
    suite: str
    path: Path
    variant: str = DEFAULT_VARIANT

    @property
    def order(self) -> int:
        return len(suite_attributes(self.suite))


def outcome_files(
    layout: RunLayout, keys: Iterable[Sequence[str]], variant: str = DEFAULT_VARIANT
) -> list[OutcomeFile]:
    """The outcomes files of a run for (model, dataset, suite) keys, in the keys' order."""
    return [
        OutcomeFile(m, d, s, Path(layout.outcomes(m, d, s, variant)), variant) for m, d, s in keys
    ]


def read_outcomes(f: OutcomeFile, columns: Sequence[str] = tuple(RATE_COLUMNS)) -> pd.DataFrame:
    """The rows of one file (``columns`` only) with its model, dataset, suite and order."""
    frame = io.read_parquet(f.path, tables.OUTCOMES, columns=list(columns)).to_pandas()
    frame.insert(0, "dataset", f.dataset)
    frame.insert(0, "model", f.model)
    frame["suite"] = f.suite
    frame["order"] = f.order
    return frame


def by_model_and_dataset(files: Sequence[OutcomeFile]) -> list[list[OutcomeFile]]:
    """The files grouped by (model, dataset), groups and files in their first-seen order."""
    groups: dict[tuple[str, str], list[OutcomeFile]] = {}
    for f in files:
        groups.setdefault((f.model, f.dataset), []).append(f)
    return list(groups.values())


def kind(order: int, intersectional_order: int) -> str:
    """``atomic``, ``intersectional`` (the RQ's order) or ``intersectional (N=k)``."""
    if order == 1:
        return "atomic"
    return "intersectional" if order == intersectional_order else f"intersectional (N={order})"


@dataclass
class Collected:
    """Every count RQ1 (and the RQs built on it) needs, per (model, dataset, suite)."""

    counts: pd.DataFrame  # rates.counts per (model, dataset, suite, order)
    originals: pd.DataFrame  # originals / bias_inducing per (model, dataset, kind)
    truth: pd.DataFrame  # rates.truth_table per (model, dataset, suite)
    correctness: pd.DataFrame  # rates.correctness per (model, dataset, population)
    models: list[str]
    datasets: list[str]
    # statistics.document_counts per (model, dataset, order, doc_id): what intervals resample
    documents: pd.DataFrame = field(default_factory=lambda: _empty_documents())
    # the (model, dataset) runs that predicted one label set for every tested original (G12)
    constant: list[tuple[str, str]] = field(default_factory=list)


def collect(
    files: Sequence[OutcomeFile], intersectional_order: int = 2, threshold: float | None = None
) -> Collected:
    """Read the outcome files one by one and keep only their counts.

    Files are taken (model, dataset) by (model, dataset), so the per-original flags that
    distinct originals need (an original counts once over a kind's suites) only ever cover
    one model and dataset. ``threshold`` re-decides flips (None: the oracle's verdicts).
    """
    # the originals' labels too (popped at once): a constant model is named in the captions
    columns = (
        RATE_COLUMNS + [ORIGINAL_LABELS] + (THRESHOLD_COLUMNS if threshold is not None else [])
    )
    counts, originals, truth, correct, documents = [], [], [], [], []
    constant = []
    models = list(dict.fromkeys(f.model for f in files))
    datasets = list(dict.fromkeys(f.dataset for f in files))
    for group in by_model_and_dataset(files):
        flags = []
        predicted: dict[str, tuple[int, ...]] = {}  # each tested original's label set, once
        for f in group:
            frame = read_outcomes(f, columns)
            _original_labels(frame.pop(ORIGINAL_LABELS), frame["doc_id"], predicted)
            decided = rates.verdicts(frame, threshold)  # once per file, for every count below
            key = ["model", "dataset", "suite", "order"]
            c = (
                rates.counts(frame, by=key, threshold=threshold, given=decided)
                if len(frame)
                else _empty(f)
            )
            counts.append(c)
            if len(frame):
                documents.append(
                    statistics.document_counts(
                        frame, ["model", "dataset", "order"], threshold, given=decided
                    )
                )
            flags.append(
                rates.document_flags(
                    frame, by=["model", "dataset"], threshold=threshold, given=decided
                ).assign(kind=kind(f.order, intersectional_order))
            )
            if f.order >= 2 and len(frame):
                truth.append(
                    rates.truth_table(
                        frame, by=["model", "dataset", "suite"], threshold=threshold, given=decided
                    )
                )
            if f.order == intersectional_order:
                for population in ("errors", "hidden"):
                    c = rates.correctness(
                        frame,
                        by=["model", "dataset"],
                        threshold=threshold,
                        population=population,
                        given=decided,
                    )
                    correct.append(c.assign(population=population))
            log.info("%s: %d outcome rows", f.path, len(frame))
        if majority(predicted.values()).constant:
            constant.append((group[0].model, group[0].dataset))
        combined = rates.combine_flags(flags, by=["model", "dataset", "kind"])
        originals.append(rates.distinct_originals(combined, ["model", "dataset", "kind"]))
    return Collected(
        counts=pd.concat(counts, ignore_index=True) if counts else _empty(None),
        originals=concat(
            originals, ["model", "dataset", "kind", "originals", "bias_inducing", "share"]
        ),
        truth=concat(truth, ["model", "dataset", "suite", "order", "pattern", "count"]),
        correctness=concat(
            correct, ["model", "dataset", "input", "outcome", "count", "population"]
        ),
        models=models,
        datasets=datasets,
        documents=_documents(documents),
        constant=constant,
    )


def _original_labels(labels: pd.Series, docs: pd.Series, into: dict[str, tuple[int, ...]]) -> None:
    """Add each original's predicted label set (its first row's; an original without one, a
    model error, is left out) to ``into``, by document."""
    first = ~docs.duplicated()
    for doc, found in zip(docs[first], labels[first], strict=True):
        if doc not in into and found is not None:
            into[doc] = tuple(sorted({int(x) for x in found}))


DOCUMENT_KEYS = ["model", "dataset", "order", "doc_id"]


def _empty_documents() -> pd.DataFrame:
    return pd.DataFrame(columns=[*DOCUMENT_KEYS, *statistics.COLUMNS])


def _documents(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Per-document counts of several suites of the same order added up; the flags (an
    original with >= 1 valid / bias-inducing mutant in any suite) combined with "or"."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return _empty_documents()
    summed = pd.concat(frames, ignore_index=True).groupby(DOCUMENT_KEYS, sort=True).sum()
    flags = list(statistics.FLAG_COLUMNS)
    summed[flags] = summed[flags].clip(upper=1)
    return summed.reset_index()


def concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    """The non-empty frames one after the other; an empty frame of ``columns`` if none."""
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def _empty(f: OutcomeFile | None) -> pd.DataFrame:
    """The counts of a file without rows (all 0), or an empty counts table."""
    row: dict[str, Any] = dict.fromkeys(rates.COUNT_COLUMNS, 0)
    if f is None:
        return pd.DataFrame(columns=["model", "dataset", "suite", "order", *rates.COUNT_COLUMNS])
    return pd.DataFrame(
        [{"model": f.model, "dataset": f.dataset, "suite": f.suite, "order": f.order, **row}]
    )
