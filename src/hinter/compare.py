"""Models compared on the same mutants: is the new model less biased, hidden bias included?

Every model of a test run is predicted on one set of mutants with one validity, so a document
contributes to each model's rates through the same mutants. The differences of the pooled
atomic, intersectional and hidden rates are tested with the paired bootstrap over original
documents of :func:`hinter.statistics.compare_rates` (a drawn document brings its mutants to
both sides), so "significant" means the interval of the difference excludes 0.

A difference is never significant when it rests on fewer than :data:`MIN_DOCUMENTS`
documents ("too few documents": one document makes any bootstrap interval a point) or when
either model's predictions say nothing (a constant model cannot flip, so its 0% would "win").
No correction for multiple comparisons is made: three rates per model are tested, each at 95%.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import pandas as pd

from hinter import statistics
from hinter.statistics import MIN_DOCUMENTS  # fewer: "too few documents", never significant

# The gate's pooled rates: (name, outcome rows that pool into it, statistics' rate column).
LEVELS = (
    ("atomic", "order == 1", "error_rate"),
    ("intersectional", "order >= 2", "error_rate"),
    ("hidden", "order >= 2", "hidden_rate"),
)
_COUNTS = {"error_rate": ("errors", "decided"), "hidden_rate": ("hidden", "hidden_base")}
COLUMNS = (
    "rate", "model", "baseline", "percent", "baseline_percent", "difference", "lo", "hi",
    "p_value", "significant", "documents", "numerator", "denominator", "baseline_numerator",
    "baseline_denominator", "note",
)  # fmt: skip
NO_CORRECTION = "no correction for multiple comparisons"


def compare_models(
    outcomes: Mapping[str, pd.DataFrame],
    baseline: str,
    *,
    resamples: int = 2000,
    seed: int = 42,
    confidence: float = 0.95,
    min_documents: int = MIN_DOCUMENTS,
    constant: Collection[str] = (),
) -> pd.DataFrame:
    """Each model's pooled rates against ``baseline``'s, in percent (:data:`COLUMNS`).

    ``outcomes`` maps a model's name to its outcome rows (every suite, ``order`` and
    ``doc_id`` columns); ``difference = model - baseline`` with its percentile interval.
    ``constant``: models whose predictions say nothing (never significant, ``note`` says so).
    """
    if baseline not in outcomes:
        raise KeyError(f"baseline {baseline!r} is not one of the models {sorted(outcomes)}")
    counts = {name: _document_counts(frame) for name, frame in outcomes.items()}
    rows = []
    for name in outcomes:
        if name == baseline:
            continue
        for level, _, column in LEVELS:
            a, b = counts[name][level], counts[baseline][level]
            found = statistics.compare_rates(
                a, b, resamples=resamples, seed=seed, confidence=confidence,
                min_documents=min_documents,
            )  # fmt: skip
            r = found[found["rate"] == column].iloc[0]
            percents = [100 * r[c] for c in ("rate_a", "rate_b", "difference", "low", "high")]
            documents = int(r["shared"] + r["only_a"] + r["only_b"])
            num, den = _COUNTS[column]
            sums = [int(a[num].sum()), int(a[den].sum()), int(b[num].sum()), int(b[den].sum())]
            note = _note(documents, min_documents, [m for m in (name, baseline) if m in constant])
            significant = bool(r["significant"]) and not note
            test = (float(r["p_value"]), significant, documents)
            rows.append((level, name, baseline, *percents, *test, *sums, note))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _note(documents: int, min_documents: int, constant: Sequence[str]) -> str:
    notes = []
    if documents < min_documents:
        notes.append(f"too few documents ({documents} < {min_documents})")
    notes += [f"{m} is a constant model" for m in constant]
    return "; ".join(notes)


def _document_counts(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {
        level: statistics.document_counts(frame.query(where).reset_index(drop=True))
        for level, where, _ in LEVELS
    }


def _signed(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:+.2f}"


def _plain(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.2f}%"


def significant_lines(frame: pd.DataFrame) -> Sequence[str]:
    """One sentence per compared rate, for the terminal and the report: both rates with their
    counts, the difference and its interval, and the verdict ("too few documents" or "not
    tested" where there is none)."""
    lines = []
    for r in frame.itertuples(index=False):
        if math.isnan(r.difference):
            verdict = "not tested (a rate is undefined: nothing counted)"
        elif r.note:
            verdict = f"not tested: {r.note}"
        elif r.significant:
            verdict = "significantly " + ("higher" if r.difference > 0 else "lower")
        else:
            verdict = "not significantly different"
        lines.append(
            f"{r.rate}: {r.model} {_plain(r.percent)} ({r.numerator:,} of {r.denominator:,}) vs "
            f"{r.baseline} {_plain(r.baseline_percent)} ({r.baseline_numerator:,} of "
            f"{r.baseline_denominator:,}) (difference {_signed(r.difference)} points, 95% CI "
            f"[{_signed(r.lo)}, {_signed(r.hi)}], {r.documents:,} documents): {verdict}"
        )
    return lines
