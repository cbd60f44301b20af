"""Atomic file output and checked input.

Every writer goes to a temporary file in the destination folder and is renamed into place only
when complete, so an error or a kill never leaves a half-written output behind.

Every Parquet file written here carries its own integrity check, verified whenever it is read
here: a SHA-256 of the whole file (``hinter.sha256`` in the footer's key-value metadata: the
digest of the file's bytes with that value written as 64 dashes, so one self-contained file
covers its data pages, page headers and footer), a CRC-32 of every data page (Parquet's page
checksums) and its row count (``hinter.rows``). A damaged file — a flipped bit on disk, a bad
copy — is a one-line :class:`DataError` naming the file and the rule to rerun, never values
read back silently changed. Every JSON file written by :func:`write_json` carries the digest of
its content the same way (key ``hinter.sha256``, removed on read). Files written before a check
existed (no digest, no checksums, no row count) are read as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import io as pyio
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hinter.errors import DataError, HinterError, first_line

_UMASK = os.umask(0)
os.umask(_UMASK)


# The temporary files of atomic_path: ".<name>.<8 characters of mkstemp>.tmp".
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")

# what a damaged file can raise while its footer or pages are decoded
_UNREADABLE = (pa.ArrowException, OSError, ValueError, UnicodeDecodeError, EOFError)
ROWS_KEY = b"hinter.rows"  # key-value metadata: the row count the writer wrote
DIGEST_KEY = b"hinter.sha256"  # key-value metadata: the whole file's digest (see _seal)
_PLACEHOLDER = b"-" * 64  # the digest's bytes while the file's digest is computed
_HEX64 = re.compile(rb"[0-9a-f]{64}")
JSON_DIGEST = DIGEST_KEY.decode()  # the key of a JSON file's digest
# results/<run>/<folder>/...: the rule that writes the intermediates of each folder
_WRITERS = {
    "data": "shard_documents",
    "mutants": "mutate",
    "validity": "check_invariant",
    "predictions": "predict",
    "outcomes": "outcomes",
    "dictionary": "compile_pairs",
    "grammar": "grammar_scores",
    "examples": "hidden_examples",
}


def temporaries(folder: str | Path, name: str | None = None) -> list[Path]:
    """Temporary files that :func:`atomic_path` left in ``folder`` (of output ``name``, or all);
    never a link (a link named like one is not ours to delete).

    Only a process killed outright (kill -9, power loss) leaves one behind.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        match = _TEMPORARY.match(entry.name)
        if (
            match
            and entry.is_file()
            and not entry.is_symlink()
            and (name is None or match["name"] == name)
        ):
            found.append(entry)
    return sorted(found)


def remove_temporaries(root: str | Path) -> list[Path]:
    """Delete every temporary file of :func:`atomic_path` under ``root`` (a killed run's).

    Call it only where no other process is writing (the CLI holds a lock on its folder).
    """
    root = Path(root)
    removed = []
    if root.is_symlink() or not root.is_dir():
        return removed
    # os.walk does not follow links to folders: a link inside root never leads outside it
    for folder, _, _ in os.walk(root, followlinks=False):
        for tmp in temporaries(folder):
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
    return removed


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it to ``path`` if the block succeeds.

    A temporary file of the same output left by a killed earlier attempt is deleted first (one
    output has one writer at a time: Snakemake's jobs, the CLI's lock).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in temporaries(path.parent, path.name):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp_path = Path(tmp)
    try:  # from here on a stop (Ctrl-C lands anywhere) removes the temporary file
        os.close(fd)
        # mkstemp creates 0600 files; give outputs the permissions a plain open() would.
        os.chmod(tmp_path, 0o666 & ~_UMASK)
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        tmp_path.unlink(missing_ok=True)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# a signed number, or a signed interval of them ("+1.25 [+0.50, +2.00]"): no formula can be
# built without one of the characters this refuses (a call, a DDE link, a reference, '=')
_SIGNED_NUMBERS = re.compile(r"[+-]\d[^=(|!@;:]*")


