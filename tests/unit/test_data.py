"""Data layer: normalisation of hub-shaped datasets, fact checks, offline failure, sharding."""

from __future__ import annotations

import json
import time
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

from hinter import data, io, tables
from hinter.errors import DataError, OfflineError

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "resources" / "labels"


def ecthr_like(n_per_split: dict[str, int]) -> datasets.DatasetDict:
    """The hub's ECtHR-A features: text = list of paragraphs, labels = list of ClassLabel."""
    features = datasets.Features(
        {
            "text": datasets.Sequence(datasets.Value("string")),
            "labels": datasets.Sequence(datasets.ClassLabel(names=list(data.ECTHR_ARTICLES))),
        }
    )
    out = {}
    for split, n in n_per_split.items():
        texts = [
            [f"{i}. The applicant was born in 19{i % 90:02d}.", "He lives in a city."]
            for i in range(n)
        ]
        labels = [[] if i % 3 == 0 else sorted({i % 10, (i * 7) % 10}) for i in range(n)]
        out[split] = datasets.Dataset.from_dict(
            {"text": texts, "labels": labels}, features=features
        )
    return datasets.DatasetDict(out)


def scotus_like(
    n_per_split: dict[str, int], present: int = 13, n_names: int = 13
) -> datasets.DatasetDict:
    """The hub's SCOTUS features: ClassLabel over issue areas '1'..'13' (LexGLUE's definition)."""
    features = datasets.Features(
        {
            "text": datasets.Value("string"),
            "label": datasets.ClassLabel(names=[str(i) for i in range(1, n_names + 1)]),
        }
    )
    out = {}
    for split, n in n_per_split.items():
        out[split] = datasets.Dataset.from_dict(
            {"text": [f"Opinion {i}." for i in range(n)], "label": [i % present for i in range(n)]},
            features=features,
        )
    return datasets.DatasetDict(out)


def test_ecthr_paragraphs_joined_and_empty_sets_kept():
    dsd = ecthr_like({"train": 6, "validation": 3, "test": 3})
    split_tables, meta = data.normalise(data.FACTS["ecthr_a"], dsd, check_sizes=False)
    train = split_tables["train"].to_pylist()
    assert train[1]["text"] == "1. The applicant was born in 1901.\nHe lives in a city."
    assert train[0]["labels"] == []  # no violation stays an empty set
    assert train[1]["labels"] == [1, 7]
    assert train[0]["doc_id"] == "train-000000"
    assert meta["task_type"] == "multi_label"
    assert meta["label_names"] == list(data.ECTHR_ARTICLES)
    assert meta["empty_label_name"] == "none"
    assert meta["rows"] == {"train": 6, "validation": 3, "test": 3}
    assert split_tables["test"].schema.equals(tables.DOCUMENTS)


def test_single_labels_become_one_element_lists():
    dsd = scotus_like({"train": 26, "validation": 2, "test": 2})
    split_tables, meta = data.normalise(data.FACTS["scotus"], dsd, check_sizes=False)
    assert split_tables["train"].column("labels").to_pylist()[:3] == [[0], [1], [2]]
    assert meta["task_type"] == "multi_class"
    assert meta["n_labels"] == 13
    assert meta["label_names"] == [str(i) for i in range(1, 14)]


def test_scotus_needs_all_13_issue_areas_present():
    dsd = scotus_like({"train": 28, "validation": 2, "test": 2}, present=12)
    with pytest.raises(DataError, match="12 labels occur, expected 13"):
        data.normalise(data.FACTS["scotus"], dsd, check_sizes=False)


def test_scotus_with_the_papers_14_classes_is_rejected():
    """The hub's ClassLabel has 13 names; an old 14-class copy must not pass silently."""
    dsd = scotus_like({"train": 28, "validation": 2, "test": 2}, n_names=14)
    with pytest.raises(DataError, match="14 labels, expected 13"):
        data.normalise(data.FACTS["scotus"], dsd, check_sizes=False)


