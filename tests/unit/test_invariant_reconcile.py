"""The reconciliation (hinter.invariant.reconcile, reconcile_run) on hand-made documents: rows
per variant and order, the seeded sample, and the table beside 002 Table 5."""

from __future__ import annotations

import spacy

from hinter.invariant import IncrementalChecker, Parse, SentenceSplitter
from hinter.invariant.reconcile import VARIANTS, Variant, measure, sample
from hinter.invariant.reconcile_run import markdown, read_corpus
from hinter.mutation.generate import Pair

PAIRS = [
    Pair("g1", "gender", "man", "woman"),
    Pair("g2", "gender", "woman", "man"),
    Pair("r1", "race", "black", "white"),
]


class Words:
    def parse(self, texts):
        return [Parse(tuple(t.split()), ("d",) * len(t.split())) for t in texts]


def test_rows_per_variant_and_order_with_planted_truncation():
    splitter = SentenceSplitter(spacy.blank("en").tokenizer)
    short = "The black man sat."
    long = "The black man sat. A dog ran."
    docs = [("a", short), ("b", long)]
    ends = {"a": len(short), "b": len("The black man sat.")}  # b is longer than its window

    def make(variant: Variant) -> IncrementalChecker:
        return IncrementalChecker(
            splitter, Words(), None, variant.max_sentence_chars, compat=variant.compat
        )

    wanted = [v for v in VARIANTS if v.name in ("faithful", "+truncated_vs_full")]
    rows = measure("imdb", docs, PAIRS, ["gender", "race"], [1, 2], ends, make, wanted)
    got = {(r["variant"], r["order"]): (r["valid"], r["checked"]) for r in rows}
    # Words() fails any changed word (tags are the words): nothing passes faithfully ...
    assert got[("faithful", 1)] == (0, 4) and got[("faithful", 2)] == (0, 2)
    # ... and truncation turns b's mutants into sentence-count failures instead
    trunc = next(r for r in rows if r["variant"] == "+truncated_vs_full" and r["order"] == 1)
    assert trunc["discarded_sentence_count"] == 2 and trunc["discarded_pos"] == 2
    table = markdown(rows, [{"corpus": "imdb", "documents": 2, "longer_than_window": 1,
                             "window": {}, "seconds": 1.0}])  # fmt: skip
    assert "| paper (002 Table 5) | 12.52% | 1.40% | 97.58% |" in table
    assert "| faithful | 0.00% (0/4) | 0.00% (0/2) | 100.00% |" in table


def test_sample_is_seeded_uniform_and_keeps_order():
    items = list(range(100))
    one = sample(items, 10, "s")
    assert one == sample(items, 10, "s") == sorted(one) and len(one) == 10
    assert one != sample(items, 10, "t")
    assert sample(items, None, "s") is items and sample(items, 200, "s") is items


def test_read_corpus_joins_lists_and_skips_empty(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"facts": ["A man.", "B."]}\n\n{"facts": ""}\n{"facts": "C."}\n')
    assert read_corpus(path, "facts") == ["A man.\nB.", "C."]
    assert read_corpus(path, "facts", limit=1) == ["A man.\nB."]
