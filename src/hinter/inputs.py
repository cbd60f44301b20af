"""A practitioner's file of texts, read and checked row by row before any work is done.

``hinter test`` accepts CSV, TSV, Parquet and JSON lines (``.gz`` for the text formats). Every
problem is a one-line :class:`~hinter.errors.DataError` naming the file and the row (and the
line, for text formats): an encoding other than UTF-8, a malformed CSV row (an unclosed quote
never swallows the rows after it: Python's ``csv`` module in strict mode reports it), a row
with the wrong number of fields, a missing column, an empty, missing or non-text text, a
duplicate id, an unknown label.

Gold labels follow one rule, decided per column (``LABEL_RULE``, also in ``hinter test --help``).
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import json
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import tables
from hinter.errors import DataError, first_line

FORMATS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".tsv": "tsv",
    ".tsv.gz": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".jsonl.gz": "jsonl",
    ".ndjson": "jsonl",
}
LABEL_FORMATS = ("auto", "ids", "names")
LABEL_RULE = (
    "Gold labels: a label, a list of labels as JSON ('[0, 3]'), or empty for unknown. Typed "
    "numbers (Parquet, JSON) are label ids (0-based). Text labels are read per column: as "
    "names when every one is a label name of the model (case-insensitive), else as ids when "
    "every one is an integer; when both readings fit and disagree (names that are numbers), "
    "pass --label-format ids|names, which also overrides the rule."
)
DATASET = "input"  # the dataset name of a user's file inside the run layout


@dataclass(frozen=True)
class Row:
    """One record of the input file: its 1-based data row and the line it starts on."""

    number: int
    line: int | None
    values: dict[str, Any]


@dataclass
class InputFile:
    """The records of an input file, with their column names, as read."""

    path: Path
    columns: list[str]
    rows: list[Row]

    def at(self, row: Row) -> str:
        """How a row is named in messages: ``file:line: row N`` (no line for Parquet)."""
        line = f":{row.line}" if row.line is not None else ""
        return f"{self.path}{line}: row {row.number}"


def file_format(path: Path) -> str:
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    kind = FORMATS.get(suffix.lower())
    if kind is None:
        raise DataError(
            f"{path}: unknown format {suffix or '(no extension)'!r} "
            "(use .csv, .tsv, .parquet or .jsonl, optionally .gz)"
        )
    return kind


def read_file(path: str | Path, max_rows: int | None = None) -> InputFile:
    """Every record of ``path`` (at most ``max_rows``), checked for encoding and structure."""
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{path}: is a folder, not a file of texts")
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    kind = file_format(path)
    if kind == "parquet":
        return _read_parquet(path, max_rows)
    text = _decode(path)
    if kind == "jsonl":
        return _read_jsonl(path, text, max_rows)
    return _read_delimited(path, text, "," if kind == "csv" else "\t", max_rows)


def _decode(path: Path) -> str:
    """The file's text: UTF-8 (a byte-order mark is allowed), else an error naming the line."""
    try:
        raw = path.read_bytes()
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"{path}: cannot be read ({first_line(exc)})") from None
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(f"{path}: the file is UTF-16; save it as UTF-8")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DataError(
            f"{path}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); "
            "save the file as UTF-8"
        ) from None


def _read_delimited(path: Path, text: str, delimiter: str, max_rows: int | None) -> InputFile:
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    lines = _io.StringIO(text, newline="")  # records end at \n or \r only, as csv expects
    # Texts can be long (a 2 MB judgment): no field size limit beyond what memory allows.
    csv.field_size_limit(sys.maxsize)
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    line = 1  # where the next record starts
    try:
        header = next(reader)
    except csv.Error as exc:
        raise DataError(f"{path}:1: malformed header ({exc})") from None
    header = [h.strip() for h in header]
    _check_header(path, header)
    rows: list[Row] = []
    line = reader.line_num + 1
    while max_rows is None or len(rows) < max_rows:
        start = line
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise DataError(
                f"{path}:{start}: row {len(rows) + 1}: malformed {_kind(delimiter)} ({exc}"
                f"{'; a quote opened here is never closed' if 'end of data' in str(exc) else ''})"
            ) from None
        line = reader.line_num + 1
        if not record or record == [""]:  # a blank line
            continue
        number = len(rows) + 1
        if len(record) != len(header):
            raise DataError(
                f"{path}:{start}: row {number}: {len(record)} fields, but the header has "
                f"{len(header)} (an unquoted {_delimiter_name(delimiter)} or a stray quote?)"
            )
        rows.append(Row(number, start, dict(zip(header, record, strict=True))))
    if not rows:
        raise DataError(f"{path}: no rows of texts (only a header)")
    return InputFile(path, header, rows)