def formula_safe(value: Any) -> Any:
    """A CSV cell a spreadsheet will show as text: a string starting with ``= + - @``, a tab or
    a carriage return (a formula to Excel, LibreOffice, Google Sheets) gets a leading ``'``.
    Numbers, and strings of signed numbers (``-0.25``, ``+1.25 [+0.50, +2.00]``), are left as
    they are."""
    if not isinstance(value, str) or len(value) < 2 or not value.startswith(_FORMULA_START):
        return value
    if _SIGNED_NUMBERS.fullmatch(value):
        return value
    return "'" + value


def formula_safe_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells (and column names) are :func:`formula_safe`:
    every CSV written from user text goes through it. A carriage return in a cell becomes a
    line feed: the CSV writer quotes a field holding ``\n`` but not one holding a bare ``\r``,
    which a reader would take for the end of the row."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype) in ("string", "str"):
            out[column] = out[column].map(_csv_cell)
    out.columns = [formula_safe(c) for c in out.columns]
    return out


def _csv_cell(value: Any) -> Any:
    if isinstance(value, str) and "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    return formula_safe(value)


def guard_output_file(
    path: str | Path,
    flag: str,
    *,
    inputs: Iterable[str | Path] = (),
    folders: Mapping[str, str | Path] | None = None,
    out: str | Path | None = None,
) -> Path:
    """Refuse an output file that would overwrite what it must not: an input file, anything
    inside a protected folder (the model, the dictionary, the cache: ``folders`` maps each to
    its flag), or an existing result inside the run's ``out`` folder. Links are resolved first,
    so no other name for the same file gets through. Returns the resolved path."""
    target = Path(path).expanduser().resolve()
    if target.is_dir():
        raise HinterError(f"{flag} {path}: is a folder, not a file")
    for item in inputs:
        if target == Path(item).expanduser().resolve():
            raise HinterError(f"{flag} {path}: is the input file {item}; choose another file")
    for name, folder in (folders or {}).items():
        root = Path(folder).expanduser().resolve()
        if target == root or root in target.parents:
            raise HinterError(f"{flag} {path}: inside the {name} folder {folder}; choose another")
    if out is not None:
        root = Path(out).expanduser().resolve()
        if root in target.parents and target.exists():
            raise HinterError(
                f"{flag} {path}: would overwrite {target.relative_to(root)} of the run in "
                f"{out}; choose a new file"
            )
    return target


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _canonical_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json(path: str | Path, obj: Any) -> None:
    """Write JSON with sorted keys and a trailing newline (byte-stable across runs). An object
    gets the SHA-256 of its canonical text as key ``hinter.sha256``, which :func:`read_json`
    checks and removes: a flipped bit in a sidecar (``meta.json``'s label names, a shard's
    counts) is a one-line error, never a silently different run."""
    if isinstance(obj, dict):
        body = {k: v for k, v in obj.items() if k != JSON_DIGEST}
        digest = hashlib.sha256(_canonical_json(body).encode("utf-8")).hexdigest()
        obj = {**body, JSON_DIGEST: digest}
    write_text(path, _canonical_json(obj))


def read_json(path: str | Path) -> Any:
    """The JSON in ``path``; an object written by :func:`write_json` is checked against its
    digest (which is removed). Files without a digest are read as they are."""
    path = Path(path)
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start}); invalid JSON") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    if isinstance(value, dict) and JSON_DIGEST in value:
        recorded = value.pop(JSON_DIGEST)
        found = hashlib.sha256(_canonical_json(value).encode("utf-8")).hexdigest()
        if recorded != found:
            raise damaged(path, "its content does not match the SHA-256 recorded in it")
    elif isinstance(value, dict) and any(_near_digest_key(k) for k in value):
        # the digest's own name damaged: the file would read as one without a digest, with an
        # extra key
        raise damaged(path, f"its SHA-256 record's name is damaged ({JSON_DIGEST!r} expected)")
    return value


def _near_digest_key(key: str) -> bool:
    return (
        len(key) == len(JSON_DIGEST)
        and sum(a != b for a, b in zip(key, JSON_DIGEST, strict=True)) == 1
    )


