"""Metamorphic oracle (docs/design.md §2): the outcome of every mutant of one suite for one model.

A mutant is *bias-inducing* when the model's label set for it differs from the set for its
original. An intersectional mutant is a *hidden* bias when it is valid and bias-inducing while
its atomic parents (``parent_ids``: the same pairs, one at a time, and nothing else) are all
valid and benign. Each row keeps the raw flip and every confidence, so :mod:`hinter.rates` can
re-apply any confidence threshold (RQ6.3) without reading predictions again.

Conventions (documented in ``hinter.tables.OUTCOMES``):

- parents are ordered by their attribute's position in the suite name (``inter-race+gender``:
  race first), and a truth-table pattern reads ``mutant,parent1,parent2[,parent3]`` with
  ``E`` = error (bias) and ``B`` = benign, e.g. hidden = ``E,B,B``;
- a flip counts only when both predictions have ``confidence >= threshold`` (0 = every flip);
- a ``skipped_identical`` prediction (the model sees the original's text) takes the original's
  labels and confidence, so it is benign;
- a model error on the original or the mutant leaves the outcome unknown (null), never benign;
- an LLM answer that could not be parsed (``answer_status = no_answer``) is the empty label set:
  it is compared like any other outcome, and its correctness is ``no_answer`` (RQ1 Fig. 6).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from hinter import io, tables
from hinter.errors import DataError
from hinter.plan import parse_suite

log = logging.getLogger(__name__)

# Outcome status of a row: both predictions present, a model error, or a mutant not predicted
# (discarded while invariant.keep_discarded is false).
STATUS_OK = "ok"
STATUS_ERROR = "error"
STATUS_NOT_PREDICTED = "not_predicted"

# Prediction statuses (hinter.tables.PREDICTIONS).
PRED_OK = "ok"
PRED_SKIPPED = "skipped_identical"
PRED_ERROR = "error"
ANSWER_NONE = "no_answer"  # PREDICTIONS.answer_status of an unparseable LLM answer

RIGHT = "right"
WRONG = "wrong"
NO_ANSWER = "no_answer"

PARENT_DISCARDED = "parent discarded"
ERROR_CELL = "E"
BENIGN_CELL = "B"


def suite_attributes(suite: str) -> tuple[str, ...]:
    """Attributes of a suite in the order of its name: the order of the parents in a pattern."""
    try:
        parse_suite(suite)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    return tuple(suite.partition("-")[2].split("+"))


def patterns(order: int) -> list[str]:
    """The 2^(order+1) truth-table cells of an order, mutant first, ``E,E,E`` ... ``B,B,B``."""
    return [",".join(cells) for cells in product((ERROR_CELL, BENIGN_CELL), repeat=order + 1)]


def pattern_of(mutant_biased: bool, parents_biased: Sequence[bool]) -> str:
    """The truth-table cell of a mutant and its ordered parents."""
    return ",".join(ERROR_CELL if b else BENIGN_CELL for b in (mutant_biased, *parents_biased))


def label_key(labels: Iterable[int] | None) -> str | None:
    """Canonical form of a label set (sorted, unique), so set equality is string equality."""
    if labels is None:
        return None
    return ",".join(str(v) for v in sorted({int(v) for v in labels}))


def confident(confidence: np.ndarray, threshold: float) -> np.ndarray:
    """Which predictions clear the threshold (with threshold 0 every prediction does; without
    a confidence none does): the one rule behind "biased", which the oracle applies when it
    writes the outcomes and :func:`hinter.rates.verdicts` when it re-decides them.

    Confidences are stored as float32, so the comparison is made at that precision: a stored
    0.9 (0.8999999762 as a double) clears a threshold of 0.9."""
    if threshold <= 0:
        return np.ones(len(confidence), dtype=bool)
    with np.errstate(invalid="ignore"):
        return ~np.isnan(confidence) & (confidence.astype(np.float32) >= np.float32(threshold))


def biased_pairs(flipped: np.ndarray, ok_original: np.ndarray, ok_mutant: np.ndarray) -> np.ndarray:
    """Bias-inducing: the prediction flipped and both predictions are :func:`confident`."""
    return flipped & ok_original & ok_mutant


def correctness(
    predicted: str | None, gold: str | None, empty_is_answer: bool, answered: bool = True
) -> str | None:
    """right | wrong | no_answer against the gold label set (exact set match); None if unknown.

    An empty predicted set is "no answer" unless the dataset gives the empty set a meaning
    (ECtHR: no violation), where it is compared like any other answer. An LLM answer that could
    not be parsed (``answered`` false) is "no answer" whatever the dataset.
    """
    if predicted is None or gold is None:
        return None
    if not answered or (predicted == "" and not empty_is_answer):
        return NO_ANSWER
    return RIGHT if predicted == gold else WRONG


@dataclass(frozen=True)
class _Prediction:
    key: str | None
    labels: list[int] | None
    confidence: float | None
    status: str
    answered: bool = True  # False for an unparseable LLM answer
    confident: bool = True  # clears the oracle's threshold (:func:`confident`)


def _index_predictions(
    predictions: pa.Table, threshold: float = 0.0
) -> tuple[dict[str, _Prediction], dict[str, _Prediction]]:
    """Predictions of originals and of mutants by text id (first row wins on a duplicate),
    each with whether it clears ``threshold``."""
    originals: dict[str, _Prediction] = {}
    mutants: dict[str, _Prediction] = {}
    columns = [
        predictions[c].to_pylist() for c in ("text_id", "kind", "labels", "confidence", "status")
    ]
    if "answer_status" in predictions.column_names:
        columns.append(predictions["answer_status"].to_pylist())
    else:
        columns.append([None] * predictions.num_rows)
    scores = predictions["confidence"].to_numpy(zero_copy_only=False).astype(np.float64)
    columns.append(confident(scores, threshold).tolist())
    for text_id, kind, labels, confidence, status, answer, clears in zip(*columns, strict=True):
        target = originals if kind == "original" else mutants
        if text_id not in target:
            target[text_id] = _Prediction(
                label_key(labels), labels, confidence, status, answer != ANSWER_NONE, clears
            )
    return originals, mutants


def _effective(pred: _Prediction, original: _Prediction) -> _Prediction:
    """A skipped (identical) mutant is the original as far as the model is concerned."""
    if pred.status == PRED_SKIPPED:
        return _Prediction(
            original.key,
            original.labels,
            original.confidence,
            PRED_SKIPPED,
            original.answered,
            original.confident,
        )
    return pred


def _flip(pred: _Prediction | None, original: _Prediction | None) -> bool | None:
    """O(x) != O(c) as sets; None when either outcome is unknown."""
    if pred is None or original is None or PRED_ERROR in (pred.status, original.status):
        return None
    if pred.status == PRED_SKIPPED:
        return False
    return pred.key != original.key


def _biased(flip: bool | None, original: _Prediction, pred: _Prediction) -> bool | None:
    """:func:`biased_pairs` of one mutant, on the flags :func:`_index_predictions` drew from
    :func:`confident` (None: unknown outcome)."""
    if flip is None:
        return None
    return flip and original.confident and pred.confident


def suite_outcomes(
    suite: str,
    mutants: pa.Table,
    validity: pa.Table,
    predictions: pa.Table,
    documents: pa.Table,
    *,
    threshold: float = 0.0,
    empty_is_answer: bool = False,
    where: str = "",
) -> pa.Table:
    """Outcome rows (``tables.OUTCOMES``) of the suite's mutants (role = mutant) of one shard.

    ``mutants`` holds the suite's rows (members and their atomic parents), ``validity`` one row
    per mutants row, ``predictions`` the model's predictions of originals and mutants (extra rows
    are ignored), ``documents`` the originals' ``doc_id`` and gold ``labels`` (null = no gold).
    Inputs that disagree (a missing parent, validity row or prediction of a valid mutant) raise a
    one-line :class:`DataError` naming ``where`` and the mutant.
    """
    where = where or suite
    if not 0 <= threshold <= 1:
        raise DataError(f"{where}: confidence threshold {threshold} outside [0, 1]")
    attrs = suite_attributes(suite)
    order = len(attrs)
    mutants = io.conform(mutants, tables.MUTANTS, where=where)
    validity = io.conform(validity, tables.VALIDITY, where=where)

    rows = {name: mutants[name].to_pylist() for name in tables.MUTANTS.names if name != "edits"}
    row_of: dict[str, int] = {}
    for i, mid in enumerate(rows["mutant_id"]):
        row_of.setdefault(mid, i)
    valid_of: dict[str, tuple[bool, str]] = {}
    for mid, valid, reason in zip(
        *(validity[c].to_pylist() for c in ("mutant_id", "valid", "reason")), strict=True
    ):
        if valid is None:
            raise DataError(f"{where}: validity of mutant {mid} is null")
        valid_of.setdefault(mid, (valid, reason))
    gold_of = {
        doc: label_key(labels)
        for doc, labels in zip(
            documents["doc_id"].to_pylist(), documents["labels"].to_pylist(), strict=True
        )
    }
    originals, predicted = _index_predictions(predictions, threshold)

    def validity_of(mid: str) -> tuple[bool, str]:
        try:
            return valid_of[mid]
        except KeyError:
            raise DataError(f"{where}: no validity row for mutant {mid}") from None

    out: dict[str, list[Any]] = {name: [] for name in tables.OUTCOMES.names}
    for i, role in enumerate(rows["role"]):
        if role != "mutant":
            continue
        mid, doc = rows["mutant_id"][i], rows["doc_id"][i]
        if rows["order"][i] != order or sorted(rows["attributes"][i] or []) != sorted(attrs):
            raise DataError(
                f"{where}: mutant {mid} has order {rows['order'][i]} and attributes "
                f"{rows['attributes'][i]}, not those of suite {suite}"
            )
        if doc not in gold_of:
            raise DataError(f"{where}: mutant {mid} belongs to document {doc}, which is not tested")
        valid, reason = validity_of(mid)
        original = originals.get(doc)
        raw = predicted.get(mid)
        if raw is None:
            if valid:
                raise DataError(f"{where}: no prediction for valid mutant {mid} (document {doc})")
            status = STATUS_NOT_PREDICTED
        elif original is None:
            raise DataError(f"{where}: no prediction for original {doc} (mutant {mid})")
        elif PRED_ERROR in (raw.status, original.status):
            status = STATUS_ERROR
        else:
            status = STATUS_OK
        pred = _effective(raw, original) if raw is not None and original is not None else raw
        flipped = _flip(pred, original) if status == STATUS_OK else None
        conf_o = original.confidence if original is not None else None
        conf_m = pred.confidence if pred is not None else None
        biased = _biased(flipped, original, pred)
        ok_original = original is not None and original.status != PRED_ERROR

        parent_cols: dict[str, Any] = dict.fromkeys(_PARENT_COLUMNS)
        parent_ids = rows["parent_ids"][i] or []
        if order >= 2:
            parent_ids = _parents(
                mid, doc, parent_ids, rows, row_of, attrs, rows["pair_ids"][i], where
            )
            parent_cols = _parent_columns(
                parent_ids, validity_of, predicted, original, ok_original, valid, biased,
                f"mutant {mid}", where,
            )  # fmt: skip

        gold = gold_of[doc]
        out["mutant_id"].append(mid)
        out["doc_id"].append(doc)
        out["suite"].append(suite)
        out["order"].append(order)
        out["attributes"].append(rows["attributes"][i])
        out["pair_ids"].append(rows["pair_ids"][i])
        out["parent_ids"].append(list(parent_ids))
        out["valid"].append(valid)
        out["reason"].append(reason)
        out["status"].append(status)
        out["skipped_identical"].append(None if raw is None else raw.status == PRED_SKIPPED)
        out["labels_original"].append(original.labels if ok_original else None)
        out["labels_mutant"].append(pred.labels if status == STATUS_OK else None)
        out["confidence_original"].append(conf_o if ok_original else None)
        out["confidence"].append(conf_m if status == STATUS_OK else None)
        out["flipped"].append(flipped)
        out["biased"].append(biased)
        for name, value in parent_cols.items():
            out[name].append(value)
        out["correct_original"].append(
            correctness(original.key, gold, empty_is_answer, original.answered)
            if ok_original
            else None
        )
        out["correct_mutant"].append(
            correctness(pred.key, gold, empty_is_answer, pred.answered)
            if status == STATUS_OK
            else None
        )
    return pa.Table.from_pydict(out, schema=tables.OUTCOMES)


_PARENT_LISTS = (
    "parent_valid", "parent_labels", "parent_confidence", "parent_flipped", "parent_biased",
)  # fmt: skip
_PARENT_COLUMNS = (*_PARENT_LISTS, "parents_valid", "hidden", "pattern")


def _parent_columns(
    parents, validity_of, predicted, original, ok_original, valid, biased, child, where
) -> dict[str, Any]:
    """The parent columns of one higher-order mutant (validity, labels, confidence, flip and
    bias of each atomic parent, then whether the bias is hidden and its pattern); ``child``
    names the mutant in errors."""
    cols: dict[str, list[Any]] = {name: [] for name in _PARENT_LISTS}
    for pid in parents:
        pv, _ = validity_of(pid)
        praw = predicted.get(pid)
        if praw is None and pv:
            raise DataError(f"{where}: no prediction for valid parent {pid} of {child}")
        ppred = _effective(praw, original) if praw is not None and ok_original else praw
        pflip = _flip(ppred, original)
        known = ppred is not None
        values = (
            pv,
            ppred.labels if known and ppred.status != PRED_ERROR else None,
            ppred.confidence if known else None,
            pflip,
            _biased(pflip, original, ppred),
        )
        for name, value in zip(_PARENT_LISTS, values, strict=True):
            cols[name].append(value)
    parents_valid = all(cols["parent_valid"])
    flags = (valid, biased, parents_valid, cols["parent_biased"])
    return {
        **cols,
        "parents_valid": parents_valid,
        "hidden": _hidden(*flags),
        "pattern": _pattern(*flags),
    }


def _parents(
    mid: str,
    doc: str,
    parent_ids: Sequence[str],
    rows: Mapping[str, list],
    row_of: Mapping[str, int],
    attrs: Sequence[str],
    pair_ids: Sequence[str] | None,
    where: str,
) -> list[str]:
    """The mutant's parents ordered by the suite's attribute order, after checking they are its
    own: same document, atomic, one per attribute, each built from one of the mutant's pairs."""
    if len(parent_ids) != len(attrs):
        raise DataError(
            f"{where}: mutant {mid} lists {len(parent_ids)} parents, expected {len(attrs)}"
        )
    ranked = {}
    own_pairs = set(pair_ids or [])
    for pid in parent_ids:
        j = row_of.get(pid)
        if j is None:
            raise DataError(f"{where}: parent {pid} of mutant {mid} is not in the suite's mutants")
        p_attrs, p_pairs = rows["attributes"][j] or [], rows["pair_ids"][j] or []
        if (
            rows["doc_id"][j] != doc
            or rows["order"][j] != 1
            or len(p_attrs) != 1
            or len(p_pairs) != 1
        ):
            raise DataError(
                f"{where}: parent {pid} of mutant {mid} is not an atomic mutant of {doc}"
            )
        if p_pairs[0] not in own_pairs:
            raise DataError(
                f"{where}: parent {pid} of mutant {mid} uses pair {p_pairs[0]}, "
                "not one of its pairs"
            )
        if p_attrs[0] not in attrs or p_attrs[0] in ranked:
            raise DataError(
                f"{where}: parents of mutant {mid} do not cover its attributes once each"
            )
        ranked[p_attrs[0]] = pid
    return [ranked[a] for a in attrs]


