"""One suite over one shard: Parquet in and out, caps, parents, stats, summary, bad input."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hinter import io, tables
from hinter.edits import apply_edits, mutant_id
from hinter.errors import DataError
from hinter.mutation import (
    Options,
    WordWindow,
    mutant_texts,
    mutate_job,
    mutate_shard,
    shard_share,
    write_summary,
)
from hinter.plan import Suite

PAIRS = [
    ("r1", "race", "european", "african", "british", "pakistani"),
    ("r2", "race", "european", "asian", "british", "chinese"),
    ("r3", "race", "european", "african", "german", "nigerian"),
    ("g1", "gender", "male", "female", "man", "woman"),
    ("g2", "gender", "male", "female", "he", "she"),
    ("g3", "gender", "neutral", "female", "people", "trans women"),
    ("b1", "body", "common", "disorder", "people", "people with mental disorder"),
    ("b2", "body", "common", "old", "man", "old man"),
    ("b3", "body", "common", "uncommon", "fat", "thin"),
]

DOCS = [
    ("d0", "The British man said he likes people.", [0]),
    ("d1", "A German man and a fat man. He is British.", [1]),
    ("d2", "", [0]),
    ("d3", None, [1]),
    ("d4", "Nothing to see here.", [0]),
    ("d5", "   ", [1]),
    ("d6", "People: he, HE and He. German people, fat British people!", [0]),
]


@pytest.fixture
def pairs_path(tmp_path):
    columns = list(zip(*[(*p, "test") for p in PAIRS], strict=True))
    table = pa.table(dict(zip(tables.PAIRS.names, columns, strict=True)), schema=tables.PAIRS)
    path = tmp_path / "pairs.parquet"
    io.write_parquet(table, path, tables.PAIRS)
    return path


def write_docs(path, docs):
    table = pa.table(
        {
            "doc_id": [d[0] for d in docs],
            "split": ["test"] * len(docs),
            "position": list(range(len(docs))),
            "text": [d[1] for d in docs],
            "labels": [d[2] for d in docs],
        },
        schema=tables.TESTED_DOCUMENTS,
    )
    io.write_parquet(table, path, tables.TESTED_DOCUMENTS)
    return path


@pytest.fixture
def docs_path(tmp_path):
    return write_docs(tmp_path / "000.parquet", DOCS)


def run(tmp_path, docs_path, pairs_path, attributes, name="out", **options):
    out = tmp_path / f"{name}.parquet"
    stats_path = tmp_path / f"{name}.json"
    stats = mutate_shard(
        docs_path,
        pairs_path,
        out,
        stats_path,
        attributes=attributes,
        window=options.pop("window", None),
        options=Options(**options),
        row_group_rows=options.pop("row_group_rows", 3),
    )
    assert io.read_json(stats_path) == stats  # the JSON as written, its digest checked
    return io.read_parquet(out, tables.MUTANTS).to_pylist(), stats, out


def test_atomic_suite(tmp_path, docs_path, pairs_path):
    rows, stats, _ = run(tmp_path, docs_path, pairs_path, ["gender"])
    assert {r["role"] for r in rows} == {"mutant"}
    assert all(r["order"] == 1 and r["parent_ids"] == [] for r in rows)
    assert all(r["mutant_id"] == mutant_id(r["doc_id"], r["edits"]) for r in rows)
    # d0: man → woman, he → she, people → trans women
    assert Counter(r["doc_id"] for r in rows) == {"d0": 3, "d1": 2, "d6": 2}
    assert stats["skipped_texts"] == {"empty": 2, "missing": 1, "non_string": 0}
    assert stats["documents"] == 7
    assert stats["documents_with_mutants"] == 3
    assert stats["generated"] == stats["written"] == 7
    texts = {r["mutant_id"]: t for r, t in mutant_texts(tmp_path / "out.parquet", docs_path)}
    d6 = [texts[r["mutant_id"]] for r in rows if r["doc_id"] == "d6" and r["pair_ids"] == ["g2"]]
    assert d6 == ["People: she, SHE and She. German people, fat British people!"]


def test_intersectional_suite_is_self_contained(tmp_path, docs_path, pairs_path):
    rows, stats, _ = run(tmp_path, docs_path, pairs_path, ["gender", "race"])
    by_id = {r["mutant_id"]: r for r in rows}
    members = [r for r in rows if r["role"] == "mutant"]
    parents = [r for r in rows if r["role"] == "parent"]
    assert members and parents
    assert stats["written"] == len(members) and stats["parents"] == len(parents)
    atomic, _, _ = run(tmp_path, docs_path, pairs_path, ["race"], name="race")
    atomic_ids = {r["mutant_id"] for r in atomic}
    for m in members:
        assert m["attributes"] == ["race", "gender"]  # the suite name's order: inter-race+gender
        assert m["order"] == 2
        assert len(m["parent_ids"]) == 2
        for pid, attribute, pair_id in zip(
            m["parent_ids"], m["attributes"], m["pair_ids"], strict=True
        ):
            parent = by_id[pid]
            assert parent["role"] == "parent" and parent["doc_id"] == m["doc_id"]
            assert parent["attributes"] == [attribute] and parent["pair_ids"] == [pair_id]
        assert sorted(m["edits"], key=lambda e: e["start"]) == sorted(
            (e for pid in m["parent_ids"] for e in by_id[pid]["edits"]), key=lambda e: e["start"]
        )
    assert {p["mutant_id"] for p in parents if p["attributes"] == ["race"]} <= atomic_ids
    # parents come once per document, after that document's mutants
    assert len({(p["doc_id"], p["mutant_id"]) for p in parents}) == len(parents)
    docs_in_order = [r["doc_id"] for r in rows]
    assert docs_in_order == sorted(docs_in_order, key=lambda d: int(d[1:]))


def test_overlaps_are_skipped_and_counted(tmp_path, docs_path, pairs_path):
    _, stats, _ = run(tmp_path, docs_path, pairs_path, ["body", "gender"])
    # body's "people"/"man" pairs overlap gender's "people"/"man" pairs
    assert stats["overlapping"] > 0
    assert stats["combinations"] == (
        stats["overlapping"] + stats["unchanged"] + stats["duplicates"] + stats["generated"]
    )


def test_caps_keep_every_parent_and_count_everything(tmp_path, docs_path, pairs_path):
    full, full_stats, _ = run(tmp_path, docs_path, pairs_path, ["gender", "race"], name="full")
    capped, stats, _ = run(
        tmp_path, docs_path, pairs_path, ["gender", "race"], name="capped",
        max_mutants_per_document=1, seed=3,
    )  # fmt: skip
    members = [r for r in capped if r["role"] == "mutant"]
    assert len(members) == stats["written"] == stats["documents_with_mutants"] == 3
    assert stats["generated"] == full_stats["generated"] > stats["written"]
    assert stats["capped"] == stats["generated"] - stats["written"]
    ids = {r["mutant_id"] for r in capped if r["role"] == "parent"}
    for m in members:
        assert set(m["parent_ids"]) <= ids
    assert {r["mutant_id"] for r in members} <= {r["mutant_id"] for r in full}
    # a per-suite cap over the same shard, and another seed picks other mutants
    suite_capped, suite_stats, _ = run(
        tmp_path, docs_path, pairs_path, ["gender", "race"], name="suite",
        max_mutants_per_suite=2, seed=3,
    )  # fmt: skip
    assert suite_stats["written"] == 2 == sum(r["role"] == "mutant" for r in suite_capped)
    picks = set()
    for seed in range(8):
        rows, _, _ = run(
            tmp_path, docs_path, pairs_path, ["gender", "race"], name=f"seed{seed}",
            max_mutants_per_suite=2, seed=seed,
        )  # fmt: skip
        picks.add(frozenset(r["mutant_id"] for r in rows if r["role"] == "mutant"))
    assert len(picks) > 1


def test_zero_caps_write_an_empty_file_with_counts(tmp_path, docs_path, pairs_path):
    rows, stats, out = run(tmp_path, docs_path, pairs_path, ["race"], max_mutants_per_document=0)
    assert rows == [] and stats["written"] == 0 and stats["generated"] > 0
    assert pq.read_schema(out).equals(tables.MUTANTS)


def test_document_limit_uses_position(tmp_path, docs_path, pairs_path):
    rows, stats, _ = run(tmp_path, docs_path, pairs_path, ["race"], max_documents=2)
    assert {r["doc_id"] for r in rows} == {"d0", "d1"}
    assert stats["documents"] == 2 and stats["beyond_limit"] == 5


def test_window_restricts_mutations(tmp_path, docs_path, pairs_path):
    rows, stats, _ = run(tmp_path, docs_path, pairs_path, ["race"], window=WordWindow(3))
    assert {r["doc_id"] for r in rows} == {"d0", "d1"}  # "British"/"German" in the first 3 words
    assert all(e["end"] <= 12 for r in rows for e in r["edits"])
    assert stats["truncated_documents"] == 4  # d0, d1, d4, d6 have more than 3 words


def test_output_is_deterministic_and_in_row_groups(tmp_path, docs_path, pairs_path):
    _, _, a = run(tmp_path, docs_path, pairs_path, ["body", "gender", "race"], name="a")
    _, _, b = run(tmp_path, docs_path, pairs_path, ["body", "gender", "race"], name="b")
    assert a.read_bytes() == b.read_bytes()
    assert pq.ParquetFile(a).metadata.num_row_groups > 1


def test_sequential_mode_differs_from_simultaneous(tmp_path, pairs_path):
    docs = write_docs(tmp_path / "docs.parquet", [("d", "The fat man and the people.", [0])])
    sim, _, _ = run(tmp_path, docs, pairs_path, ["body", "gender"], name="sim")
    seq, _, _ = run(tmp_path, docs, pairs_path, ["body", "gender"], name="seq", mode="sequential")
    text = "The fat man and the people."
    sim_texts = {apply_edits(text, r["edits"]) for r in sim if r["role"] == "mutant"}
    seq_texts = {apply_edits(text, r["edits"]) for r in seq if r["role"] == "mutant"}
    # body "people → people with mental disorder", then gender "people → trans women" on its output
    assert "The fat man and the trans women with mental disorder." in seq_texts - sim_texts


def test_non_string_texts_are_skipped(tmp_path, pairs_path):
    path = tmp_path / "ints.parquet"
    pq.write_table(pa.table({"doc_id": ["a", "b"], "position": [0, 1], "text": [3, None]}), path)
    rows, stats, _ = run(tmp_path, path, pairs_path, ["race"])
    assert rows == []
    assert stats["skipped_texts"] == {"empty": 0, "missing": 1, "non_string": 1}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (pa.table({"doc_id": ["a"]}), "missing column"),
        (pa.table({"doc_id": ["a", "a"], "text": ["x", "y"]}), "row 1: duplicate doc_id 'a'"),
        (pa.table({"doc_id": [None], "text": ["x"]}), "row 0: doc_id is missing"),
    ],
)
def test_bad_documents_are_one_line_errors_without_output(tmp_path, pairs_path, table, message):
    path = tmp_path / "bad.parquet"
    pq.write_table(table, path)
    with pytest.raises(DataError, match=message) as info:
        run(tmp_path, path, pairs_path, ["race"])
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert not (tmp_path / "out.parquet").exists()
    assert not list(tmp_path.glob(".out.parquet.*"))


def test_a_document_limit_needs_positions(tmp_path, pairs_path):
    path = tmp_path / "nopos.parquet"
    pq.write_table(pa.table({"doc_id": ["a"], "text": ["British"]}), path)
    with pytest.raises(DataError, match=r"nopos.parquet: document a has no position"):
        run(tmp_path, path, pairs_path, ["race"], max_documents=5)
    rows, _, _ = run(tmp_path, path, pairs_path, ["race"])  # no limit: no position needed
    assert len(rows) == 2


def test_unreadable_files_and_bad_pairs(tmp_path, docs_path, pairs_path):
    garbage = tmp_path / "garbage.parquet"
    garbage.write_text("not parquet")
    with pytest.raises(DataError, match="not a readable Parquet file"):
        run(tmp_path, garbage, pairs_path, ["race"])
    with pytest.raises(DataError, match="no pairs for attribute"):
        run(tmp_path, docs_path, pairs_path, ["religion"])
    bad = tmp_path / "bad_pairs.parquet"
    # rewritten by another program: hinter's records (row count, digest) are not carried over
    table = pq.read_table(pairs_path).replace_schema_metadata(None)
    table = table.set_column(4, "source", pa.array([" ", *table.column("source").to_pylist()[1:]]))
    pq.write_table(table, bad)
    with pytest.raises(DataError, match=r"row 0 \(pair r1\): source is empty"):
        run(tmp_path, docs_path, bad, ["race"])


def test_job_and_summary(tmp_path, docs_path, pairs_path):
    mutation = {
        "mode": "simultaneous",
        "max_mutants_per_suite": 5,
        "max_mutants_per_document": None,
    }
    paths = []
    for suite in (Suite(("race",)), Suite(("gender", "race"), max_documents=3)):
        stats_path = tmp_path / f"{suite.name}.json"
        mutate_job(
            str(docs_path), str(pairs_path), str(tmp_path / f"{suite.name}.parquet"),
            str(stats_path), suite=suite, track="encoder",
            track_spec={"tokenizer": "words", "max_tokens": 100, "per_dataset": {"imdb": 4}},
            dataset="imdb", shard="001", n_shards=2, mutation=mutation, seed=1,
        )  # fmt: skip
        paths.append(stats_path)
    stats = json.loads(paths[1].read_text())
    assert stats["caps"]["max_mutants_per_suite"] == 2  # 5 over 2 shards: shard 001 gets 2
    assert stats["caps"]["max_documents"] == 3
    assert stats["window"] == {"tokenizer": "words", "max_tokens": 4}
    assert (stats["track"], stats["dataset"], stats["shard"]) == ("encoder", "imdb", "001")
    rows = write_summary(paths, tmp_path / "summary.csv")
    assert [r["suite"] for r in rows] == ["atomic-race", "inter-race+gender"]
    with open(tmp_path / "summary.csv", newline="") as f:
        written = list(csv.DictReader(f))
    assert int(written[1]["written"]) == stats["written"]
    assert int(written[1]["generated"]) == stats["generated"]


def test_shard_share_splits_a_suite_cap():
    assert [shard_share(5, 2, i) for i in range(2)] == [3, 2]
    assert sum(shard_share(10, 4, i) for i in range(4)) == 10
    assert shard_share(None, 4, 0) is None