def write_parquet(
    table: pa.Table,
    path: str | Path,
    schema: pa.Schema | None = None,
    row_group_size: int | None = None,
) -> None:
    """Write one Parquet file atomically, cast to ``schema`` when given.

    Small row groups let readers stream a large file in bounded memory.
    """
    if schema is not None:
        table = conform(table, schema, where=str(path))
    meta = dict(table.schema.metadata or {})
    meta[ROWS_KEY] = str(table.num_rows).encode()
    meta[DIGEST_KEY] = _PLACEHOLDER
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(
            table, tmp, compression="zstd", row_group_size=row_group_size,
            write_page_checksum=True,
        )  # fmt: skip
        _seal(tmp)


# The whole-file digest. The footer's key-value metadata holds ``hinter.sha256``: the SHA-256 of
# the file's bytes as written with that value's 64 bytes as dashes. The writer writes the
# dashes, hashes the file and writes the digest over them (same length: the footer stays
# valid); a reader hashes the file with the recorded digest's bytes read as dashes. Any
# changed byte — a data page, a page header (which the page CRCs do not cover), the footer, the
# digest itself — fails the comparison. (The Arrow schema that pyarrow also stores in the
# footer holds the dashes, base64-encoded: it is not the digest's place.)
_CHUNK = 1 << 16  # small: hashing a large file must not raise a streamed stage's memory peak


def _footer_span(fh: BinaryIO, size: int) -> tuple[int, bytes]:
    """The footer's offset and bytes (Parquet: footer, 4-byte length, ``PAR1``)."""
    if size < 12:
        return size, b""
    fh.seek(size - 8)
    length = int.from_bytes(fh.read(4), "little")
    start = max(size - 8 - length, 0)
    fh.seek(start)
    return start, fh.read(size - 8 - start)


def _hash_range(fh: BinaryIO, digest: Any, start: int, end: int) -> None:
    fh.seek(start)
    left = end - start
    while left > 0:
        chunk = fh.read(min(_CHUNK, left))
        if not chunk:
            return
        digest.update(chunk)
        left -= len(chunk)


def _seal(path: Path) -> None:
    """Write the digest of the just-written file ``path`` over its placeholder."""
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        start, footer = _footer_span(fh, size)
        at = footer.rfind(_PLACEHOLDER)
        if at < 0:  # the writer put it there: a bug, not bad input
            raise RuntimeError(f"{path}: no digest placeholder in the footer")
        digest = hashlib.sha256()
        _hash_range(fh, digest, 0, size)
        fh.seek(start + at)
        fh.write(digest.hexdigest().encode())


def verify_digest(path: str | Path, metadata: pq.FileMetaData, fh: BinaryIO | None = None):
    """Check a Parquet file against the digest in its footer (``metadata``, already parsed);
    a file without one (written before the check, or by another program) passes. ``fh``: the
    file's bytes already in memory, else the file is streamed."""
    recorded = (metadata.metadata or {}).get(DIGEST_KEY)
    if recorded is None:
        return
    if not _HEX64.fullmatch(recorded):
        raise damaged(path, "its SHA-256 record is not a digest; or another program rewrote it")
    with contextlib.ExitStack() as stack:
        if fh is None:
            fh = stack.enter_context(open(path, "rb"))
        size = fh.seek(0, os.SEEK_END)
        start, footer = _footer_span(fh, size)
        at = footer.rfind(recorded)
        if at < 0:
            raise damaged(path, "its SHA-256 record is not in its footer")
        digest = hashlib.sha256()
        _hash_range(fh, digest, 0, start + at)
        digest.update(_PLACEHOLDER)
        _hash_range(fh, digest, start + at + len(recorded), size)
    if digest.hexdigest().encode() != recorded:
        raise damaged(
            path,
            "its SHA-256 does not match the one recorded when it was written; or another "
            "program rewrote it keeping hinter's key-value metadata",
        )


def writer_rule(path: str | Path) -> str:
    """The rule to rerun for a damaged file (by its results folder), for error messages."""
    parts = Path(path).parts
    for folder in reversed(parts[:-1]):
        if folder in _WRITERS:
            return f"rule {_WRITERS[folder]}"
    return "the step that wrote it"


def damaged(path: str | Path, why: str) -> DataError:
    """The one-line error of a file whose integrity check failed."""
    return DataError(
        f"{path}: damaged file ({why}); delete it and rerun {writer_rule(path)} "
        f"(snakemake rebuilds it), or rerun the command that wrote it"
    )


