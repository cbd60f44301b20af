"""Benchmark: the incremental, cached invariant against the paper's algorithm, same mutants.

The naive baseline is paper Alg. 3 as stated: for every mutant, split original and mutant and
parse every sentence of both (batched per mutant, no cache). Ours starts with an empty parse
cache. Verdicts must be identical on every mutant. Reported: time and speed-up, parses per
mutant, and parses per distinct changed sentence (the lower bound of the work, DESIGN §9).

    pytest tests/benchmarks/test_invariant_bench.py -m benchmark -s       # smoke (seconds)
    HINTER_BENCH_SCALE=full pytest tests/benchmarks/test_invariant_bench.py -m benchmark -s
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import inv_corpus as corpus
import pytest

from hinter import tables
from hinter.edits import apply_edits
from hinter.invariant import (
    IncrementalChecker,
    ParseCache,
    SentenceSplitter,
    SpacyParser,
    inv_check,
    load_pipeline,
)
from hinter.io import read_parquet

FULL = os.environ.get("HINTER_BENCH_SCALE", "smoke") == "full"
CAP = 500  # the paper's cap on a changed sentence


@dataclass(frozen=True)
class Scale:
    docs: int
    sentences: tuple[int, int]
    neutral: float
    max_inter: int


# demo-like: short documents full of dictionary words (as the demo's synthetic corpora);
# long: legal-length documents where most sentences carry no dictionary word.
SCALES = {
    "demo-like": Scale(160, (3, 7), 0.0, 12) if FULL else Scale(16, (3, 7), 0.0, 8),
    "long": Scale(24, (40, 80), 0.85, 24) if FULL else Scale(2, (40, 50), 0.85, 10),
}
# Speed-up required on multi-sentence documents (full scale; smoke is too small to time well).
TARGET = {"long": 50.0 if FULL else 10.0}


@pytest.fixture(scope="module")
def nlp(tmp_path_factory):
    # spaCy's default widths (96, depth 4), like the demo pipeline: a realistic parse cost.
    path = tmp_path_factory.mktemp("inv-bench") / "pipeline"
    return load_pipeline(corpus.build_pipeline(path, width=96, depth=4))


@pytest.mark.benchmark
@pytest.mark.parametrize("name", list(SCALES))
def test_incremental_against_naive(name, nlp, tmp_path):
    scale = SCALES[name]
    docs = corpus.corpus(scale.docs, scale.sentences, seed=11, neutral=scale.neutral)
    rows = corpus.mutants(docs, max_inter=scale.max_inter, seed=1)
    splitter = SentenceSplitter.for_pipeline(nlp)

    naive_parser = SpacyParser(nlp, "bench", batch_size=256)
    start = time.perf_counter()
    naive = [
        inv_check(
            docs[r["doc_id"]],
            apply_edits(docs[r["doc_id"]], r["edits"]),
            splitter.split,
            naive_parser.parse,
            CAP,
        )
        for r in rows
    ]
    naive_s = time.perf_counter() - start

    parser = SpacyParser(nlp, "bench", batch_size=256)
    start = time.perf_counter()
    with ParseCache(tmp_path / "parses.sqlite", "bench") as cache:
        checker = IncrementalChecker(splitter, parser, cache, CAP)
        ours = checker.check([(r["doc_id"], docs[r["doc_id"]], r["edits"]) for r in rows])
    ours_s = time.perf_counter() - start

    assert ours == naive, "verdicts differ"
    distinct = _distinct_changed_sentences(splitter, docs, rows)
    speedup = naive_s / ours_s
    n_sent = [len(splitter.split(t)) for t in docs.values()]
    seconds = checker.stats.seconds
    print(
        f"\n[invariant/{name}] {len(docs)} docs, {sum(n_sent) / len(n_sent):.1f} sentences/doc, "
        f"{len(rows)} mutants ({dict(Counter(v.reason for v in naive))})\n"
        f"  naive {naive_s:.2f} s, {naive_parser.parsed / len(rows):.1f} parses/mutant\n"
        f"  ours  {ours_s:.3f} s, {parser.parsed / len(rows):.2f} parses/mutant "
        f"(split {seconds['split']:.3f} s, parse {seconds['parse']:.3f} s)\n"
        f"  speed-up {speedup:.1f}x; parses {parser.parsed} / distinct changed sentences "
        f"{distinct} = {parser.parsed / max(distinct, 1):.3f}"
    )
    assert parser.parsed <= 1.1 * distinct
    if name in TARGET:
        assert speedup >= TARGET[name], f"speed-up {speedup:.1f}x below {TARGET[name]}x"


def _distinct_changed_sentences(splitter, docs, rows) -> int:
    """Distinct sentence texts (original or mutant side) of the changed pairs that Alg. 3 may
    have to compare: pairs of mutants whose sentence count is kept, within the cap."""
    texts = set()
    for r in rows:
        cs = splitter.split(docs[r["doc_id"]])
        ms = splitter.split(apply_edits(docs[r["doc_id"]], r["edits"]))
        if len(cs) == len(ms):
            for a, b in zip(cs, ms, strict=True):
                if a != b and max(len(a), len(b)) <= CAP:
                    texts.update((a, b))
    return len(texts)


DEMO_RUN = os.environ.get("HINTER_DEMO_RUN")


@pytest.mark.benchmark
@pytest.mark.skipif(not DEMO_RUN, reason="needs HINTER_DEMO_RUN=<workdir>/results/demo")
def test_demo_run_against_naive(tmp_path):
    """Every mutant of a finished demo run: the literal algorithm against the workflow's
    validity files, and the incremental checker (cold cache) against the literal algorithm."""
    run = Path(DEMO_RUN)
    nlp = load_pipeline(run / "parser" / "pipeline")
    splitter = SentenceSplitter.for_pipeline(nlp)
    docs, rows, recorded = {}, {}, {}  # keyed by dataset/doc_id and dataset/mutant_id
    for path in sorted((run / "mutants").glob("*/*/*/*.parquet")):
        track, dataset, suite, shard = path.relative_to(run / "mutants").with_suffix("").parts
        tested = read_parquet(run / "data" / dataset / "tested" / f"{shard}.parquet")
        for doc_id, text in zip(
            tested.column("doc_id").to_pylist(), tested.column("text").to_pylist(), strict=True
        ):
            docs[f"{dataset}/{doc_id}"] = text
        validity = run / "validity" / track / dataset / suite / f"{shard}.parquet"
        for row, v in zip(
            read_parquet(path, tables.MUTANTS).to_pylist(),
            read_parquet(validity, tables.VALIDITY).to_pylist(),
            strict=True,
        ):
            assert row["mutant_id"] == v["mutant_id"]
            key = f"{dataset}/{row['mutant_id']}"
            rows.setdefault(key, {**row, "doc_id": f"{dataset}/{row['doc_id']}", "key": key})
            recorded[key] = (v["valid"], v["reason"], v["sentence_index"])
    rows = sorted(rows.values(), key=lambda r: r["doc_id"])

    naive_parser = SpacyParser(nlp, "bench")
    start = time.perf_counter()
    naive = [
        inv_check(
            docs[r["doc_id"]],
            apply_edits(docs[r["doc_id"]], r["edits"]),
            splitter.split,
            naive_parser.parse,
            CAP,
        )
        for r in rows
    ]
    naive_s = time.perf_counter() - start
    parser = SpacyParser(nlp, "bench")
    start = time.perf_counter()
    with ParseCache(tmp_path / "parses.sqlite", "bench") as cache:
        checker = IncrementalChecker(splitter, parser, cache, CAP)
        ours = checker.check([(r["doc_id"], docs[r["doc_id"]], r["edits"]) for r in rows])
    ours_s = time.perf_counter() - start

    assert [tuple(v) for v in naive] == [recorded[r["key"]] for r in rows]
    assert ours == naive
    print(
        f"\n[invariant/demo run] {len(rows)} distinct mutants "
        f"({dict(Counter(v.reason for v in naive))})\n"
        f"  naive {naive_s:.2f} s, {naive_parser.parsed / len(rows):.1f} parses/mutant; "
        f"ours {ours_s:.2f} s, {parser.parsed / len(rows):.2f} parses/mutant; "
        f"speed-up {naive_s / ours_s:.1f}x"
    )
