"""Models compared on the same mutants: is the new model less biased, hidden bias included?

Every model of a test run is predicted on one set of mutants with one validity, so a document
contributes to each model's rates through the same mutants. The differences of the pooled
atomic, intersectional and hidden rates are tested with the paired bootstrap over original
documents of :func:`hinter.statistics.compare_rates` (a drawn document brings its mutants to
both sides), so "significant" means the interval of the difference excludes 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from hinter import statistics

# The gate's pooled rates: (name, outcome rows that pool into it, statistics' rate column).
LEVELS = (
    ("atomic", "order == 1", "error_rate"),
    ("intersectional", "order >= 2", "error_rate"),
    ("hidden", "order >= 2", "hidden_rate"),
)
COLUMNS = (
    "rate", "model", "baseline", "percent", "baseline_percent", "difference", "lo", "hi",
    "p_value", "significant", "documents",
)  # fmt: skip


def compare_models(
    outcomes: Mapping[str, pd.DataFrame],
    baseline: str,
    *,
    resamples: int = 2000,
    seed: int = 42,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Each model's pooled rates against ``baseline``'s, in percent (:data:`COLUMNS`).

    ``outcomes`` maps a model's name to its outcome rows (every suite, ``order`` and
    ``doc_id`` columns); ``difference = model - baseline`` with its percentile interval.
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
                a, b, resamples=resamples, seed=seed, confidence=confidence
            )
            r = found[found["rate"] == column].iloc[0]
            percents = [100 * r[c] for c in ("rate_a", "rate_b", "difference", "low", "high")]
            test = (float(r["p_value"]), bool(r["significant"]), int(r["shared"]))
            rows.append((level, name, baseline, *percents, *test))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _document_counts(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {
        level: statistics.document_counts(frame.query(where).reset_index(drop=True))
        for level, where, _ in LEVELS
    }


def significant_lines(frame: pd.DataFrame) -> Sequence[str]:
    """One sentence per compared rate, for the terminal and the report."""
    lines = []
    for r in frame.itertuples(index=False):
        verdict = "significantly " + ("higher" if r.difference > 0 else "lower")
        if not r.significant:
            verdict = "not significantly different"
        lines.append(
            f"{r.rate}: {r.model} {r.percent:.2f}% vs {r.baseline} {r.baseline_percent:.2f}% "
            f"(difference {r.difference:+.2f} points, 95% CI [{r.lo:+.2f}, {r.hi:+.2f}]): "
            f"{verdict}"
        )
    return lines
