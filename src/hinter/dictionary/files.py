"""Reading and writing the dictionary's small text tables, with file:line in every error."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from hinter.errors import DataError


def read_lines(path: str | Path) -> list[tuple[int, str]]:
    """(1-based line number, text) of a UTF-8 text file; CRLF and a BOM are accepted."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, expected a file") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from None
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[-1] == "":
        lines.pop()
    return [(number, line.removesuffix("\r")) for number, line in enumerate(lines, start=1)]


def read_tsv(path: str | Path, columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """Rows of a tab-separated table whose header is exactly ``columns``."""
    path = Path(path)
    lines = read_lines(path)
    if not lines:
        raise DataError(f"{path}: empty file, expected the header {list(columns)}")
    header = lines[0][1].split("\t")
    if header != list(columns):
        raise DataError(f"{path}:1: header {header} differs from the expected {list(columns)}")
    rows = []
    for number, text in lines[1:]:
        cells = text.split("\t")
        if len(cells) != len(columns):
            raise DataError(f"{path}:{number}: {len(cells)} fields, expected {len(columns)}")
        rows.append((number, dict(zip(columns, cells, strict=True))))
    return rows


def format_tsv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A TSV document: header, LF line ends, no quoting (values never hold tabs or newlines)."""
    out = ["\t".join(columns)]
    for row in rows:
        cells = ["" if value is None else str(value) for value in row]
        bad = [c for c in cells if "\t" in c or "\n" in c or "\r" in c]
        if bad:
            raise ValueError(f"TSV value with a tab or line break: {bad[0]!r}")
        out.append("\t".join(cells))
    return "\n".join(out) + "\n"


def write_tsv(path: str | Path, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """Write a TSV table atomically."""
    from hinter import io  # pyarrow behind it: not needed by the Snakefile's start-up checks

    io.write_text(path, format_tsv(columns, rows))
