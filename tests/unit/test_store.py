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
