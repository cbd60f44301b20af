"""Our fine-tuned encoders' scores beside the published ones (HInter ``001`` Table 5).

One row per (model, dataset): validation and test micro/macro-F1 (percent) from each
``metrics.json``, LexGLUE's reported test scores and the HInter authors' own, matched by the
encoder's checkpoint id (``resources/lexglue/reported_scores.csv``). Demo models and
practitioners' models have no published scores: those cells stay empty.
"""

from __future__ import annotations

import csv
import io as _io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hinter import io
from hinter.errors import DataError
from hinter.render import Table, document, markdown_table, write_csv, write_markdown

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
) -> list[dict[str, Any]]:
    """One row per ``metrics.json`` (which names its model and dataset); ``checkpoints`` maps
    model names to their configured checkpoint (absent for randomly initialised models)."""
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
            published = reported.get((source, checkpoint, dataset), {})
            for name in _SCORES:
                row[f"{source}_{name}"] = published.get(name)
        ours, theirs = row["test_micro_f1"], row["lexglue_micro_f1"]
        row["delta_lexglue_micro_f1"] = (
            None if ours is None or theirs is None else round(ours - theirs, 2)
        )
        rows.append(row)
    return rows


TITLE = "Fine-tuned encoders: our scores and the published ones"
CAPTION = (
    "Test-set micro-F1 / macro-F1 in percent (validation in brackets). LexGLUE: Chalkidis et al. "
    "(2022); HInter: the authors' own models (`001` Table 5). ECtHR scores include LexGLUE's "
    '"none" column.'
)


def performance_table(rows: Sequence[Mapping[str, Any]]) -> Table:
    """The comparison as a results table: every column as data, percent pairs in Markdown."""
    import pandas as pd

    data = pd.DataFrame([[row.get(c) for c in COLUMNS] for row in rows], columns=list(COLUMNS))

    def pair(row: Mapping[str, Any], prefix: str) -> str:
        micro, macro = row.get(f"{prefix}_micro_f1"), row.get(f"{prefix}_macro_f1")
        if micro is None:
            return "–"
        return f"{micro:.1f} / {macro:.1f}"

    shown = pd.DataFrame(
        [
            {
                "model": row["model"],
                "dataset": row["dataset"],
                "ours (test)": pair(row, "test"),
                "ours (validation)": f"({pair(row, 'validation')})",
                "LexGLUE": pair(row, "lexglue"),
                "HInter paper": pair(row, "hinter"),
                "Δ μ-F1 vs LexGLUE": (
                    "–"
                    if row.get("delta_lexglue_micro_f1") is None
                    else f"{row['delta_lexglue_micro_f1']:+.1f}"
                ),
            }
            for row in rows
        ],
        columns=["model", "dataset", "ours (test)", "ours (validation)", "LexGLUE",
                 "HInter paper", "Δ μ-F1 vs LexGLUE"],
    )  # fmt: skip
    right = list(shown.columns[2:])
    return Table(data, document(TITLE, CAPTION, markdown_table(shown, right=right)))


def write_performance(
    rows: Sequence[Mapping[str, Any]], csv_path: str | Path, md_path: str | Path
) -> None:
    """The comparison as CSV (every column, 2 decimals) and as a Markdown document."""
    table = performance_table(rows)
    write_csv(table.data, csv_path, float_digits=2)
    write_markdown([table.markdown], md_path)
