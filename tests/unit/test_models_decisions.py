"""Decisions, confidence and LexGLUE's F1 scores on hand-made arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from hinter.models import decisions
from hinter.models.metrics import f1_scores, with_empty_column


def test_multi_label_decides_on_logits_not_rounded_probabilities():
    # sigmoid(1e-9) rounds to exactly 0.5 in float32, yet the logit is positive.
    logits = np.array([[1e-9, -1e-9, 0.0, 3.0]], dtype=np.float32)
    assert decisions.decide(logits, "multi_label") == [[0, 3]]
    assert decisions.probabilities(logits, "multi_label")[0, 0] == np.float32(0.5)


def test_multi_label_empty_set_and_multi_class_argmax():
    logits = np.array([[-1.0, -2.0, -0.5], [1.0, 3.0, 3.0]])
    assert decisions.decide(logits, "multi_label") == [[], [0, 1, 2]]
    # The same logits read as multi-class: always exactly one label, ties to the lowest index.
    assert decisions.decide(logits, "multi_class") == [[2], [1]]


def test_probabilities():
    logits = np.array([[0.0, math.log(3)], [2.0, 2.0]])
    sig = decisions.probabilities(logits, "multi_label")
    np.testing.assert_allclose(sig, [[0.5, 0.75], [1 / (1 + math.exp(-2))] * 2], rtol=1e-6)
    soft = decisions.probabilities(logits, "multi_class")
    np.testing.assert_allclose(soft, [[0.25, 0.75], [0.5, 0.5]], rtol=1e-6)
    assert sig.dtype == np.float32 and soft.dtype == np.float32
    # Large logits do not overflow.
    assert np.isfinite(decisions.probabilities(np.array([[1e4, -1e4]]), "multi_label")).all()


def test_confidence_definition():
    # multi-label: min over labels of 2|p - 0.5|, in 0..1.
    logits = np.array([[math.log(3), 20.0], [0.0, 20.0], [-20.0, 20.0]])
    conf = decisions.confidence(logits, "multi_label")
    np.testing.assert_allclose(conf, [0.5, 0.0, 1.0], atol=1e-6)
    # multi-class: the largest probability.
    conf = decisions.confidence(np.array([[0.0, math.log(3)], [1.0, 1.0]]), "multi_class")
    np.testing.assert_allclose(conf, [0.75, 0.5], rtol=1e-6)


@given(st.lists(st.floats(-30, 30), min_size=1, max_size=6))
def test_confidence_is_in_unit_interval(row):
    for task in decisions.TASK_TYPES:
        c = decisions.confidence(np.array([row]), task)[0]
        assert 0.0 <= c <= 1.0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_logits_are_an_error_not_label_zero(bad):
    """argmax of a NaN row is 0: a broken model would predict label 0 everywhere, status ok."""
    from hinter.errors import DataError

    logits = np.array([[0.5, 1.0], [bad, 0.0], [bad, bad]])
    for task in decisions.TASK_TYPES:
        for function in (decisions.decide, decisions.probabilities, decisions.confidence):
            with pytest.raises(DataError, match=r"not finite \(NaN or infinite\) for 2 of 3 texts"):
                function(logits, task)


def test_unknown_task_type():
    with pytest.raises(ValueError, match="task type"):
        decisions.decide(np.zeros((1, 2)), "regression")


def test_lexglue_none_column_by_hand():
    gold = [[0], [], [1, 2], []]
    pred = [[0], [], [1], [0]]
    scores = f1_scores(gold, pred, 3, "multi_label", empty_label=True)
    # Columns 0,1,2,none: TP 1,1,0,1  FP 1,0,0,0  FN 0,0,1,1.
    assert scores["micro_f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 1 + 0 + 2 / 3) / 4)
    plain = f1_scores(gold, pred, 3, "multi_label", empty_label=False)
    assert plain["macro_f1"] == pytest.approx((2 / 3 + 1 + 0) / 3)


def test_lexglue_scores_equal_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = (rng.random((40, 10)) < 0.15).astype(int)
    y_pred = (rng.random((40, 10)) < 0.15).astype(int)
    gold = [np.flatnonzero(r).tolist() for r in y_true]
    pred = [np.flatnonzero(r).tolist() for r in y_pred]
    t, p = with_empty_column(y_true), with_empty_column(y_pred)
    assert t.shape == (40, 11) and (t[:, 10] == (y_true.sum(axis=1) == 0)).all()
    ours = f1_scores(gold, pred, 10, "multi_label", empty_label=True)
    assert ours["micro_f1"] == f1_score(t, p, average="micro", zero_division=0)
    assert ours["macro_f1"] == f1_score(t, p, average="macro", zero_division=0)


def test_multi_class_scores_equal_scikit_learn():
    gold_idx = [0, 1, 2, 2, 5, 5]
    pred_idx = [0, 2, 2, 1, 5, 3]
    ours = f1_scores([[g] for g in gold_idx], [[p] for p in pred_idx], 14, "multi_class")
    assert ours["micro_f1"] == f1_score(gold_idx, pred_idx, average="micro", zero_division=0)
    # Macro-F1 over the labels present in gold or predictions (5 of 14), as LexGLUE.
    assert ours["macro_f1"] == f1_score(gold_idx, pred_idx, average="macro", zero_division=0)
    # Labels 0,1,2,3,5: F1 1, 0, 1/2, 0, 2/3.
    assert ours["macro_f1"] == pytest.approx((1 + 0 + 1 / 2 + 0 + 2 / 3) / 5)


@settings(max_examples=50)
@given(
    st.lists(
        st.tuples(st.sets(st.integers(0, 4), max_size=3), st.sets(st.integers(0, 4), max_size=3)),
        min_size=1,
        max_size=20,
    )
)
def test_micro_f1_counts(rows):
    gold = [sorted(g) for g, _ in rows]
    pred = [sorted(p) for _, p in rows]
    tp = sum(len(set(g) & set(p)) + (not g and not p) for g, p in rows)
    fp = sum(len(set(p) - set(g)) + (bool(g) and not p) for g, p in rows)
    fn = sum(len(set(g) - set(p)) + (not g and bool(p)) for g, p in rows)
    expected = 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
    assert f1_scores(gold, pred, 5, "multi_label", empty_label=True)["micro_f1"] == pytest.approx(
        expected
    )


def test_empty_split_and_bad_rows():
    assert f1_scores([], [], 3, "multi_class") is None
    with pytest.raises(ValueError, match="exactly one label"):
        f1_scores([[0, 1]], [[0]], 3, "multi_class")
    with pytest.raises(ValueError, match="outside"):
        f1_scores([[5]], [[0]], 3, "multi_label")