def test_eurlex_with_127_labels_is_rejected():
    features = datasets.Features(
        {
            "text": datasets.Value("string"),
            "labels": datasets.Sequence(datasets.ClassLabel(names=[f"c{i}" for i in range(127)])),
        }
    )
    split = datasets.Dataset.from_dict({"text": ["a"], "labels": [[3]]}, features=features)
    dsd = datasets.DatasetDict({"train": split, "validation": split, "test": split})
    with pytest.raises(DataError, match="127 labels, expected 100"):
        data.normalise(data.FACTS["eurlex"], dsd, check_sizes=False)


def test_split_sizes_are_checked():
    dsd = ecthr_like({"train": 5, "validation": 1, "test": 1})
    with pytest.raises(DataError, match=r"train: 5 rows, expected 9000"):
        data.normalise(data.FACTS["ecthr_a"], dsd, check_sizes=True, source="x")


def test_imdb_has_no_validation_split_on_the_hub():
    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    make = lambda n: datasets.Dataset.from_dict(  # noqa: E731
        {"text": ["good"] * n, "label": [i % 2 for i in range(n)]}, features=features
    )
    dsd = datasets.DatasetDict({"train": make(4), "test": make(4), "unsupervised": make(2)})
    split_tables, meta = data.normalise(data.FACTS["imdb"], dsd, check_sizes=False)
    assert split_tables["validation"].num_rows == 0
    assert meta["rows"] == {"train": 4, "validation": 0, "test": 4}
    assert meta["label_names"] == ["neg", "pos"]


def test_wrong_label_names_are_rejected():
    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["bad", "good"])}
    )
    split = datasets.Dataset.from_dict({"text": ["x"], "label": [0]}, features=features)
    dsd = datasets.DatasetDict({"train": split, "test": split})
    with pytest.raises(DataError, match="label names"):
        data.normalise(data.FACTS["imdb"], dsd, check_sizes=False)


def test_prepare_from_local_copy_writes_tables_and_meta(tmp_path):
    """A full-size SCOTUS-shaped local copy goes through the same path as a hub download."""
    sizes = dict(data.FACTS["scotus"].split_sizes)
    scotus_like(sizes).save_to_disk(tmp_path / "hub")
    out = tmp_path / "out"
    meta = data.prepare_from_hub("scotus", {"repo": str(tmp_path / "hub")}, out, labels_dir=LABELS)
    assert meta["rows"] == sizes
    assert meta["display_names"][0] == "Criminal Procedure"
    # 13 classes; the paper's 14th issue area stays a display-only name for the prompts
    assert meta["n_labels"] == len(meta["label_names"]) == 13
    assert meta["display_names"][12:] == ["Miscellaneous", "Private Action"]
    assert meta["source"]["revision"].startswith("local:")
    assert io.read_json(out / "meta.json") == meta
    assert pq.read_table(out / "test.parquet").num_rows == 1400


def test_corrupt_local_copy_is_one_line_error_and_writes_nothing(tmp_path):
    ecthr_like({"train": 4, "validation": 2, "test": 2}).save_to_disk(tmp_path / "hub")
    for arrow in (tmp_path / "hub").rglob("*.arrow"):
        arrow.write_bytes(b"not arrow at all")
    out = tmp_path / "out"
    with pytest.raises(DataError) as info:
        data.prepare_from_hub("ecthr_a", {"repo": str(tmp_path / "hub")}, out)
    assert str(tmp_path / "hub") in str(info.value)
    assert "\n" not in str(info.value)
    assert not out.exists() or not any(out.iterdir())


