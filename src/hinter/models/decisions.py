"""From logits to what the oracle compares: label sets, per-label probabilities, confidence.

Decisions are taken on the logits, never on rounded probabilities, so a logit of 1e-9 is a
positive label even though its float32 sigmoid rounds to exactly 0.5 (LexGLUE: multi-label =
logit > 0, i.e. sigmoid > 0.5; multi-class = argmax, ties to the lowest label index).

Confidence, in 0..1 for both task types so that ``oracle.confidence_threshold`` means the same
thing everywhere:

- multi-class: the largest softmax probability (at least 1/K for K labels);
- multi-label: ``min over labels of 2·|p − 0.5|`` with ``p`` the label's sigmoid probability —
  0 when some label sits on the decision threshold, 1 when every label is certain. The label set
  is only as certain as its least certain label, hence the minimum.

Logits must be finite: ``argmax`` of a NaN row is label 0 and its confidence NaN, so a model
with broken weights would predict one label for every text with status ``ok``, pass a bias
gate and look "unbiased" next to a working model. A NaN or infinite logit is a
:class:`~hinter.errors.DataError` instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hinter.errors import DataError
from hinter.layout import MULTI_LABEL, TASK_TYPES


def check_task_type(task_type: str) -> str:
    if task_type not in TASK_TYPES:
        raise ValueError(f"task type {task_type!r} is not one of {TASK_TYPES}")
    return task_type


def _as_matrix(logits) -> np.ndarray:
    array = np.asarray(logits, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"logits must be a (texts, labels) matrix, got shape {array.shape}")
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        bad = int((~finite).sum())
        raise DataError(
            f"the model's logits are not finite (NaN or infinite) for {bad:,} of "
            f"{len(array):,} texts: its weights are broken, so its predictions mean nothing"
        )
    return array


def probabilities(logits, task_type: str) -> np.ndarray:
    """Per-label probabilities (sigmoid for multi-label, softmax for multi-class), float32."""
    z = _as_matrix(logits)
    if check_task_type(task_type) == MULTI_LABEL:
        p = 0.5 * (1.0 + np.tanh(0.5 * z))  # numerically stable sigmoid
    else:
        e = np.exp(z - z.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
    return p.astype(np.float32)


def decide(logits, task_type: str) -> list[list[int]]:
    """Predicted label set of every row: labels with logit > 0, or the single argmax."""
    z = _as_matrix(logits)
    if check_task_type(task_type) == MULTI_LABEL:
        return [np.flatnonzero(row > 0).tolist() for row in z]
    if z.shape[1] == 0:
        raise ValueError("a multi-class decision needs at least one label")
    return [[int(i)] for i in z.argmax(axis=1)]


def confidence(logits, task_type: str) -> np.ndarray:
    """Confidence in 0..1 of every row's decision (see the module docstring), float32."""
    z = _as_matrix(logits)
    if check_task_type(task_type) == MULTI_LABEL:
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        if z.shape[1] == 0:
            return np.ones(z.shape[0], dtype=np.float32)
        return (2.0 * np.abs(p - 0.5)).min(axis=1).astype(np.float32)
    return probabilities(z, task_type).max(axis=1).astype(np.float32)


def indicator(label_sets: Sequence[Sequence[int]], n_labels: int) -> np.ndarray:
    """Multi-hot matrix (rows, n_labels) of label sets; a label outside the range is an error."""
    out = np.zeros((len(label_sets), n_labels), dtype=np.int32)
    for i, labels in enumerate(label_sets):
        for label in labels:
            if not 0 <= label < n_labels:
                raise ValueError(f"row {i}: label {label} outside 0..{n_labels - 1}")
            out[i, label] = 1
    return out
