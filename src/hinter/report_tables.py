"""CSV and Markdown writers for research-question tables.

Both are byte-stable (fixed float format, ``\\n`` line ends, no timestamps) and written
atomically, so a rerun of an RQ rule on the same outcomes gives identical files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from hinter import io

_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_|[]<>#"})


def escape_markdown(text: str) -> str:
    """Text safe inside a Markdown table cell: specials escaped, any run of whitespace (line
    breaks included) as one space; leading and trailing spaces are kept, so pieces concatenate."""
    return re.sub(r"\s+", " ", str(text)).translate(_MARKDOWN_SPECIAL)


def percent(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage with fixed digits; "–" when undefined (0 denominator)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}"


def csv_text(frame: pd.DataFrame, float_digits: int = 4) -> str:
    """CSV with a fixed float format and empty cells for missing values."""
    return frame.to_csv(
        index=False, lineterminator="\n", float_format=f"%.{float_digits}f", na_rep=""
    )


def markdown_table(frame: pd.DataFrame, right: Sequence[str] = (), raw: Sequence[str] = ()) -> str:
    """A GitHub-flavoured Markdown table of the frame's values as given (format them first).

    ``right`` names the right-aligned (numeric) columns; cells of the ``raw`` columns are
    already Markdown and are not escaped (only their line breaks are folded).
    """
    header = "| " + " | ".join(escape_markdown(c).strip() for c in frame.columns) + " |"
    rule = "|" + "|".join("---:" if c in right else "---" for c in frame.columns) + "|"
    lines = [header, rule]
    for row in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, row, strict=True):
            text = "" if _missing(value) else str(value)
            cells.append(" ".join(text.split()) if column in raw else escape_markdown(text).strip())
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def write_csv(frame: pd.DataFrame, path: str | Path, float_digits: int = 4) -> Path:
    io.write_text(path, csv_text(frame, float_digits))
    return Path(path)


def write_markdown(sections: Sequence[str], path: str | Path) -> Path:
    """Join Markdown blocks with blank lines; one trailing newline."""
    io.write_text(path, "\n".join(s.rstrip("\n") + "\n" for s in sections if s))
    return Path(path)