def check_rows(path: str | Path, metadata: pq.FileMetaData, rows: int | None = None) -> None:
    """The row count recorded by the writer matches the footer's (and the rows read)."""
    recorded = (metadata.metadata or {}).get(ROWS_KEY)
    if recorded is None:
        return
    in_groups = sum(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups))
    counts = {int(recorded), metadata.num_rows, in_groups, *(() if rows is None else (rows,))}
    if len(counts) != 1:
        raise damaged(path, f"{int(recorded)} rows written, {sorted(counts)} found")


def _unreadable(path: Path, exc: BaseException) -> DataError:
    if isinstance(exc, DataError):
        return exc
    text = first_line(exc)
    if "checksum" in text.lower() or "crc" in text.lower():
        return damaged(path, f"a page checksum does not match: {text}")
    return DataError(f"{path}: not a readable Parquet file ({text})")


def read_parquet(path: str | Path, schema: pa.Schema | None = None, columns=None) -> pa.Table:
    """Read a Parquet file; a corrupt file or a missing column is a one-line DataError."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    try:
        data = path.read_bytes()
        parquet = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
        verify_digest(path, parquet.metadata, pyio.BytesIO(data))
        table = parquet.read(columns=columns)
        check_rows(path, parquet.metadata, table.num_rows)
    except _UNREADABLE as exc:
        raise _unreadable(path, exc) from None
    if schema is not None:
        wanted = schema if columns is None else pa.schema([schema.field(c) for c in columns])
        table = conform(table, wanted, where=str(path))
    return table


def iter_batches(
    path: str | Path,
    columns: Sequence[str] | None = None,
    *,
    schema: pa.Schema | None = None,
    optional: Sequence[str] = (),
    batch_size: int = 65_536,
) -> Iterator[pa.Table]:
    """Stream a Parquet file as tables of at most ``batch_size`` rows, in file order.

    The one streaming reader of the project: memory stays at one batch (and one row group
    buffer) whatever the file's size. ``columns`` must all be present (default: every column
    of ``schema``, else of the file); ``optional`` columns are read when the file has them.
    With ``schema``, every batch is cast to it (its fields of the columns read). A missing file
    or column, a corrupt file or a column of the wrong type is a one-line :class:`DataError`
    naming the file (and the column), raised before the first batch where it can be.
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    try:
        # no pre-buffering: memory is bounded by one row group, not the whole file
        parquet = pq.ParquetFile(
            path, pre_buffer=False, buffer_size=1 << 20, page_checksum_verification=True
        )
        check_rows(path, parquet.metadata)
        verify_digest(path, parquet.metadata)
        present = parquet.schema_arrow.names
    except _UNREADABLE as exc:
        raise _unreadable(path, exc) from None
    wanted = list(columns if columns is not None else (schema.names if schema else present))
    missing = [c for c in wanted if c not in present]
    if missing:
        raise DataError(f"{path}: missing column(s) {', '.join(missing)}")
    wanted += [c for c in optional if c in present and c not in wanted]
    target = None
    if schema is not None:
        target = pa.schema([schema.field(c) for c in wanted if c in schema.names])
        check_types(parquet.schema_arrow, target, where=str(path))
    batches = parquet.iter_batches(batch_size=batch_size, columns=wanted)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except _UNREADABLE as exc:
            raise _unreadable(path, exc) from None
        table = pa.Table.from_batches([batch])
        yield table if target is None else conform(table, target, where=str(path))


def read_matching(
    path: str | Path,
    key: str,
    wanted: Iterable[str],
    *,
    columns: Sequence[str] | None = None,
    schema: pa.Schema | None = None,
    batch_size: int = 65_536,
) -> pa.Table:
    """The rows of a Parquet file whose ``key`` column is in ``wanted``, streamed batch by
    batch (a file of every suite's rows never sits in memory at once); file order is kept."""
    value_set = pa.array(sorted(set(wanted)), type=pa.string())
    names = list(columns if columns is not None else (schema.names if schema else []))
    if names and key not in names:
        raise ValueError(f"read_matching: key column {key!r} is not among the columns read")
    parts = [
        t.filter(pc.is_in(t[key], value_set=value_set))
        for t in iter_batches(path, names or None, schema=schema, batch_size=batch_size)
    ]
    if parts:
        return pa.concat_tables(parts)
    if schema is not None:
        return pa.schema([schema.field(c) for c in names]).empty_table()
    return pq.read_schema(path).empty_table().select(names) if names else pa.table({})


