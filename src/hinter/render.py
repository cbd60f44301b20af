"""The table writer of every results table: CSV (the data), Markdown (title, caption, table) and
the same document as HTML (what the Snakemake report shows).

Byte-stable: fixed float formats, ``\\n`` line ends, no timestamps; written atomically, so a
rerun on the same inputs gives identical files. Used by the RQ modules, the dictionary coverage
report and the model performance table.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from hinter import io

_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_|[]<>#"})
# "&name;" / "&#123;": Markdown decodes entity references; a plain "&" (Race & Gender) is kept.
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")


def escape_markdown(text: str) -> str:
    """Text safe inside a Markdown table cell: specials escaped, any run of whitespace (line
    breaks included) as one space; leading and trailing spaces are kept, so pieces concatenate.
    An entity reference in the text (``&lt;``) is escaped too, so a page shows it as typed."""
    escaped = re.sub(r"\s+", " ", str(text)).translate(_MARKDOWN_SPECIAL)
    return _ENTITY.sub(r"\\&", escaped)


def percent(value: float | None, digits: int = 2) -> str:
    """A fraction as a percentage with fixed digits; "–" when undefined (0 denominator)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}"


def csv_text(frame: pd.DataFrame, float_digits: int = 4, sep: str = ",") -> str:
    """CSV (or TSV) with a fixed float format and empty cells for missing values; text cells
    that a spreadsheet would run as formulas are neutralised (:func:`hinter.io.formula_safe`)."""
    return io.formula_safe_frame(frame).to_csv(
        index=False, sep=sep, lineterminator="\n", float_format=f"%.{float_digits}f", na_rep=""
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


def document(title: str, caption: str, body: str) -> str:
    """A table's Markdown document: its title, its caption (one paragraph) and the table."""
    return "\n".join([f"# {title}", "", caption, "", body])


def prose(text: str) -> str:
    """A caption written over several source lines, as one paragraph."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Table:
    """One results table: its data (the CSV) and its Markdown document."""

    data: pd.DataFrame
    markdown: str


STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 14px;
       margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.5em; }
p { max-width: 60em; line-height: 1.4; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f0f0f0; }
tbody tr:nth-child(even) { background: #fafafa; }
code { font-size: 0.95em; }
"""


def html_document(markdown: str, title: str = "") -> str:
    """A standalone HTML page of a Markdown document (tables, bold, code; raw HTML escaped)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    if not title:
        first = markdown.lstrip().splitlines()[0] if markdown.strip() else ""
        title = first.lstrip("#").strip()
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{body}</body>\n</html>\n"
    )


def write_csv(frame: pd.DataFrame, path: str | Path, float_digits: int = 4) -> Path:
    io.write_text(path, csv_text(frame, float_digits))
    return Path(path)


def write_markdown(sections: Sequence[str], path: str | Path) -> Path:
    """Join Markdown blocks with blank lines; one trailing newline."""
    io.write_text(path, "\n".join(s.rstrip("\n") + "\n" for s in sections if s))
    return Path(path)


def write_table(
    table: Table, stem: str | Path, extensions: Sequence[str] = ("csv", "md", "html")
) -> list[Path]:
    """Write ``<stem>.csv``, ``<stem>.md`` and ``<stem>.html`` (those of ``extensions``)."""
    written = []
    for ext in extensions:
        path = Path(f"{stem}.{ext}")
        if ext == "csv":
            write_csv(table.data, path)
        elif ext == "md":
            write_markdown([table.markdown], path)
        elif ext == "html":
            io.write_text(path, html_document(table.markdown))
        else:
            raise ValueError(f"{path}: a table is written as csv, md or html")
        written.append(path)
    return written
