"""Pooled grammar scores of groups of scored texts, with bootstrap intervals (RQ2, RQ3.3).

The pooled score of a group, ``100 * max(0, 1 - sum(issues) / sum(words))``, is the
word-weighted mean of its texts' scores (the paper's "weighted mean"); its interval comes from
:func:`hinter.statistics.bootstrap`, resampling original documents (an original and its
mutants are scored together, so they are not independent).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from hinter import statistics


def pooled_frame(totals: pd.DataFrame) -> pd.DataFrame:
    """The pooled ``score`` of each row of ``issues`` / ``words`` totals (NaN without words)."""
    words = totals["words"].astype(np.float64)
    ratio = (totals["issues"].astype(np.float64) / words).where(words > 0)
    return pd.DataFrame({"score": 100.0 * (1.0 - ratio).clip(lower=0.0)})


def pooled_scores(
    scores: pd.DataFrame,
    by: Sequence[str] = ("kind",),
    cluster: Sequence[str] = ("doc_id",),
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per group of ``by`` (columns of :data:`~hinter.grammar.stage.SCORES` rows, e.g.
    ``kind``, ``order``, ``valid``, ``biased``): ``texts``, ``words``, ``issues``, the pooled
    ``score``, the unweighted ``mean_score`` and the interval ``low``/``high`` of the pooled
    score."""
    by = list(by)
    frame = scores.assign(texts=1)
    grouped = frame.groupby(by, sort=True, dropna=False) if by else None
    sums = (
        grouped[["texts", "words", "issues"]].sum().reset_index()
        if by
        else pd.DataFrame([frame[["texts", "words", "issues"]].sum()])
    )
    means = grouped["score"].mean().reset_index() if by else None
    intervals = statistics.bootstrap(
        frame, ("issues", "words"), pooled_frame, by, cluster, resamples, seed, confidence
    )
    out = sums.copy()
    out["score"] = pooled_frame(sums)["score"].to_numpy()
    out["mean_score"] = means["score"].to_numpy() if by else float(frame["score"].mean())
    out["low"] = intervals["low"].to_numpy()
    out["high"] = intervals["high"].to_numpy()
    return out
