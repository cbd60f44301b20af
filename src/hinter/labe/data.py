"""LABE's inputs: the LAC agency dataset as a hinter dataset, and the released generation and
human review files (../shared/real/labe; read in place, never copied).

LAC's CSVs (``text``, ``label``: 1 agentic, 0 communal) become the documents tables and
meta.json that :func:`hinter.models.training.train_encoder` reads, so the agency classifier is
trained by the same code, into the same model-folder format, as the LexGLUE encoders.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import pyarrow as pa

from hinter import io, tables
from hinter.errors import DataError

LAC_SPLITS = ("train", "validation", "test")
LAC_LABELS = ["communal", "agentic"]  # label ids 0 and 1, as LAC writes them
RACES = ("White", "Black", "Hispanic", "Asian")
GENDERS = ("male", "female")
GENERATION_COLUMNS = ("name", "race", "gender", "prompts")


def _read_csv(path: str | Path, columns: tuple[str, ...]) -> pd.DataFrame:
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    try:
        frame = pd.read_csv(path, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path}: not a readable CSV ({str(exc).splitlines()[0]})") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{path}: no column {missing[0]!r} (has {', '.join(map(str, frame.columns))})"
        )
    return frame


def read_lac(path: str | Path) -> pd.DataFrame:
    """One LAC split, checked: non-empty texts, labels 0 or 1."""
    frame = _read_csv(path, ("text", "label"))
    for i, (text, label) in enumerate(zip(frame["text"], frame["label"], strict=True)):
        if not str(text).strip():
            raise DataError(f"{path} row {i + 2}: empty text")
        if str(label).strip() not in ("0", "1"):
            raise DataError(f"{path} row {i + 2}: label {label!r} is neither 0 nor 1")
    return frame


def prepare_lac(paths: Mapping[str, str | Path], out_dir: str | Path) -> dict:
    """LAC's three splits -> ``<out_dir>/<split>.parquet`` (documents) and ``meta.json``."""
    out_dir = Path(out_dir)
    rows = {}
    for split in LAC_SPLITS:
        frame = read_lac(paths[split])
        table = pa.table(
            {
                "doc_id": [f"lac-{split}-{i}" for i in range(len(frame))],
                "text": [str(t) for t in frame["text"]],
                "labels": pa.array([[int(v)] for v in frame["label"]], type=tables.LABELS),
            },
            schema=tables.DOCUMENTS,
        )
        io.write_parquet(table, out_dir / f"{split}.parquet")
        rows[split] = len(frame)
    meta = {
        "dataset": "lac",
        "task_type": "multi_class",
        "label_names": LAC_LABELS,
        "n_labels": 2,
        "empty_label_name": None,
        "rows": rows,
    }
    io.write_json(out_dir / "meta.json", meta)
    return meta


def read_generations(path: str | Path, text_column: str | None = None) -> pd.DataFrame:
    """A released generation file: name, race, gender, prompt and the generation (the one
    ``*_gen`` column unless ``text_column`` names it), groups checked against 004's eight."""
    frame = _read_csv(path, GENERATION_COLUMNS)
    if text_column is None:
        gen = [c for c in frame.columns if str(c).endswith("_gen")]
        if len(gen) != 1:
            raise DataError(f"{path}: expected exactly one '*_gen' column, found {gen}")
        text_column = gen[0]
    elif text_column not in frame.columns:
        raise DataError(f"{path}: no column {text_column!r}")
    for col, known in (("race", RACES), ("gender", GENDERS)):
        bad = sorted(set(frame[col].astype(str)) - set(known))
        if bad:
            raise DataError(f"{path}: column {col!r} has {bad[0]!r} (expected {', '.join(known)})")
    return pd.DataFrame(
        {
            "name": frame["name"].astype(str),
            "race": frame["race"].astype(str),
            "gender": frame["gender"].astype(str),
            "prompt": frame["prompts"].astype(str),
            "text": frame[text_column].astype(str),
        }
    )


def read_human_reviews(path: str | Path) -> pd.DataFrame:
    """RateMyProfessor's reviews of professors labelled male or female (``mostly_*`` labels are
    left out: 004 Fig. 2 compares the two genders), with the authors' own sentence split."""
    frame = _read_csv(path, ("comments", "gender", "sentences"))
    frame = frame[frame["gender"].isin(GENDERS)].reset_index(drop=True)
    return pd.DataFrame(
        {
            "race": "unknown",
            "gender": frame["gender"].astype(str),
            "text": frame["comments"].astype(str),
            "authors_sentences": [
                _sentence_list(s, path, i) for i, s in enumerate(frame["sentences"])
            ],
        }
    )


def _sentence_list(cell: str, path: str | Path, row: int) -> list[str]:
    try:
        value = ast.literal_eval(str(cell))
    except (ValueError, SyntaxError):
        raise DataError(f"{path} row {row + 2}: 'sentences' is not a list literal") from None
    if not isinstance(value, list):
        raise DataError(f"{path} row {row + 2}: 'sentences' is not a list literal")
    return [str(s) for s in value]
