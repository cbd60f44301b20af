"""The incremental checker gives the literal algorithm's verdicts, with fewer parses and a cache.

Parses come from spaCy's real en_core_web_sm 3.8.0, loaded once.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import Counter

import inv_corpus as corpus
import pytest

from hinter.edits import Edit, apply_edits
from hinter.errors import DataError
from hinter.invariant import (
    IncrementalChecker,
    ParseCache,
    SentenceSplitter,
    SpacyParser,
    inv_check,
)
from hinter.invariant import parse as parse_module


@pytest.fixture(scope="module")
def nlp():
    return corpus.real_pipeline()


@pytest.fixture(scope="module")
def docs():
    return corpus.corpus(12, (2, 7), seed=3)


@pytest.fixture(scope="module")
def rows(docs):
    return corpus.mutants(docs, max_inter=8) + corpus.nasty_mutants(docs, 6, seed=5)


class CountingParser(SpacyParser):
    def __init__(self, nlp):
        super().__init__(nlp, "tiny", batch_size=64)
        self.texts: list[str] = []

    def parse(self, texts):
        self.texts.extend(texts)
        return super().parse(texts)


def naive_verdicts(nlp, docs, rows, cap):
    split = SentenceSplitter.for_pipeline(nlp).split
    parser = SpacyParser(nlp, "tiny")
    return [
        inv_check(
            docs[r["doc_id"]], apply_edits(docs[r["doc_id"]], r["edits"]), split, parser.parse, cap
        )
        for r in rows
    ]


def items(docs, rows):
    return [(r["doc_id"], docs[r["doc_id"]], r["edits"]) for r in rows]


@pytest.mark.parametrize("cap", [None, 40])
def test_incremental_equals_the_literal_algorithm_on_every_mutant(nlp, docs, rows, cap):
    expected = naive_verdicts(nlp, docs, rows, cap)
    checker = IncrementalChecker(SentenceSplitter.for_pipeline(nlp), CountingParser(nlp), None, cap)
    assert checker.check(items(docs, rows)) == expected
    reasons = Counter(v.reason for v in expected)
    # The corpus exercises every outcome (otherwise this test could not fail for them).
    assert {"ok", "pos", "sentence_count"} <= set(reasons)
    if cap is not None:
        assert reasons["too_long"] > 0


def test_each_distinct_changed_sentence_is_parsed_at_most_once(nlp, docs, rows):
    parser = CountingParser(nlp)
    splitter = SentenceSplitter.for_pipeline(nlp)
    checker = IncrementalChecker(splitter, parser)
    checker.check(items(docs, rows))
    assert len(parser.texts) == len(set(parser.texts)) == checker.stats.parsed
    changed = set()
    for r in rows:
        cs = splitter.split(docs[r["doc_id"]])
        ms = splitter.split(apply_edits(docs[r["doc_id"]], r["edits"]))
        if len(cs) == len(ms):
            changed |= {s for a, b in zip(cs, ms, strict=True) if a != b for s in (a, b)}
    assert set(parser.texts) <= changed
    assert checker.stats.parsed < sum(2 * len(splitter.split(docs[r["doc_id"]])) for r in rows)


def test_an_intersectional_mutant_in_different_sentences_needs_no_parse(nlp):
    text = "The man left early! The British doctor saw his dog."
    man = corpus.atomic_edits(text, "man", "woman")
    british = corpus.atomic_edits(text, "British", "Pakistani")
    parser = CountingParser(nlp)
    checker = IncrementalChecker(SentenceSplitter.for_pipeline(nlp), parser)
    parents = checker.check([("d", text, man), ("d", text, british)])
    parsed = len(parser.texts)
    assert parsed == 4  # two original sentences, two changed ones
    (inter,) = checker.check([("d", text, sorted(man + british))])
    assert len(parser.texts) == parsed
    assert inter.valid == all(p.valid for p in parents)
    split = SentenceSplitter.for_pipeline(nlp).split
    mutant = apply_edits(text, sorted(man + british))
    assert inter == inv_check(text, mutant, split, SpacyParser(nlp, "x").parse)


def test_the_parse_cache_makes_a_rerun_parse_nothing(nlp, docs, rows, tmp_path):
    splitter = SentenceSplitter.for_pipeline(nlp)
    with ParseCache(tmp_path / "parses.sqlite", "tiny") as cache:
        first = IncrementalChecker(splitter, CountingParser(nlp), cache)
        verdicts = first.check(items(docs, rows))
    assert first.stats.parsed > 0
    with ParseCache(tmp_path / "parses.sqlite", "tiny") as cache:
        second = IncrementalChecker(splitter, CountingParser(nlp), cache)
        assert second.check(items(docs, rows)) == verdicts
    assert second.stats.parsed == 0
    assert second.stats.cache_hits == first.stats.parsed
    with ParseCache(tmp_path / "parses.sqlite", "another-pipeline") as cache:
        other = IncrementalChecker(splitter, CountingParser(nlp), cache)
        other.check(items(docs, rows))
    assert other.stats.parsed == first.stats.parsed


def test_the_cache_holds_json_strings(nlp, tmp_path):
    parse = SpacyParser(nlp, "tiny").parse(["The man left early!"])[0]
    with ParseCache(tmp_path / "c.sqlite", "tiny") as cache:
        cache.put_many([("The man left early!", parse)])
        assert cache.get_many(["The man left early!", "Unknown."]) == {"The man left early!": parse}
    db = sqlite3.connect(tmp_path / "c.sqlite")
    ((mode,),) = db.execute("PRAGMA journal_mode").fetchall()
    ((tags, deps),) = db.execute("SELECT tags, deps FROM parses").fetchall()
    assert mode == "wal"
    assert tuple(json.loads(tags)) == parse.tags
    assert tuple(json.loads(deps)) == parse.deps


def test_a_corrupt_cache_is_a_one_line_error(tmp_path):
    path = tmp_path / "parses.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(DataError, match="delete the file"):
        ParseCache(path, "tiny")


def test_bounded_memos_give_the_same_verdicts(nlp, docs, rows):
    splitter = SentenceSplitter.for_pipeline(nlp)
    expected = IncrementalChecker(splitter, CountingParser(nlp)).check(items(docs, rows))
    small = IncrementalChecker(splitter, CountingParser(nlp), memo_limit=3)
    assert small.check(items(docs, rows)) == expected


def test_worker_processes_give_the_same_parses(nlp, monkeypatch):
    texts = [corpus.sentence(random.Random(i)) for i in range(40)]
    expected = SpacyParser(nlp, "tiny").parse(texts)
    monkeypatch.setattr(parse_module, "_MIN_TEXTS_PER_PROCESS", 10)
    assert SpacyParser(nlp, "tiny", batch_size=8, n_process=2).parse(texts) == expected


def test_unchanged_mutants_are_valid_without_work(nlp):
    checker = IncrementalChecker(SentenceSplitter.for_pipeline(nlp), CountingParser(nlp))
    text = "The man left early!"
    (verdict,) = checker.check([("d", text, [Edit(4, 7, "man")])])
    assert verdict.valid
    assert checker.stats.parsed == 0
