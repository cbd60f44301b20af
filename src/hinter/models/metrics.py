"""Micro- and macro-F1 exactly as LexGLUE scores its tasks (scikit-learn, ``zero_division=0``).

- multi-class (SCOTUS, LEDGAR, IMDB): ``f1_score`` on the label indices; macro-F1 averages over
  the labels that occur in the gold or predicted labels (scikit-learn's default, as LexGLUE);
- multi-label (EURLEX): ``f1_score`` on multi-hot matrices over all labels;
- multi-label with an empty-set meaning (ECtHR: no violation): one extra column that is 1 when a
  row's set is empty, for gold and predictions alike, so that correctly predicting "no violation"
  counts and macro-F1 averages over 10 + 1 labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.metrics import f1_score

from hinter.layout import MULTI_CLASS
from hinter.models.decisions import check_task_type, indicator


def with_empty_column(matrix: np.ndarray) -> np.ndarray:
    """Append LexGLUE's extra column: 1 where a row has no label."""
    empty = (matrix.sum(axis=1) == 0).astype(matrix.dtype)[:, None]
    return np.concatenate([matrix, empty], axis=1)


def f1_scores(
    gold: Sequence[Sequence[int]],
    predicted: Sequence[Sequence[int]],
    n_labels: int,
    task_type: str,
    empty_label: bool = False,
) -> dict[str, float] | None:
    """``{"micro_f1", "macro_f1"}`` in 0..1, or None for an empty split."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold rows but {len(predicted)} predictions")
    if not gold:
        return None
    if check_task_type(task_type) == MULTI_CLASS:
        for i, labels in enumerate(gold):
            if len(labels) != 1:
                raise ValueError(f"gold row {i}: a multi-class row needs exactly one label")
        y_true = np.array([labels[0] for labels in gold])
        y_pred = np.array([labels[0] for labels in predicted])
    else:
        y_true = indicator(gold, n_labels)
        y_pred = indicator(predicted, n_labels)
        if empty_label:
            y_true, y_pred = with_empty_column(y_true), with_empty_column(y_pred)
    return {
        "micro_f1": float(f1_score(y_true, y_pred, average="micro", zero_division=0)),
        "macro_f1": float(f1_score(y_true, y_pred, average="macro", zero_division=0)),
    }