def test_offline_hub_request_fails_fast(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(OfflineError, match=r"config/demo\.yaml"):
        data.prepare_from_hub("imdb", {"repo": "stanfordnlp/imdb"}, tmp_path / "out")
    assert time.monotonic() - start < 5
    assert not (tmp_path / "out").exists()


def test_unreachable_hub_fails_fast_with_the_same_advice(monkeypatch, tmp_path):
    """Online mode but nothing listening: the pre-flight request fails instead of hanging."""
    from hinter import hub

    for var in hub.OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
    assert not hub.offline()
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    import huggingface_hub.constants as hub_constants

    monkeypatch.setattr(hub_constants, "ENDPOINT", "http://127.0.0.1:9", raising=False)
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", False, raising=False)
    start = time.monotonic()
    with pytest.raises(OfflineError, match="go online"):
        data.load_hub(data.FACTS["imdb"], {"repo": "stanfordnlp/imdb"})
    assert time.monotonic() - start < 30


def test_display_names_match_label_counts():
    for name, facts in data.FACTS.items():
        classes = [hub for hub, _ in data.label_table(name, LABELS) if hub is not None]
        assert len(classes) == facts.n_labels
        if facts.hub_label_names is not None:
            assert tuple(classes) == facts.hub_label_names
    # only SCOTUS has a display-only name: the paper's 14th issue area
    extra = {n: len(data.display_names(n, LABELS)) - f.n_labels for n, f in data.FACTS.items()}
    assert extra == {"ecthr_a": 0, "scotus": 1, "eurlex": 0, "ledgar": 0, "imdb": 0}


def test_label_tables_follow_lexglue_feature_definitions(real_lexglue):
    """The hub names of resources/labels equal LexGLUE's ClassLabel names, in order (EURLEX: the
    100 EuroVoc ids, '100163' first), so each display name sits on its class."""
    infos = json.loads((real_lexglue / "dataset_infos.json").read_text(encoding="utf-8"))
    for dataset in ("ecthr_a", "scotus", "eurlex", "ledgar"):
        facts = data.FACTS[dataset]
        feature = infos[dataset]["features"][facts.label_field]
        hub_names = feature.get("feature", feature)["names"]
        ours = [hub for hub, _ in data.label_table(dataset, LABELS) if hub is not None]
        assert ours == hub_names, dataset
    eurlex = data.label_table("eurlex", LABELS)
    assert eurlex[0] == ("100163", "political framework")
    assert eurlex[-1][1] == "United Nations"


def test_labels_resource_out_of_order_is_rejected(tmp_path):
    rows = data.label_table("eurlex", LABELS)
    rows[0], rows[1] = rows[1], rows[0]
    (tmp_path / "eurlex.tsv").write_text(
        "hub_name\tdisplay_name\n" + "".join(f"{h}\t{d}\n" for h, d in rows), encoding="utf-8"
    )
    hub_order = [h for h, _ in data.label_table("eurlex", LABELS)]
    data.check_label_order("eurlex", hub_order, LABELS)
    with pytest.raises(DataError, match=r"eurlex\.tsv: hub names differ .* from label 0 on"):
        data.check_label_order("eurlex", hub_order, tmp_path)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("name\n", "line 1 must be the header"),
        ("hub_name\tdisplay_name\nneg\n", "line 2: expected"),
        (
            "hub_name\tdisplay_name\n-\tNone\nneg\tNegative\npos\tPositive\n",
            "line 3: a class after",
        ),
        ("hub_name\tdisplay_name\nneg\tNegative\n", "1 label names, expected 2"),
    ],
)
def test_bad_labels_resource_is_a_one_line_error(tmp_path, body, message):
    (tmp_path / "imdb.tsv").write_text(body, encoding="utf-8")
    with pytest.raises(DataError, match=message) as info:
        data.display_names("imdb", tmp_path)
    assert "\n" not in str(info.value)


def test_tested_shards_partition_the_documents(tmp_path):
    dsd = ecthr_like({"train": 30, "validation": 10, "test": 10})
    split_tables, meta = data.normalise(data.FACTS["ecthr_a"], dsd, check_sizes=False)
    data.write_dataset(tmp_path, split_tables, meta)
    paths = {s: tmp_path / f"{s}.parquet" for s in data.SPLITS}
    splits = ["train", "validation", "test"]
    shards = [data.tested_shard(paths, splits, k, 4) for k in range(4)]
    ids = [i for t in shards for i in t.column("doc_id").to_pylist()]
    assert sorted(ids) == sorted(
        f"{s}-{i:06d}"
        for s, n in (("train", 30), ("validation", 10), ("test", 10))
        for i in range(n)
    )
    positions = sorted(p for t in shards for p in t.column("position").to_pylist())
    assert positions == list(range(50))
    # Capping keeps the first N documents in tested order, whatever shard they fall in.
    capped = [data.tested_shard(paths, splits, k, 4, max_documents=12) for k in range(4)]
    kept = sorted(i for t in capped for i in t.column("doc_id").to_pylist())
    assert kept == [f"train-{i:06d}" for i in range(12)]


@pytest.fixture(scope="session")
def real_lexglue() -> Path:
    from loopback_hub import real_path

    return real_path("lexglue")
