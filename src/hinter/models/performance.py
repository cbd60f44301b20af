"""The models' own scores beside the published ones (HInter ``001`` Table 5).

- Fine-tuned encoders: one row per (model, dataset): validation and test micro/macro-F1
  (percent) from each ``metrics.json``, LexGLUE's reported test scores and the HInter authors'
  own, matched by the encoder's checkpoint id (``resources/lexglue/reported_scores.csv``).
- Prompted LLMs (:func:`llm_performance_rows`): one row per (model, dataset, split) of the
  tested originals, from the predictions the predict stage already wrote (default variant; no
  model runs here): accuracy, micro/macro-F1, the share without a parseable answer, and on the
  test split the paper's own LLM scores (matched by the model id).

Demo models and practitioners' models have no published scores: those cells stay empty.
"""

from __future__ import annotations

import csv
import io as _io
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter import io, tables
from hinter.errors import DataError
from hinter.render import (
    Table,
    document,
    html_document,
    markdown_table,
    write_csv,
    write_markdown,
)

COLUMNS = (
    "model",
    "checkpoint",
    "dataset",
    "validation_micro_f1",
    "validation_macro_f1",
    "test_micro_f1",
    "test_macro_f1",
    "lexglue_micro_f1",
    "lexglue_macro_f1",
    "hinter_micro_f1",
    "hinter_macro_f1",
    "delta_lexglue_micro_f1",
    "originals",
    "majority_share",
    "constant",
)
_SCORES = ("micro_f1", "macro_f1")


def read_reported(path: str | Path) -> dict[tuple[str, str, str], dict[str, float]]:
    """``(source, checkpoint, dataset) -> {micro_f1, macro_f1}`` from the reported-scores CSV."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    out = {}
    for i, row in enumerate(csv.DictReader(_io.StringIO(text)), start=2):
        try:
            key = (row["source"], row["checkpoint"], row["dataset"])
            out[key] = {name: float(row[name]) for name in _SCORES}
        except (KeyError, TypeError, ValueError):
            raise DataError(f"{path}:{i}: malformed row") from None
    return out


def performance_rows(
    metrics_paths: Sequence[str | Path],
    checkpoints: Mapping[str, str],
    reported: Mapping[tuple[str, str, str], Mapping[str, float]],
    runs: Sequence[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """One row per ``metrics.json`` (which names its model and dataset); ``checkpoints`` maps
    model names to their configured checkpoint (absent for randomly initialised models).
    ``runs`` (:func:`performance_runs`) name each (model, dataset)'s ``predictions`` of the
    tested originals: their most frequent prediction's share (a constant model's 100%)."""
    predicted = {(r["model"], r["dataset"]): r["predictions"] for r in runs}
    rows = []
    for path in metrics_paths:
        metrics = io.read_json(path)
        try:
            model, dataset = metrics["model"], metrics["dataset"]
        except KeyError:
            raise DataError(f"{path}: model or dataset missing") from None
        checkpoint = checkpoints.get(model) or ""
        row: dict[str, Any] = {"model": model, "checkpoint": checkpoint, "dataset": dataset}
        for split in ("validation", "test"):
            scores = metrics.get(split) or {}
            for name in _SCORES:
                value = scores.get(name)
                row[f"{split}_{name}"] = None if value is None else round(100 * value, 2)
        for source in ("lexglue", "hinter"):
            row.update(_published(reported, source, checkpoint, dataset))
        row["delta_lexglue_micro_f1"] = _delta(row["test_micro_f1"], row["lexglue_micro_f1"])
        originals = _originals(predicted.get((model, dataset), ()))
        row.update(
            _majority_columns([(labels, True) for labels, _, error in originals.values()
                               if not error])
        )  # fmt: skip
        rows.append(row)
    return rows


def _published(reported, source: str, checkpoint: str, dataset: str, known: bool = True):
    """``{source}_micro_f1`` and ``{source}_macro_f1`` as published (None: not published, or
    not ``known``)."""
    scores = reported.get((source, checkpoint, dataset), {}) if known else {}
    return {f"{source}_{name}": scores.get(name) for name in _SCORES}


def _majority_columns(predictions: Sequence[tuple[Sequence[int], bool]]) -> dict[str, Any]:
    """``originals``, ``majority_share`` (percent) and ``constant`` of the (labels, answered)
    predictions of the tested originals (an unreadable answer is a prediction of its own)."""
    top = majority(
        tuple(sorted(set(labels))) if ok else NO_ANSWER_KEY for labels, ok in predictions
    )
    share = top.share
    return {
        "originals": top.total,
        "majority_share": None if share is None else round(100 * share, 2),
        "constant": top.constant,
    }


def _delta(ours: float | None, theirs: float | None) -> float | None:
    return None if ours is None or theirs is None else round(ours - theirs, 2)


TITLE = "Fine-tuned encoders: our scores and the published ones"
CAPTION = (
    "Test-set micro-F1 / macro-F1 in percent (validation in brackets). LexGLUE: Chalkidis et al. "
    "(2022); HInter: the authors' own models (`001` Table 5). ECtHR scores include LexGLUE's "
    '"none" column. Most frequent prediction: the share of the tested originals that take the '
    'model\'s most frequent label set, in percent, of how many; "constant": all of them (at '
    "least 2), a model that reacts to no input: its bias rates say nothing about bias."
)


Cell = Callable[[Mapping[str, Any]], str]  # the text of one Markdown cell of a row


def _number(value: Any, fmt: str = "{:.1f}") -> str:
    return "–" if value is None else fmt.format(value)


def _f1(prefix: str) -> Cell:
    """The cell "micro / macro" of a row's ``{prefix}micro_f1`` and ``{prefix}macro_f1``."""

    def cell(row: Mapping[str, Any]) -> str:
        micro, macro = row.get(f"{prefix}micro_f1"), row.get(f"{prefix}macro_f1")
        return "–" if micro is None else f"{micro:.1f} / {macro:.1f}"

    return cell