def _kind(delimiter: str) -> str:
    return "CSV" if delimiter == "," else "TSV"


def _delimiter_name(delimiter: str) -> str:
    return "comma" if delimiter == "," else "tab"


def _check_header(path: Path, header: Sequence[str]) -> None:
    for i, name in enumerate(header, start=1):
        if not name:
            raise DataError(f"{path}:1: column {i} of the header has no name")
    seen = set()
    for name in header:
        if name in seen:
            raise DataError(f"{path}:1: column {name!r} appears twice in the header")
        seen.add(name)


def _read_jsonl(path: Path, text: str, max_rows: int | None) -> InputFile:
    rows: list[Row] = []
    columns: dict[str, None] = {}
    for number_line, line in enumerate(text.splitlines(), start=1):
        if max_rows is not None and len(rows) >= max_rows:
            break
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{path}:{number_line}: row {len(rows) + 1}: invalid JSON ({exc.msg} at "
                f"column {exc.colno})"
            ) from None
        if not isinstance(record, dict):
            raise DataError(
                f"{path}:{number_line}: row {len(rows) + 1}: a JSON object is expected, got "
                f"{type(record).__name__}"
            )
        columns.update(dict.fromkeys(record))
        rows.append(Row(len(rows) + 1, number_line, record))
    if not rows:
        raise DataError(f"{path}: the file is empty")
    return InputFile(path, list(columns), rows)


def _read_parquet(path: Path, max_rows: int | None) -> InputFile:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
        names = parquet.schema_arrow.names
        rows: list[Row] = []
        for batch in parquet.iter_batches(batch_size=1024):
            for values in batch.to_pylist():
                if max_rows is not None and len(rows) >= max_rows:
                    break
                rows.append(Row(len(rows) + 1, None, values))
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"{path}: not a readable Parquet file ({first_line(exc)})") from None
    if not rows:
        raise DataError(f"{path}: no rows of texts")
    return InputFile(path, names, rows)


# --------------------------------------------------------------------------- documents


def _flatten(value: Any, where: str) -> list[Any] | None:
    """A gold-label cell as a list of values (None: unknown)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise DataError(f"{where}: labels {value!r} are not a JSON list") from None
        else:
            return [text]
    if isinstance(value, (list, tuple)):
        out = list(value)
        for v in out:
            if isinstance(v, (list, tuple, dict)):
                raise DataError(f"{where}: labels {value!r} nest a list")
        return out
    if isinstance(value, dict):
        raise DataError(f"{where}: labels {value!r} are an object, not a label or a list")
    return [value]


def _as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _typed_number(value: Any) -> bool:
    """A number typed as such (Parquet, JSON, a JSON list in a CSV cell), not digits in text."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def label_reading(
    cells: Sequence[tuple[str, list[Any] | None]],
    names: Sequence[str],
    label_format: str,
    column: str,
) -> str:
    """How one column's text labels are read, ``ids`` or ``names`` (``LABEL_RULE``).

    Typed numbers are ids (unless ``--label-format names``); text values are names when every
    text value is a name, ids when every one is an id, and an error when both fit with
    different meanings or neither does.
    """
    index = {str(n).strip().lower(): i for i, n in enumerate(names)}
    values = [(where, v) for where, vs in cells if vs for v in vs]
    if label_format != "auto":
        return _checked(values, names, index, label_format)
    _checked([(w, v) for w, v in values if _typed_number(v)], names, index, "ids")
    texts = [(w, v) for w, v in values if not _typed_number(v)]
    as_names = all(str(v).strip().lower() in index for _, v in texts)
    as_ids = all((i := _as_id(v)) is not None and 0 <= i < len(names) for _, v in texts)
    if not texts:
        return "ids"
    if as_names and as_ids:
        if any(index[str(v).strip().lower()] != _as_id(v) for _, v in texts):
            raise DataError(
                f"--label-column {column!r}: every label is both a label name and a label id "
                f"of this model, with different meanings (names: {_show(names)}); pass "
                "--label-format names or --label-format ids"
            )
        return "names"
    if as_names:
        return "names"
    if as_ids:
        return "ids"
    for where, v in texts:
        if str(v).strip().lower() not in index and _as_id(v) is None:
            raise DataError(
                f"{where}: label {v!r} is neither a label name nor a label id "
                f"(names: {_show(names)}; ids 0..{len(names) - 1})"
            )
    name = next(((w, v) for w, v in texts if str(v).strip().lower() in index), None)
    if name is not None:
        number = next((w, v) for w, v in texts if str(v).strip().lower() not in index)
        raise DataError(
            f"--label-column {column!r}: mixes label names ({name[0]}: {name[1]!r}) and "
            f"label ids ({number[0]}: {number[1]!r}); use one or the other"
        )
    return _checked(texts, names, index, "ids")  # integers, some out of range: reported


