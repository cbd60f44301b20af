"""hinter.store: the one SQLite store under every cache — rows validated on read (a damaged row
is a miss, computed again and replaced; every other key keeps its first writer's value), and a
file that is not a database is one line naming the cache and the fix."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from hinter.errors import DataError
from hinter.invariant.cache import ParseCache
from hinter.invariant.compare import Parse
from hinter.models.cache import JsonCodec, PredictionCache
from hinter.models.chat_openai import ResponseCache


def _corrupt(path, sql: str, *args) -> None:
    with sqlite3.connect(path) as db:
        db.execute(sql, args)


@pytest.mark.parametrize(
    "blob",
    [b"\x00\x00\x80\x7f\x00\x00\x80\x7f", b"\x00\x00", "text"],
    ids=["infinite", "short", "not-bytes"],
)
def test_damaged_logits_are_computed_again_and_replaced(tmp_path, blob, caplog):
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    cache.put({"t1": "i1", "t2": "i2"}, {"i1": [1.0, 2.0], "i2": [3.0, 4.0]})
    _corrupt(cache.path, "UPDATE outputs SET logits = ? WHERE ids_hash = 'i1'", blob)
    assert set(cache.get_logits(["i1", "i2"])) == {"i2"}  # a miss, not a crash
    assert "1 damaged prediction cache entry ignored" in caplog.text
    cache.put({}, {"i1": [5.0, 6.0], "i2": [9.0, 9.0]})
    got = cache.get_logits(["i1", "i2"])
    np.testing.assert_array_equal(got["i1"], [5.0, 6.0])  # the damaged row was replaced
    np.testing.assert_array_equal(got["i2"], [3.0, 4.0])  # a sound row keeps its first value


@pytest.mark.parametrize(
    "row",
    ['{"text": "A"', '["A"]', '{"text": 3}', '{"text": "A", "logprobs": [3.0], "token_ends": [1]}',
     '{"text": "A", "logprobs": [null], "token_ends": [1]}'],
)  # fmt: skip
def test_damaged_generations_are_generated_again(tmp_path, row):
    cache = PredictionCache(tmp_path, "g" * 64, codec=JsonCodec())
    good = {"text": "Answer: Positive.", "token_ends": [6, 7], "logprobs": [-0.1, 0.0]}
    cache.put({"t": "i"}, {"i": good})
    _corrupt(cache.path, "UPDATE outputs SET logits = ?", row.encode())
    assert cache.get_outputs(["i"]) == {}
    cache.put({}, {"i": good})
    assert cache.get_outputs(["i"]) == {"i": good}


def test_damaged_parses_are_parsed_again(tmp_path):
    path = tmp_path / "parses.sqlite"
    with ParseCache(path, "tiny") as cache:
        cache.put_many([("A man.", Parse(("DT", "NN"), ("det", "ROOT")))])
    _corrupt(path, "UPDATE parses SET tags = ?", json.dumps(["DT"]))  # lengths differ
    with ParseCache(path, "tiny") as cache:
        assert cache.get_many(["A man."]) == {}
        cache.put_many([("A man.", Parse(("DT", "NN"), ("det", "ROOT")))])
        assert cache.get_many(["A man."])["A man."].tags == ("DT", "NN")


@pytest.mark.parametrize("make", [
    lambda d: PredictionCache(d, "f" * 64, 2),
    lambda d: ResponseCache(d),
    lambda d: ParseCache(d / "parses.sqlite", "tiny"),
], ids=["prediction", "response", "parse"])  # fmt: skip
def test_a_file_that_is_not_a_database_is_one_line(tmp_path, make):
    cache = make(tmp_path)
    path = cache.path
    cache.close()
    path.write_bytes(b"not a database" * 300)
    with pytest.raises(DataError, match=r"\.sqlite: unusable .*cache .*delete the file") as info:
        make(tmp_path)
    assert "\n" not in str(info.value)


def _flip_in_file(path, old: bytes, new: bytes) -> None:
    """Replace the one occurrence of ``old`` in the SQLite file's bytes (a bit flip on disk:
    PRAGMA integrity_check still passes; the row stays well-formed)."""
    data = path.read_bytes()
    assert data.count(old) == 1, data.count(old)
    path.write_bytes(data.replace(old, new))


def test_a_flipped_logit_sign_is_caught_by_the_row_digest(tmp_path, caplog):
    """Review 2026-11-28 F01: the sign bit of one stored logit changed a prediction on the rerun
    (finite, the right size: the codec's checks passed)."""
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    logits = np.asarray([0.5, 3.25], dtype="<f4")
    cache.put({"t1": "i1"}, {"i1": logits})
    cache.close()
    flipped = logits.copy()
    flipped[1] = -flipped[1]
    _flip_in_file(
        tmp_path / "predictions" / f"{'f' * 40}.sqlite", logits.tobytes(), flipped.tobytes()
    )
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    assert cache.get_logits(["i1"]) == {}  # a miss: computed again, never the flipped value
    assert "1 damaged prediction cache entry ignored" in caplog.text
    cache.put({}, {"i1": logits})  # the recomputed value replaces the damaged row
    np.testing.assert_array_equal(cache.get_logits(["i1"])["i1"], logits)


def test_one_letter_changed_in_a_cached_response_is_fetched_again(tmp_path, caplog):
    """Review 2026-11-28 F02: 'Answer: Negative.' → 'Answer: Oegative.' in the response cache was
    a well-formed response, read as no_answer (0 requests sent)."""
    cache = ResponseCache(tmp_path)
    response = {"choices": [{"message": {"content": "Answer: Negative."}}], "usage": {}}
    cache.put("k1", "gpt", response)
    cache.put("k2", "gpt", {**response, "id": "second"})
    assert cache.get("k1") == response and cache.has(["k1", "k2"]) == {"k1", "k2"}
    cache.close()
    path = tmp_path / "api" / "responses.sqlite"
    data = path.read_bytes()
    at = data.index(b"Answer: Negative.")  # k1's row or k2's: one of them
    path.write_bytes(data[:at] + b"Answer: Oegative." + data[at + 17 :])
    cache = ResponseCache(tmp_path)
    got = {k: cache.get(k) for k in ("k1", "k2")}
    assert list(got.values()).count(None) == 1  # the damaged row is missing, not 'Oegative'
    assert all(v is None or "Oegative" not in json.dumps(v) for v in got.values())
    assert "damaged response cache entry ignored" in caplog.text
    damaged = next(k for k, v in got.items() if v is None)
    cache.put(damaged, "gpt", response)  # fetched again: replaces the damaged row
    assert cache.get(damaged) == response


def test_rows_written_before_the_digest_are_read_as_before(tmp_path):
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    cache.close()
    _corrupt(
        cache.path, "INSERT INTO outputs VALUES ('old', ?)", np.asarray([1, 2], "<f4").tobytes()
    )
    cache = PredictionCache(tmp_path, "f" * 64, 2)
    cache.put({}, {"new": [3.0, 4.0]})  # adds the digest column; the old row has none
    assert set(cache.get_logits(["old", "new"])) == {"old", "new"}