def _majority_cell(row: Mapping[str, Any]) -> str:
    """ "100.0 of 12 (constant)": the most frequent prediction's share, of how many originals."""
    share, n = row.get("majority_share"), row.get("originals")
    if share is None or not n:
        return "–"
    return f"{share:.1f} of {n:,}" + (" (constant)" if row.get("constant") else "")


def _field(name: str, fmt: str = "{}") -> Cell:
    return lambda row: _number(row.get(name), fmt)


@dataclass(frozen=True)
class _ResultsTable:
    """A results table's layout: ``columns`` as data; in Markdown the ``keys`` as they are,
    then one right-aligned column per ``(header, cell)`` of ``cells``."""

    title: str
    caption: str
    columns: Sequence[str]
    keys: Sequence[str]
    cells: Sequence[tuple[str, Cell]]

    def table(self, rows: Sequence[Mapping[str, Any]]) -> Table:
        import pandas as pd

        data = pd.DataFrame(
            [[row.get(c) for c in self.columns] for row in rows], columns=list(self.columns)
        )
        cells = [(key, _field(key)) for key in self.keys] + list(self.cells)
        headers = [h for h, _ in cells]
        shown = pd.DataFrame([[cell(row) for _, cell in cells] for row in rows], columns=headers)
        right = headers[len(self.keys) :]
        return Table(data, document(self.title, self.caption, markdown_table(shown, right=right)))

    def write(self, rows: Sequence[Mapping[str, Any]], csv_path, md_path, html_path=None) -> None:
        """The table as CSV (every column, 2 decimals), as a Markdown document and (given
        ``html_path``) as the same document in HTML, which the workflow's report shows."""
        table = self.table(rows)
        write_csv(table.data, csv_path, float_digits=2)
        write_markdown([table.markdown], md_path)
        if html_path is not None:
            io.write_text(html_path, html_document(table.markdown))


ENCODER_TABLE = _ResultsTable(TITLE, CAPTION, COLUMNS, ("model", "dataset"), (
    ("ours (test)", _f1("test_")),
    ("ours (validation)", lambda row: f"({_f1('validation_')(row)})"),
    ("LexGLUE", _f1("lexglue_")), ("HInter paper", _f1("hinter_")),
    ("Δ μ-F1 vs LexGLUE", _field("delta_lexglue_micro_f1", "{:+.1f}")),
    ("most frequent prediction (%)", _majority_cell),
))  # fmt: skip
write_performance = ENCODER_TABLE.write


# -- prompted LLMs on the original documents -------------------------------------------------

LLM_COLUMNS = (
    "model",
    "checkpoint",
    "dataset",
    "split",
    "documents",
    "errors",
    "no_answer",
    "accuracy",
    "micro_f1",
    "macro_f1",
    "hinter_micro_f1",
    "hinter_macro_f1",
    "delta_hinter_micro_f1",
    "majority_share",
    "constant",
)
NO_ANSWER = "no_answer"  # PREDICTIONS.answer_status of an answer the parser could not read
NO_ANSWER_KEY = ("no answer",)  # an unreadable answer as a prediction of its own (majority)
_NO_CLASS = -1  # multi-class: the "class" of a missing answer, never a document's


