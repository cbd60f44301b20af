"""Intermediate Parquet files carry an integrity check (page CRCs and the row count) that every
reader verifies: a flipped bit is a one-line error naming the file and the rule to rerun, never
values silently changed (review 2026-11-25, K01: 211 of 6,006 flips of a predictions file were
read back as different values, one adding a false bias)."""

from __future__ import annotations

import contextlib
import os
import random

import pyarrow as pa
import pytest

from hinter import io, tables
from hinter.dictionary.sbic import MENTIONS
from hinter.errors import DataError
from hinter.grammar.stage import SCORES
from hinter.rq.examples import EXAMPLES

# every intermediate kind a later rule reads, by the results folder of its writer
KINDS = {
    "data/imdb/test.parquet": tables.DOCUMENTS,
    "data/imdb/tested.parquet": tables.TESTED_DOCUMENTS,
    "dictionary/pairs.parquet": tables.PAIRS,
    "dictionary/windows.parquet": tables.WINDOWS,
    "mutants/enc/imdb/atomic-race/000.parquet": tables.MUTANTS,
    "validity/enc/imdb/atomic-race/000.parquet": tables.VALIDITY,
    "predictions/m/default/imdb/000.parquet": tables.PREDICTIONS,
    "outcomes/m/default/imdb/atomic-race.parquet": tables.OUTCOMES,
    "grammar/imdb/scores.parquet": SCORES,
    "examples/m/imdb/hidden.parquet": EXAMPLES,
    "dictionary/mentions.parquet": MENTIONS,
}
WRITER = {"predictions": "rule predict", "outcomes": "rule outcomes", "mutants": "rule mutate"}


def _value(kind: pa.DataType, i: int):
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return f"v{i}-" + "abc"[i % 3] * (i % 5)
    if pa.types.is_boolean(kind):
        return i % 2 == 0
    if pa.types.is_integer(kind):
        return i % 7
    if pa.types.is_floating(kind):
        return 0.25 + i / 64
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return [_value(kind.value_type, i + k) for k in range(i % 3)]
    if pa.types.is_struct(kind):
        return {f.name: _value(f.type, i) for f in kind}
    raise AssertionError(f"no test value for {kind}")


def _table(schema: pa.Schema, rows: int = 24) -> pa.Table:
    data = [{f.name: _value(f.type, i) for f in schema} for i in range(rows)]
    return pa.Table.from_pylist(data, schema=schema)


def _screen(path, schema, original, rng) -> tuple[int, int]:
    """Flip sampled single bits of ``path``; (errors, unchanged reads) — never a silent change."""
    data = path.read_bytes()
    errors = same = 0
    for byte in rng.sample(range(len(data)), min(len(data), 60)):
        flipped = bytearray(data)
        flipped[byte] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(flipped))
        try:
            table = io.read_parquet(path, schema)
            streamed = pa.concat_tables(list(io.iter_batches(path, schema=schema, batch_size=5)))
        except DataError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc)
            errors += 1
            continue
        assert table.equals(original) and streamed.equals(original), f"byte {byte} read silently"
        same += 1
    path.write_bytes(data)
    return errors, same


@pytest.mark.parametrize("name", sorted(KINDS))
@pytest.mark.parametrize("writer", ["write_parquet", "stream"])
def test_a_flipped_bit_in_any_intermediate_is_detected(tmp_path, name, writer):
    schema = KINDS[name]
    path = tmp_path / "results" / "run" / name
    original = _table(schema)
    if writer == "stream":
        with io.ParquetStreamWriter(path, schema) as out:
            out.write(original.slice(0, 10))
            out.write(original.slice(10))
    else:
        io.write_parquet(original, path, schema, row_group_size=10)
    assert io.read_parquet(path, schema).equals(original)
    if writer == "write_parquet":  # a sample of every byte: an error or the same values
        errors, _ = _screen(path, schema, original, random.Random(name))
        assert errors > 0
    # the last byte of a column chunk, inside its last page's values: the page checksum names
    # the damage and the rule to rerun
    column = io.pq.ParquetFile(path).metadata.row_group(0).column(0)
    start = column.dictionary_page_offset or column.data_page_offset
    data = bytearray(path.read_bytes())
    data[start + column.total_compressed_size - 1] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match="damaged file") as info:
        io.read_parquet(path, schema)
    folder = name.split("/")[0]
    if folder in WRITER:
        assert f"rerun {WRITER[folder]}" in str(info.value)


def test_files_without_the_check_are_still_read(tmp_path):
    """Files written before the check (no page CRCs, no row count) read as before."""
    original = _table(tables.VALIDITY)
    path = tmp_path / "old.parquet"
    io.pq.write_table(original, path)
    assert io.read_parquet(path, tables.VALIDITY).equals(original)


