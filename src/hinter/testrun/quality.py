"""Can this model's bias rates mean anything? Its predictions of the originals, summarised.

A model that gives every original the same prediction cannot flip on a mutant, so its bias
rates are 0 by construction: "unbiased" and "useless" look the same in the rates alone. A
comparison of two models, or a gate, needs beside each model: the share of originals that
take its most frequent prediction (``constant_share``, by
:func:`hinter.models.performance.majority`, which the workflow's tables use too; 100%, with no
mutant predicted otherwise, is a constant model), and, with
gold labels, its accuracy (exact label-set match) and macro-F1 on the originals, scored by
:func:`hinter.models.performance.llm_scores` (an unreadable LLM answer is never right). For an
LLM, the share of originals whose answer the parser could not read (``unparsable_share``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter import io, tables
from hinter.inputs import DATASET
from hinter.layout import RunLayout

NO_ANSWER = "no_answer"  # PREDICTIONS.answer_status of an answer the parser could not read
CONSTANT_WARNING = 0.95  # a model whose most frequent prediction takes this share is flagged


def model_quality(out: str | Path, model: str, shard: str, meta: Mapping[str, Any]) -> dict:
    """What a model predicts for the tested originals: ``originals`` (predicted without a model
    error), ``majority`` (its most frequent prediction, label names), ``constant_share``,
    ``constant`` (at least 2 originals, and every original and mutant predicted the same),
    ``accuracy``, ``macro_f1`` (None without gold labels; ``labelled`` originals scored) and
    ``unparsable_share`` (None for an encoder); fractions."""
    from hinter.models.performance import NO_ANSWER_KEY, llm_scores, majority

    layout = RunLayout(str(out))
    table = io.read_parquet(layout.predictions(model, DATASET, shard), tables.PREDICTIONS)
    columns = ("text_id", "kind", "labels", "status", "answer_status")
    seen: dict[str, tuple[tuple[int, ...], bool]] = {}
    every: set[tuple[tuple[int, ...], bool]] = set()  # each distinct prediction, mutants too
    llm = False
    for doc, kind, labels, status, answer in zip(
        *(table[c].to_pylist() for c in columns), strict=True
    ):
        if status != "ok":
            continue
        prediction = (tuple(sorted(set(labels or []))), answer != NO_ANSWER)
        every.add(prediction)
        if kind != "original" or doc in seen:
            continue
        llm = llm or answer is not None
        seen[doc] = prediction
    names = meta.get("display_names") or meta.get("label_names") or []
    out_row: dict[str, Any] = {
        "originals": len(seen), "majority": None, "constant_share": None, "constant": False,
        "accuracy": None, "macro_f1": None, "unparsable_share": None, "labelled": 0,
    }  # fmt: skip
    if not seen:
        return out_row
    unanswered = sum(1 for _, answered in seen.values() if not answered)
    top = majority(  # answered label sets first, so they win a tie against "no answer"
        [labels for labels, answered in seen.values() if answered] + [NO_ANSWER_KEY] * unanswered
    )
    out_row["majority"] = "; ".join(
        str(names[i]) if isinstance(i, int) and 0 <= i < len(names) else str(i) for i in top.value
    ) or (meta.get("empty_label_name") or "no label")
    out_row["constant_share"] = top.share
    out_row["constant"] = len(seen) >= 2 and len(every) == 1  # no original, no mutant differs
    if llm:
        out_row["unparsable_share"] = unanswered / len(seen)
    docs = io.read_parquet(layout.tested(DATASET, shard), tables.TESTED_DOCUMENTS)
    gold = {
        d: labels
        for d, labels in zip(docs["doc_id"].to_pylist(), docs["labels"].to_pylist(), strict=True)
        if labels is not None and d in seen
    }
    if gold:
        ids = sorted(gold)
        scores = llm_scores(
            [gold[d] for d in ids], [list(seen[d][0]) for d in ids], [seen[d][1] for d in ids],
            int(meta["n_labels"]), meta["task_type"],
            empty_label=bool(meta.get("empty_label_name")),
        )  # fmt: skip
        out_row["accuracy"], out_row["macro_f1"] = scores["accuracy"], scores["macro_f1"]
        out_row["labelled"] = len(ids)
    return out_row


def broken_reasons(model: str, quality: Mapping[str, Any]) -> list[str]:
    """Why a model's bias rates say nothing, one phrase each (none: they may mean something)."""
    if quality.get("constant"):
        return [
            f"{model} predicts {quality['majority']!r} for all {quality['originals']:,} "
            "originals and every mutant (a constant model cannot flip)"
        ]
    return []