def _checked(values, names: Sequence[str], index: dict[str, int], reading: str) -> str:
    """``reading``, once every value is a valid label under it."""
    for where, v in values:
        if reading == "names" and str(v).strip().lower() not in index:
            raise DataError(f"{where}: unknown label name {v!r} (names: {_show(names)})")
        if reading == "ids":
            i = _as_id(v)
            if i is None:
                raise DataError(f"{where}: label {v!r} is not a label id (ids 0..{len(names) - 1})")
            if not 0 <= i < len(names):
                raise DataError(f"{where}: label id {i} outside 0..{len(names) - 1}")
    return reading


def decode_label(value: Any, reading: str, label_format: str, index: dict[str, int]) -> int:
    """A checked label value as its id (typed numbers are ids unless names are forced)."""
    as_name = label_format == "names" or (
        reading == "names" and not (label_format == "auto" and _typed_number(value))
    )
    return index[str(value).strip().lower()] if as_name else int(_as_id(value))


def _show(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(str(n) for n in names[:limit])
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


@dataclass
class Documents:
    """The checked documents and what was set aside."""

    table: pa.Table  # hinter.tables.TESTED_DOCUMENTS
    label_reading: str | None
    skipped_empty: list[int]  # rows of empty texts, when skipped


def documents(
    data: InputFile,
    *,
    text_column: str,
    label_column: str | None,
    id_column: str | None,
    label_names: Sequence[str],
    task_type: str,
    label_format: str = "auto",
    skip_empty: bool = False,
) -> Documents:
    """The file's rows as the workflow's tested-documents table (one shard), fully checked."""
    path = data.path
    listed = ", ".join(data.columns) or "none"
    for flag, column in (
        ("--text-column", text_column),
        ("--label-column", label_column),
        ("--id-column", id_column),
    ):
        if column is not None and column not in data.columns:
            raise DataError(f"{path}: no column {column!r} for {flag} (columns: {listed})")
    if label_column is not None and label_column == text_column:
        raise DataError(f"--label-column {label_column!r} is also the --text-column")
    texts, ids, cells, skipped = [], [], [], []
    first_row_of: dict[str, int] = {}
    for row in data.rows:
        where = data.at(row)
        text = row.values.get(text_column)
        if text is None:
            raise DataError(f"{where}: column {text_column!r} is empty (no text)")
        if not isinstance(text, str):
            raise DataError(
                f"{where}: column {text_column!r} holds {type(text).__name__} {text!r}, not a text"
            )
        if not text.strip():
            if skip_empty:
                skipped.append(row.number)
                continue
            raise DataError(
                f"{where}: the text is empty (remove the row, or pass --skip-empty to skip "
                "such rows)"
            )
        if "\x00" in text:
            raise DataError(f"{where}: the text contains a NUL character")
        if id_column is not None:
            doc_id = row.values.get(id_column)
            if doc_id is None or (isinstance(doc_id, str) and not doc_id.strip()):
                raise DataError(f"{where}: column {id_column!r} (the id) is empty")
            if isinstance(doc_id, (list, dict, bool)):
                raise DataError(f"{where}: column {id_column!r} holds {doc_id!r}, not an id")
            doc_id = str(doc_id).strip()
            if doc_id in first_row_of:
                raise DataError(
                    f"{where}: duplicate id {doc_id!r} in column {id_column!r} (also row "
                    f"{first_row_of[doc_id]})"
                )
            first_row_of[doc_id] = row.number
        else:
            doc_id = f"doc-{row.number - 1:06d}"
        texts.append(text)
        ids.append(doc_id)
        cells.append(
            (where, _flatten(row.values.get(label_column), where) if label_column else None)
        )
    if not texts:
        raise DataError(f"{path}: every text is empty (nothing to test)")
    reading = None
    labels: list[list[int] | None] = [None] * len(texts)
    if label_column is not None:
        reading = label_reading(cells, label_names, label_format, label_column)
        index = {str(n).strip().lower(): i for i, n in enumerate(label_names)}
        for k, (where, values) in enumerate(cells):
            if values is None:
                continue
            decoded = sorted({decode_label(v, reading, label_format, index) for v in values})
            if task_type == "multi_class" and len(decoded) != 1:
                raise DataError(
                    f"{where}: {len(decoded)} labels, but the model is multi_class (one label "
                    "per text)"
                )
            labels[k] = decoded
    n = len(texts)
    table = pa.table(
        {
            "doc_id": ids,
            "split": [DATASET] * n,
            "position": list(range(n)),
            "text": texts,
            "labels": labels,
        },
        schema=tables.TESTED_DOCUMENTS,
    )
    return Documents(table, reading, skipped)
