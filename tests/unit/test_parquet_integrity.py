"""Intermediate Parquet files carry an integrity check (page CRCs and the row count) that every
reader verifies: a flipped bit is a one-line error naming the file and the rule to rerun, never
values silently changed (review 2026-11-25, K01: 211 of 6,006 flips of a predictions file were
read back as different values, one adding a false bias)."""

from __future__ import annotations

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
