"""Benchmark and sweeps of the integrity checks (review 2026-11-28 K01, F01-F04, A11).

- every bit of a realistic predictions file flipped, for both Parquet writers: each read is an
  error or the values as written (the unit test flips one bit per byte of a small file);
- the cost of the whole-file digest: writing and reading a predictions file with the digest
  against the same file written and read without it (the page CRCs and row count kept);
- the cost of the row digests of the prediction cache;
- two ``BiasTest`` built at once in a fresh process (the first import of transformers raced).

    pytest tests/benchmarks/test_integrity_bench.py -m benchmark -s        # smoke (a minute)
    HINTER_BENCH_SCALE=full pytest tests/benchmarks/test_integrity_bench.py -m benchmark -s
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hinter import io, tables
from hinter.models.cache import PredictionCache

pytestmark = pytest.mark.benchmark

FULL = os.environ.get("HINTER_BENCH_SCALE", "smoke") == "full"
SWEEP_ROWS = 23  # the review's file: 23 predictions (6,243 bytes)
ROWS = 1_000_000 if FULL else 100_000  # predictions of the cost measurement
REPEATS = 7

sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
from test_parquet_integrity import _predictions, flip_sweep  # noqa: E402


@pytest.mark.parametrize("writer", ["write_parquet", "stream"])
def test_every_bit_of_a_predictions_file(tmp_path, writer):
    path = tmp_path / "predictions" / "m" / "default" / "imdb" / "000.parquet"
    original = _predictions(SWEEP_ROWS)
    if writer == "stream":
        with io.ParquetStreamWriter(path, tables.PREDICTIONS) as out:
            out.write(original.slice(0, 10))
            out.write(original.slice(10))
    else:
        io.write_parquet(original, path, tables.PREDICTIONS)
    size = path.stat().st_size
    start = time.perf_counter()
    counts = flip_sweep(path, tables.PREDICTIONS, original, bits=range(8), stream=FULL)
    print(
        f"\nflip sweep ({writer}): {size} bytes, {8 * size} flips: {counts['error']} errors, "
        f"{counts['same']} unchanged, 0 changed ({time.perf_counter() - start:.1f} s)"
    )
    assert counts["error"] + counts["same"] == 8 * size


def _realistic(rows: int) -> pa.Table:
    rng = np.random.default_rng(0)
    scores = rng.random((rows, 2), dtype=np.float32)
    return pa.table(
        {
            "text_id": [f"{i:020x}" for i in rng.integers(0, 2**63, rows)],
            "kind": pa.array(np.where(rng.random(rows) < 0.05, "original", "mutant")),
            "labels": pa.array([[int(a > b)] for a, b in scores], type=pa.list_(pa.int32())),
            "scores": pa.array(list(scores), type=pa.list_(pa.float32())),
            "confidence": pa.array(scores.max(axis=1)),
            "status": pa.array(["ok"] * rows),
            "answer": pa.array([None] * rows, type=pa.string()),
            "answer_status": pa.array([None] * rows, type=pa.string()),
        }
    )


def _best(fn) -> float:
    """The least CPU time of a few calls (CPU time: the test machine is shared)."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def test_the_digest_costs_little(tmp_path, monkeypatch):
    """The same writer and readers with the digest's two steps (sealing after the write,
    checking before the read) and without them."""
    table = io.conform(_realistic(ROWS), tables.PREDICTIONS, "bench")
    path = tmp_path / "predictions.parquet"

    def write():
        io.write_parquet(table, path, tables.PREDICTIONS)

    def read():
        return io.read_parquet(path, tables.PREDICTIONS)

    def stream():
        return sum(t.num_rows for t in io.iter_batches(path, schema=tables.PREDICTIONS))

    ours = [_best(write), _best(read), _best(stream)]
    assert read().equals(table)
    digest = _best(lambda: io.verify_digest(path, pq.ParquetFile(path).metadata))
    monkeypatch.setattr(io, "_seal", lambda tmp: None)
    monkeypatch.setattr(io, "verify_digest", lambda *a, **k: None)
    plain = [_best(write), _best(read), _best(stream)]
    write_x, read_x, stream_x = (a / b for a, b in zip(ours, plain, strict=True))
    print(
        f"\ndigest cost on {ROWS:,} predictions ({path.stat().st_size / 1e6:.1f} MB), CPU time: "
        f"write x{write_x:.2f}, read x{read_x:.2f}, streamed read x{stream_x:.2f} of the same "
        f"without the digest; checking the digest alone {1000 * digest:.0f} ms"
    )
    assert write_x < 1.5 and read_x < 1.5