def llm_scores(
    gold: Sequence[Sequence[int]],
    predicted: Sequence[Sequence[int]],
    answered: Sequence[bool],
    n_labels: int,
    task_type: str,
    empty_label: bool = False,
) -> dict[str, float]:
    """Accuracy (exact label-set match) and micro/macro-F1 in 0..1, scored as LexGLUE scores a
    classifier, with one rule for an answer the parser could not read: it is never right.

    - multi-class: it predicts a class of its own, so micro-F1 equals accuracy; macro-F1
      averages over the dataset's labels found in the gold or the answers (not that class);
    - multi-label: the empty set; with ``empty_label`` (ECtHR) LexGLUE's extra "no label"
      column is 1 for a real "None." answer only, not for a missing one.
    """
    import numpy as np
    from sklearn.metrics import f1_score

    from hinter.layout import MULTI_CLASS
    from hinter.models.decisions import check_task_type, indicator
    from hinter.models.metrics import with_empty_column

    if not len(gold) == len(predicted) == len(answered):
        raise ValueError("gold, predicted and answered differ in length")
    if not gold:
        raise ValueError("no documents to score")
    right = [
        ok and sorted(set(p)) == sorted(set(g))
        for g, p, ok in zip(gold, predicted, answered, strict=True)
    ]
    out = {"accuracy": float(np.mean(right))}
    if check_task_type(task_type) == MULTI_CLASS:
        y_true = np.array([g[0] for g in gold])
        y_pred = np.array(
            [
                p[0] if ok and len(p) == 1 else _NO_CLASS
                for p, ok in zip(predicted, answered, strict=True)
            ]
        )
        labels = sorted((set(y_true.tolist()) | set(y_pred.tolist())) - {_NO_CLASS})
        out["micro_f1"] = float(f1_score(y_true, y_pred, average="micro", zero_division=0))
        out["macro_f1"] = float(
            f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0)
        )
        return out
    y_true = indicator(gold, n_labels)
    y_pred = indicator(
        [p if ok else [] for p, ok in zip(predicted, answered, strict=True)], n_labels
    )
    if empty_label:
        y_true = with_empty_column(y_true)
        y_pred = with_empty_column(y_pred)
        y_pred[:, -1] &= np.asarray(answered, dtype=y_pred.dtype)
    out["micro_f1"] = float(f1_score(y_true, y_pred, average="micro", zero_division=0))
    out["macro_f1"] = float(f1_score(y_true, y_pred, average="macro", zero_division=0))
    return out


@dataclass(frozen=True)
class Majority:
    """The most frequent of a model's predictions for the tested originals (``value``, any
    hashable form of a label set), its ``count`` and the ``total`` counted. A model that gives
    every original one prediction cannot flip on a mutant for lack of signal: its bias rates
    are 0 by construction, so "unbiased" and "useless" look alike in the rates alone."""

    value: Any
    count: int
    total: int

    @property
    def share(self) -> float | None:
        """``count / total`` in 0..1 (None: nothing counted)."""
        return self.count / self.total if self.total else None

    @property
    def constant(self) -> bool:
        """Every original (at least 2) took the one prediction."""
        return self.total >= 2 and self.count == self.total


def majority(predictions: Iterable[Any]) -> Majority:
    """The most frequent prediction of ``predictions`` (one per original; ties: the first
    seen), its count and share: the one place this share is computed (the workflow's
    performance tables and RQ1 captions, ``hinter test``'s quality table)."""
    counts = Counter(predictions)
    if not counts:
        return Majority(None, 0, 0)
    value, count = counts.most_common(1)[0]
    return Majority(value, count, sum(counts.values()))


def _originals(predictions: Sequence[str | Path]) -> dict[str, tuple[list[int], bool, bool]]:
    """Predictions of the originals by document: (labels, answered, model error)."""
    out = {}
    for path in predictions:
        table = io.read_parquet(path, tables.PREDICTIONS)
        columns = [
            table[c].to_pylist() for c in ("text_id", "kind", "labels", "status", "answer_status")
        ]
        for doc_id, kind, labels, status, answer in zip(*columns, strict=True):
            if kind == "original" and doc_id not in out:
                error = status != "ok"
                out[doc_id] = (list(labels or []), not error and answer != NO_ANSWER, error)
    return out


def llm_performance_runs(config: Mapping[str, Any], layout: Any) -> list[dict[str, Any]]:
    """The inputs of rule ``llm_performance``: :func:`performance_runs` of the LLMs."""
    return performance_runs(config, layout, "llm")