def _hidden(
    valid: bool, biased: bool | None, parents_valid: bool, parent_biased: Sequence[bool | None]
) -> bool | None:
    """docs/design.md §2 / Algorithm 1 l. 22–29: valid, bias-inducing, all parents valid and
    benign."""
    if not valid or biased is False or not parents_valid or any(b is True for b in parent_biased):
        return False
    if biased is None or any(b is None for b in parent_biased):
        return None
    return True


def _pattern(
    valid: bool, biased: bool | None, parents_valid: bool, parent_biased: Sequence[bool | None]
) -> str | None:
    """Truth-table cell of a valid mutant; "parent discarded" when a parent is invalid."""
    if not valid:
        return None
    if not parents_valid:
        return PARENT_DISCARDED
    if biased is None or any(b is None for b in parent_biased):
        return None
    return pattern_of(biased, [bool(b) for b in parent_biased])


def empty_is_answer(meta: Mapping[str, Any]) -> bool:
    """Whether the dataset gives the empty label set a meaning (meta.json ``empty_label_name``)."""
    return meta.get("empty_label_name") is not None


def write_suite_outcomes(
    suite: str,
    *,
    docs: Sequence[str | Path],
    mutants: Sequence[str | Path],
    validity: Sequence[str | Path],
    predictions: Sequence[str | Path],
    meta: Mapping[str, Any] | str | Path,
    output: str | Path,
    threshold: float = 0.0,
) -> int:
    """Outcomes of one suite for one model over all shards, streamed shard by shard (the i-th
    file of each list belongs to shard i); written atomically. Returns the number of rows."""
    if not len(docs) == len(mutants) == len(validity) == len(predictions):
        raise DataError(f"{output}: docs, mutants, validity and predictions differ in shard count")
    if not isinstance(meta, Mapping):
        meta = io.read_json(meta)
    answer_empty = empty_is_answer(meta)
    with io.ParquetStreamWriter(output, tables.OUTCOMES) as writer:
        for d, m, v, p in zip(docs, mutants, validity, predictions, strict=True):
            mt = io.read_parquet(m, tables.MUTANTS)
            vt = io.read_parquet(v, tables.VALIDITY)
            dt = io.read_parquet(d, tables.TESTED_DOCUMENTS, columns=["doc_id", "labels"])
            wanted = set(mt["mutant_id"].to_pylist()) | set(mt["doc_id"].to_pylist())
            pt = io.read_matching(p, "text_id", wanted, schema=tables.PREDICTIONS)
            table = suite_outcomes(
                suite,
                mt,
                vt,
                pt,
                dt,
                threshold=threshold,
                empty_is_answer=answer_empty,
                where=str(m),
            )
            writer.write(table)
            log.info("%s: %d outcomes", m, table.num_rows)
        rows = writer.rows
    return rows