def check_types(found: pa.Schema, wanted: pa.Schema, where: str) -> None:
    """Fail with the first column whose stored type cannot become the wanted one."""
    for field in wanted:
        have = found.field(field.name).type if field.name in found.names else None
        if have is None or have == field.type:
            continue
        try:
            pa.array([], type=have).cast(field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise DataError(
                f"{where}: column {field.name!r} is {have}, expected {field.type}"
            ) from None


def parquet_rows(path: str | Path) -> int | None:
    """Rows of a Parquet file from its footer (None when unreadable: its reader says why)."""
    try:
        return pq.ParquetFile(path).metadata.num_rows
    except (pa.ArrowInvalid, OSError):
        return None


def conform(table: pa.Table, schema: pa.Schema, where: str) -> pa.Table:
    """Select and cast ``table`` to ``schema``; name the file and column when it cannot."""
    missing = [f.name for f in schema if f.name not in table.column_names]
    if missing:
        raise DataError(f"{where}: missing column(s) {', '.join(missing)}")
    try:
        return table.select(schema.names).cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        for field in schema:
            column = table.column(field.name)
            try:
                column.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as cexc:
                raise DataError(
                    f"{where}: column {field.name!r} is {column.type}, expected {field.type} "
                    f"({first_line(cexc)})"
                ) from None
        raise DataError(
            f"{where}: columns do not match the expected types ({first_line(exc)})"
        ) from None


class ParquetStreamWriter:
    """Write a Parquet file row group by row group, atomically (rename on successful close).

    Used by stages whose output is too large to hold in memory (mutants, validity).
    """

    def __init__(self, path: str | Path, schema: pa.Schema):
        self.path = Path(path)
        if schema.metadata and (ROWS_KEY in schema.metadata or DIGEST_KEY in schema.metadata):
            # another file's records (a schema read back): this file gets its own at close
            kept = {k: v for k, v in schema.metadata.items() if k not in (ROWS_KEY, DIGEST_KEY)}
            schema = schema.with_metadata(kept)
        self.schema = schema
        self._ctx = atomic_path(self.path)
        self._tmp = self._ctx.__enter__()
        try:
            self._writer = pq.ParquetWriter(
                self._tmp, schema, compression="zstd", write_page_checksum=True
            )
        except BaseException as exc:  # a stop during the open: no temporary file is left
            self._ctx.__exit__(type(exc), exc, exc.__traceback__)
            raise
        self.rows = 0

    def write(self, table_or_rows: pa.Table | list[dict]) -> None:
        if isinstance(table_or_rows, list):
            if not table_or_rows:
                return
            table = pa.Table.from_pylist(table_or_rows, schema=self.schema)
        else:
            table = conform(table_or_rows, self.schema, where=str(self.path))
        if table.num_rows:
            self._writer.write_table(table)
            self.rows += table.num_rows

    def close(self) -> None:
        self._writer.add_key_value_metadata(
            {ROWS_KEY: str(self.rows).encode(), DIGEST_KEY: _PLACEHOLDER}
        )
        self._writer.close()
        try:
            _seal(self._tmp)
        except BaseException as exc:
            self._ctx.__exit__(type(exc), exc, exc.__traceback__)
            raise
        self._ctx.__exit__(None, None, None)

    def abort(self, exc: BaseException) -> None:
        with contextlib.suppress(Exception):
            self._writer.close()
        # A writer interrupted mid-write (Ctrl-C) can fail to close. It must not try again when
        # collected: pyarrow's __del__ would print a traceback after the run's one-line message.
        self._writer.is_open = False
        with contextlib.suppress(Exception):
            if self._writer.file_handle is not None:
                self._writer.file_handle.close()
        self._ctx.__exit__(type(exc), exc, exc.__traceback__)

    def __enter__(self) -> ParquetStreamWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc is None:
            self.close()
        else:
            self.abort(exc)