def test_the_row_digests_cost_little(tmp_path):
    n = 20_000 if FULL else 5_000
    rng = np.random.default_rng(1)
    outputs = {f"{i:032x}": rng.random(2, dtype=np.float32) for i in range(n)}
    cache = PredictionCache(tmp_path / "ours", "f" * 64, 2)
    start = time.perf_counter()
    cache.put({}, outputs)
    got = cache.get_logits(outputs)
    ours = time.perf_counter() - start
    assert len(got) == n
    # the same rows through SQLite without the digest column
    import sqlite3

    db = sqlite3.connect(tmp_path / "plain.sqlite", isolation_level=None)
    db.execute("CREATE TABLE outputs (ids_hash TEXT PRIMARY KEY, logits BLOB) WITHOUT ROWID")
    start = time.perf_counter()
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO outputs VALUES (?, ?)", [(k, v.tobytes()) for k, v in outputs.items()]
    )
    db.execute("COMMIT")
    keys = list(outputs)
    rows = []
    for i in range(0, n, 500):
        part = keys[i : i + 500]
        rows += db.execute(
            f"SELECT ids_hash, logits FROM outputs WHERE ids_hash IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
    plain = time.perf_counter() - start
    print(f"\nprediction cache, {n:,} rows put and read: x{ours / plain:.2f} of plain SQLite")


def test_two_bias_tests_built_at_once_in_a_fresh_process(tmp_path):
    """A11: the first ``from transformers import …`` of two threads raced (ImportError, 2 of 2)."""
    from cli_inputs import make_classifier

    tiny = make_classifier(tmp_path / "model")
    script = textwrap.dedent(
        f"""
        import sys, threading
        sys.path.insert(0, {str(Path(__file__).parents[1] / "support")!r})
        from cli_inputs import TEXTS
        from hinter.api import BiasTest
        errors, plans = [], []
        def build(i):
            try:
                t = BiasTest({str(tiny)!r}, TEXTS[:3], out={str(tmp_path)!r} + f"/out{{i}}",
                             invariant=False, attributes=["race", "gender"])
                plans.append(t.plan.docs.num_rows)
            except Exception as exc:
                errors.append(repr(exc))
        threads = [threading.Thread(target=build, args=(i,)) for i in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print(errors, plans)
        sys.exit(1 if errors else 0)
        """
    )
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
        assert "[3, 3]" in proc.stdout


def _flip_every_bit(path: Path, spans, check) -> dict[str, int]:
    """Flip every bit of the byte ``spans`` of ``path`` in place; ``check()`` after each flip
    returns 'error', 'miss' or 'same' (and fails on a changed value)."""
    data = path.read_bytes()
    counts: dict[str, int] = {}
    fd = os.open(path, os.O_RDWR)
    try:
        for start, end in spans:
            for byte in range(start, end):
                for bit in range(8):
                    os.pwrite(fd, bytes([data[byte] ^ (1 << bit)]), byte)
                    outcome = check()
                    counts[outcome] = counts.get(outcome, 0) + 1
                    os.pwrite(fd, data[byte : byte + 1], byte)
    finally:
        os.close(fd)
    return counts


def test_every_bit_of_the_cached_rows(tmp_path):
    """F01 and F02 re-run as sweeps: every bit of every stored logit and key of a prediction
    cache, every bit of every cached answer of a response cache. A flipped row is a miss
    (computed or fetched again), never a changed value."""
    from hinter.errors import DataError
    from hinter.models.chat_openai import ResponseCache

    rng = np.random.default_rng(2)
    outputs = {f"{i:032x}": rng.normal(size=2).astype(np.float32) for i in range(40)}
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    cache.put({}, outputs)
    cache.close()
    path = cache.path
    data = path.read_bytes()
    spans = []
    for key, value in outputs.items():
        for needle in (value.astype("<f4").tobytes(), key.encode()):
            at = data.find(needle)
            if at >= 0:
                spans.append((at, at + len(needle)))

    def check_logits():
        try:
            c = PredictionCache(tmp_path, "f" * 64, 2)
            got = c.get_logits(outputs)
            c.close()
        except DataError:
            return "error"
        for key, value in got.items():
            assert np.array_equal(value, outputs[key]), key
        return "same" if len(got) == len(outputs) else "miss"

    logits = _flip_every_bit(path, spans, check_logits)
    responses = {
        f"k{i}": {
            "choices": [{"message": {"content": f"Answer: {'Negative' if i % 2 else 'Positive'}."}}]
        }
        for i in range(20)
    }
    rcache = ResponseCache(tmp_path)
    for key, response in responses.items():
        rcache.put(key, "gpt", response)
    rcache.close()
    rpath = tmp_path / "api" / "responses.sqlite"
    data = rpath.read_bytes()
    spans = []
    start = 0
    while (at := data.find(b"Answer: ", start)) >= 0:
        spans.append((at, at + 17))
        start = at + 1

    def check_responses():
        try:
            c = ResponseCache(tmp_path)
            got = {k: c.get(k) for k in responses}
            c.close()
        except DataError:
            return "error"
        for key, value in got.items():
            assert value is None or value == responses[key], (key, value)
        return "same" if all(v is not None for v in got.values()) else "miss"

    answers = _flip_every_bit(rpath, spans, check_responses)
    print(f"\nprediction cache, every bit of 40 logit pairs and keys: {logits}")
    print(f"response cache, every bit of 20 answers: {answers}")
    assert "same" not in logits or logits["same"] < sum(logits.values()) * 0.01
    assert answers.get("same", 0) == 0


def test_every_bit_of_a_meta_json(tmp_path):
    """F03 as a sweep: every bit of a data folder's meta.json is an error or the same content."""
    from hinter.errors import DataError

    meta = {
        "dataset": "imdb", "display_names": ["Negative", "Positive"], "label_names": ["neg", "pos"],
        "n_labels": 2, "rows": {"test": 25000, "train": 25000}, "task_type": "multi_class",
        "source": {"repo": "stanfordnlp/imdb", "revision": "e6281661ce1c48d982bc483cf8a1"},
    }  # fmt: skip
    path = tmp_path / "data" / "imdb" / "meta.json"
    io.write_json(path, meta)

    def check():
        try:
            got = io.read_json(path)
        except DataError:
            return "error"
        assert got == meta
        return "same"

    counts = _flip_every_bit(path, [(0, path.stat().st_size)], check)
    print(f"\nmeta.json, {path.stat().st_size} bytes, every bit: {counts}")