def _predictions(rows: int) -> pa.Table:
    """A predictions table as the predict stage writes it (ids, labels, scores, answers)."""
    return pa.Table.from_pylist(
        [
            {
                "text_id": f"test-{i:06d}" if i % 2 else f"b891e41b4ae9c881{i:04d}",
                "kind": "original" if i % 2 else "mutant",
                "labels": [i % 2],
                "scores": [0.25 + i / 64, 0.75 - i / 64],
                "confidence": 0.75 - i / 64,
                "status": "ok",
                "answer": "Answer: Negative." if i % 3 else None,
                "answer_status": "answer",
            }
            for i in range(rows)
        ],
        schema=tables.PREDICTIONS,
    )


def flip_sweep(path, schema, original, bits=None, stream=False) -> dict[str, int]:
    """Flip every byte of ``path`` (one bit each: ``bits`` picks which, default byte % 8) and
    read it back (and streamed, with ``stream``); count errors and unchanged reads — a changed
    read fails."""
    data = path.read_bytes()
    counts = {"error": 0, "same": 0}
    fd = os.open(path, os.O_RDWR)  # flipped in place: a rewrite per flip is slow on overlays
    try:
        for byte in range(len(data)):
            for bit in bits or (byte % 8,):
                os.pwrite(fd, bytes([data[byte] ^ (1 << bit)]), byte)
                try:
                    table = io.read_parquet(path, schema)
                    parts = (
                        list(io.iter_batches(path, schema=schema, batch_size=4)) if stream else []
                    )
                except DataError as exc:
                    assert "\n" not in str(exc) and str(path) in str(exc), exc
                    counts["error"] += 1
                    os.pwrite(fd, data[byte : byte + 1], byte)
                    continue
                assert table.equals(original), f"byte {byte} bit {bit} changed the values"
                if stream:
                    streamed = pa.concat_tables(parts) if parts else schema.empty_table()
                    assert streamed.equals(original), f"byte {byte} bit {bit} changed the stream"
                counts["same"] += 1
                os.pwrite(fd, data[byte : byte + 1], byte)
    finally:
        os.close(fd)
        path.write_bytes(data)
    return counts


@pytest.mark.parametrize("writer", ["write_parquet", "stream"])
def test_every_byte_of_a_predictions_file_flipped_is_an_error_or_nothing(tmp_path, writer):
    """Review 2026-11-28 K01/F04: a flipped bit in a page header (which no page CRC covers)
    shifted text ids silently. The whole-file SHA-256 covers every byte: page headers, the
    footer, the digest itself (every bit of a larger file: tests/benchmarks/test_flip_sweep.py)."""
    path = tmp_path / "results" / "run" / "predictions" / "m" / "default" / "imdb" / "000.parquet"
    original = _predictions(3)
    if writer == "stream":
        with io.ParquetStreamWriter(path, tables.PREDICTIONS) as out:
            out.write(original)
    else:
        io.write_parquet(original, path, tables.PREDICTIONS)
    counts = flip_sweep(path, tables.PREDICTIONS, original, stream=True)
    # only a flip that leaves the values as written can read back (a flip in the digest's own
    # key name, which makes the file one without a digest)
    assert counts["error"] > 0.97 * sum(counts.values()), counts


def test_the_digest_is_the_whole_files_and_written_files_are_byte_stable(tmp_path):
    original = _predictions(4)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    io.write_parquet(original, a, tables.PREDICTIONS)
    io.write_parquet(original, b, tables.PREDICTIONS)
    assert a.read_bytes() == b.read_bytes()  # deterministic, digest included
    data = a.read_bytes()
    recorded = io.pq.ParquetFile(a).metadata.metadata[io.DIGEST_KEY]
    import hashlib

    assert hashlib.sha256(data.replace(recorded, b"-" * 64)).hexdigest().encode() == recorded
    # a file copied by another program with its bytes intact still reads
    (tmp_path / "copy.parquet").write_bytes(data)
    assert io.read_parquet(tmp_path / "copy.parquet", tables.PREDICTIONS).equals(original)


def test_a_changed_json_sidecar_is_a_one_line_error(tmp_path):
    """Review 2026-11-28 F03: one bit in meta.json's label names re-sent paid requests with
    another prompt. A sidecar written by hinter carries its digest; read_json checks it."""
    path = tmp_path / "results" / "r" / "data" / "imdb" / "meta.json"
    meta = {"display_names": ["Negative", "Positive"], "n": 4, "x": [1.5, None]}
    io.write_json(path, meta)
    assert io.read_json(path) == meta  # the digest key is removed on read
    text = path.read_text()
    path.write_text(text.replace("Negative", "Oegative"))
    with pytest.raises(DataError, match=r"meta\.json: damaged file .*SHA-256") as info:
        io.read_json(path)
    assert "\n" not in str(info.value)
    # every byte flipped: an error, or the same content (a flip in whitespace)
    data = text.encode()
    for byte in range(len(data)):
        flipped = bytearray(data)
        flipped[byte] ^= 1 << (byte % 8)
        path.write_bytes(bytes(flipped))
        with contextlib.suppress(DataError):
            assert io.read_json(path) == meta, f"byte {byte} changed the content"
    # a JSON file written by another program (no digest) reads as it is
    path.write_text('{"a": 1}')
    assert io.read_json(path) == {"a": 1}