def performance_runs(config: Mapping[str, Any], layout: Any, kind: str) -> list[dict[str, Any]]:
    """The inputs of rules ``llm_performance`` and ``model_performance`` (``kind`` "llm" or
    "encoder"): per (model, dataset) of that kind, the default variant's predictions and the tested
    documents of every shard, and the dataset's ``meta.json``."""
    from hinter import plan

    runs = []
    for r in plan.model_runs(dict(config)):
        if r.kind != kind:
            continue
        shards = plan.shard_ids(dict(config), r.dataset)
        runs.append(
            {
                "model": r.model,
                "dataset": r.dataset,
                "predictions": [layout.predictions(r.model, r.dataset, sh) for sh in shards],
                "tested": [layout.tested(r.dataset, sh) for sh in shards],
                "meta": layout.meta(r.dataset),
            }
        )
    return runs


def llm_performance_rows(
    runs: Sequence[Mapping[str, Any]],
    checkpoints: Mapping[str, str],
    reported: Mapping[tuple[str, str, str], Mapping[str, float]],
) -> list[dict[str, Any]]:
    """One row per (model, dataset, split). Each run names its ``model``, ``dataset``, the
    default variant's ``predictions`` of every shard, the shards' ``tested`` documents (gold
    labels and split) and the dataset's ``meta`` (task type, label names, empty-set label)."""
    rows = []
    for run in runs:
        model, dataset = run["model"], run["dataset"]
        meta = io.read_json(run["meta"])
        names = meta.get("display_names") or meta.get("label_names") or []
        predicted = _originals(run["predictions"])
        by_split: dict[str, list[tuple[list[int], list[int], bool]]] = {}
        errors: dict[str, int] = {}
        for path in run["tested"]:
            docs = io.read_parquet(path, tables.TESTED_DOCUMENTS)
            columns = [docs[c].to_pylist() for c in ("doc_id", "split", "labels")]
            for doc_id, split, gold in zip(*columns, strict=True):
                if doc_id not in predicted:  # a few-shot example, or beyond max_documents
                    continue
                labels, answered, error = predicted[doc_id]
                if error:
                    errors[split] = errors.get(split, 0) + 1
                    continue
                by_split.setdefault(split, []).append((list(gold or []), labels, answered))
        checkpoint = checkpoints.get(model) or ""
        for split in sorted(set(by_split) | set(errors)):
            items = by_split.get(split, [])
            row: dict[str, Any] = {
                "model": model, "checkpoint": checkpoint, "dataset": dataset, "split": split,
                "documents": len(items), "errors": errors.get(split, 0),
            }  # fmt: skip
            if items:
                gold, labels, answered = (list(c) for c in zip(*items, strict=True))
                n_labels = max([len(names), *(max(x, default=-1) + 1 for x in gold + labels)])
                scores = llm_scores(
                    gold, labels, answered, n_labels, meta["task_type"],
                    empty_label=bool(meta.get("empty_label_name")),
                )  # fmt: skip
                row["no_answer"] = round(100 * (1 - sum(answered) / len(answered)), 2)
                row.update({k: round(100 * v, 2) for k, v in scores.items()})
                shares = _majority_columns(list(zip(labels, answered, strict=True)))
                row.update({k: v for k, v in shares.items() if k != "originals"})
            # the paper reports test scores only
            row.update(_published(reported, "hinter", checkpoint, dataset, split == "test"))
            row["delta_hinter_micro_f1"] = _delta(row.get("micro_f1"), row["hinter_micro_f1"])
            rows.append(row)
    return rows


LLM_TITLE = "Prompted LLMs on the original documents: our scores and the paper's"
LLM_CAPTION = (
    "Accuracy (exact label-set match) and micro-F1 / macro-F1 in percent on the tested originals "
    "(default prompt and decoding; the few-shot examples are not tested), per split; "
    '"no answer": the share the parser could not read, never right (a class of its own for '
    "micro-F1, left out of the macro average). HInter paper: `001` Table 5, test split. ECtHR "
    'scores include LexGLUE\'s "none" column. Most frequent prediction: the share of the '
    "documents that take the model's most frequent label set (or no answer), in percent; "
    '"constant": all of them (at least 2), a model that reacts to no input: its bias rates say '
    "nothing about bias."
)


LLM_TABLE = _ResultsTable(LLM_TITLE, LLM_CAPTION, LLM_COLUMNS, ("model", "dataset", "split"), (
    ("documents", _field("documents", "{:,}")),
    ("no answer (%)", _field("no_answer", "{:.1f}")), ("accuracy", _field("accuracy", "{:.1f}")),
    ("ours μ-F1 / m-F1", _f1("")), ("HInter paper", _f1("hinter_")),
    ("Δ μ-F1 vs paper", _field("delta_hinter_micro_f1", "{:+.1f}")),
    ("most frequent prediction (%)", lambda row: _majority_cell(
        {**row, "originals": row.get("documents")})),
))  # fmt: skip
write_llm_performance = LLM_TABLE.write
