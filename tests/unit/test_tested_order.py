"""The tested documents' order: RQ5's "first 10K IMDB reviews" are a seeded, label-balanced
sample, not the hub's first (all negative) train rows."""

from __future__ import annotations

import copy
import os
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hinter import data, tables, tested_order
from hinter.config import load_yaml, validate_config
from hinter.errors import ConfigError
from hinter.rq import captions

REPO = Path(__file__).resolve().parents[2]
REAL = Path(os.environ.get("HINTER_REAL_DATA", REPO.parent / "shared" / "real")) / "imdb"


def _imdb_like(tmp: Path, n_per_label: int) -> dict[str, Path]:
    """IMDB's hub shape: train and test each 'neg' rows first, then 'pos' (archive order)."""
    paths = {}
    for split in data.SPLITS:
        n = 0 if split == "validation" else n_per_label
        labels = [[0]] * n + [[1]] * n
        table = pa.table(
            {
                "doc_id": [f"{split}-{i:06d}" for i in range(2 * n)],
                "text": [f"review {i}" for i in range(2 * n)],
                "labels": labels,
            },
            schema=tables.DOCUMENTS,
        )
        paths[split] = tmp / f"{split}.parquet"
        pq.write_table(table, paths[split])
    return paths


def _shards(paths, order, max_documents, n_shards=4, seed=42):
    """What rule shard_documents writes, every shard (workflow/scripts/shard_documents.py)."""
    splits = ["train", "validation", "test"]
    return pa.concat_tables(
        tested_order.tested_shard(paths, splits, k, n_shards, max_documents, order, seed)
        for k in range(n_shards)
    )


def test_split_order_keeps_the_first_rows_which_are_all_negative(tmp_path):
    kept = _shards(_imdb_like(tmp_path, 500), "split", 400)
    assert Counter(x[0] for x in kept.column("labels").to_pylist()) == {0: 400}


def test_balanced_order_keeps_a_seeded_label_balanced_sample(tmp_path):
    paths = _imdb_like(tmp_path, 500)
    kept = _shards(paths, "balanced", 400)
    assert kept.num_rows == 400
    assert Counter(x[0] for x in kept.column("labels").to_pylist()) == {0: 200, 1: 200}
    assert sorted(kept.column("position").to_pylist()) == list(range(400))
    # a sample of both splits, not a prefix of either
    assert set(kept.column("split").to_pylist()) == {"train", "test"}
    ids = set(kept.column("doc_id").to_pylist())
    assert ids != {f"train-{i:06d}" for i in range(400)}
    # seeded: the same sample again, another one with another seed
    assert set(_shards(paths, "balanced", 400)["doc_id"].to_pylist()) == ids
    assert set(_shards(paths, "balanced", 400, seed=7)["doc_id"].to_pylist()) != ids
    # uncapped: every document once, positions 0..n-1
    every = _shards(paths, "balanced", None)
    assert sorted(every.column("position").to_pylist()) == list(range(2000))


def test_every_prefix_is_balanced_until_a_label_runs_out():
    ids = [f"d{i}" for i in range(30)]
    labels = [[0]] * 20 + [[1]] * 10
    ranks = tested_order.balanced_positions(ids, labels, seed=1)
    by_rank = sorted(ranks, key=ranks.get)
    counts = Counter()
    for n, doc in enumerate(by_rank, start=1):
        counts[labels[ids.index(doc)][0]] += 1
        if n <= 20:
            assert abs(counts[0] - counts[1]) <= 1
    assert counts == {0: 20, 1: 10}
    with pytest.raises(ValueError, match="unknown document order 'kaggle'"):
        tested_order.dataset_positions({}, [], "kaggle", 1)


@pytest.mark.skipif(
    not (REAL / "train-sample-2000.parquet").is_file(),
    reason=f"real IMDB sample not found under {REAL} (set HINTER_REAL_DATA to ../shared/real)",
)
def test_real_reviews_in_archive_order_give_a_balanced_subset(tmp_path):
    sample = pq.read_table(REAL / "train-sample-2000.parquet").to_pydict()
    rows = sorted(zip(sample["text"], sample["label"], strict=True), key=lambda r: r[1])
    train = pa.table(
        {
            "doc_id": [f"train-{i:06d}" for i in range(len(rows))],
            "text": [t for t, _ in rows],
            "labels": [[y] for _, y in rows],
        },
        schema=tables.DOCUMENTS,
    )
    paths = {}
    for split in data.SPLITS:
        paths[split] = tmp_path / f"{split}.parquet"
        pq.write_table(train if split == "train" else train.slice(0, 0), paths[split])
    kept = _shards(paths, "balanced", 1000)
    assert Counter(x[0] for x in kept.column("labels").to_pylist()) == {0: 500, 1: 500}


def test_the_paper_config_orders_imdb_balanced(repo):
    cfg = validate_config(load_yaml(repo / "config" / "config.yaml"))
    assert cfg["data"]["order"] == {"imdb": "balanced"}
    (rq5,) = cfg["mutation"]["higher_orders"]
    assert rq5["datasets"] == ["imdb"] and rq5["max_documents"] == 10000
    assert captions.settings(cfg)["higher_orders"] == (
        "N=3 on imdb with llama2, first 10,000 documents "
        "(of a seeded, label-balanced order on imdb)"
    )
    demo = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    assert demo["data"]["order"] == {}
    assert "label-balanced" not in captions.settings(demo)["higher_orders"]
    bad = copy.deepcopy(load_yaml(repo / "config" / "demo.yaml"))
    bad.setdefault("data", {})["order"] = {"sst2": "balanced"}
    with pytest.raises(ConfigError, match=r"data\.order\.sst2.*unknown dataset"):
        validate_config(bad)
    bad["data"]["order"] = {"imdb": "kaggle"}
    with pytest.raises(ConfigError, match=r"data\.order\.imdb"):
        validate_config(bad)


def test_the_paper_config_skips_grammar_texts_as_the_artifact_did(repo):
    """F13: texts over 32,680 characters were skipped by the original artifact."""
    cfg = validate_config(load_yaml(repo / "config" / "config.yaml"))
    assert cfg["grammar"]["max_chars"] == 32680
