"""Demo corpora: hub schema and facts, determinism, label structure, attribute richness, bias."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from hinter import io, tables
from hinter.data import FACTS, SPLITS, check_facts, display_names, normalise
from hinter.demo.corpus import (
    DemoSettings,
    generate_dataset,
    generate_documents,
    hub_label_names,
    write_demo_dataset,
)
from hinter.demo.grammar import Lexicon, default_resources
from hinter.errors import ConfigError

DATASETS = ("imdb", "ecthr_a", "scotus", "eurlex", "ledgar")
SMALL = {"seed": 11, "documents": {"train": 30, "validation": 10, "test": 12}, "sentences": [3, 6]}


@pytest.fixture(scope="module")
def generated():
    settings = DemoSettings.from_config(SMALL)
    return {ds: generate_dataset(ds, settings) for ds in DATASETS}


@pytest.fixture(scope="module")
def documents():
    settings = DemoSettings.from_config(SMALL)
    return {ds: generate_documents(ds, settings) for ds in DATASETS}


def _hub_meta_keys() -> set[str]:
    """Keys of the hub loader's meta for a tiny hub-shaped IMDB (ClassLabel ints)."""
    import datasets

    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    dsd = datasets.DatasetDict(
        {
            s: datasets.Dataset.from_dict(
                {"text": ["a b", "c d"], "label": [0, 1]}, features=features
            )
            for s in ("train", "test")
        }
    )
    _, meta = normalise(FACTS["imdb"], dsd, check_sizes=False)
    return set(meta)


@pytest.mark.parametrize("dataset", DATASETS)
def test_schema_facts_ids_and_meta_like_the_hub_loader(generated, dataset):
    split_tables, meta = generated[dataset]
    for split in SPLITS:
        table = split_tables[split]
        assert table.schema == tables.DOCUMENTS
        assert table.column("doc_id").to_pylist() == [f"{split}-{i:06d}" for i in range(len(table))]
        assert all(isinstance(t, str) and t for t in table.column("text").to_pylist())
    expected_rows = dict(SMALL["documents"])
    if dataset == "imdb":
        expected_rows["validation"] = 0  # like the hub: IMDB has no validation split
    assert meta["rows"] == expected_rows
    check_facts(FACTS[dataset], meta["label_names"], split_tables, check_sizes=False, where="t")
    assert meta["label_names"] == hub_label_names(dataset, default_resources())
    assert meta["n_labels"] == FACTS[dataset].n_labels
    assert meta["display_names"] == display_names(dataset, default_resources() / "labels")
    assert meta["task_type"] == FACTS[dataset].task_type
    assert meta["empty_label_name"] == FACTS[dataset].empty_label_name
    assert meta["source"] == {"repo": "demo", "name": dataset, "revision": "seed-11"}


def test_meta_has_the_hub_loaders_keys(generated):
    keys = _hub_meta_keys() | {"source", "display_names"}  # what prepare_from_hub writes
    for dataset in DATASETS:
        assert set(generated[dataset][1]) == keys


def test_label_names_fixed_by_the_facts(generated):
    assert generated["imdb"][1]["label_names"] == ["neg", "pos"]
    assert generated["ecthr_a"][1]["label_names"] == [
        "2",
        "3",
        "5",
        "6",
        "8",
        "9",
        "10",
        "11",
        "14",
        "P1-1",
    ]
    assert len(generated["eurlex"][1]["label_names"]) == 100


def _labels(generated, dataset):
    return [
        lab for split in SPLITS for lab in generated[dataset][0][split].column("labels").to_pylist()
    ]


def test_label_structure_of_each_task(generated):
    ecthr = _labels(generated, "ecthr_a")
    assert any(lab == [] for lab in ecthr) and any(len(lab) >= 2 for lab in ecthr)
    for split in SPLITS:  # the "no violation" case in every split
        assert [] in generated["ecthr_a"][0][split].column("labels").to_pylist()
    scotus = _labels(generated, "scotus")
    assert all(len(lab) == 1 for lab in scotus)
    assert len({lab[0] for lab in scotus}) == 13 and 13 not in {lab[0] for lab in scotus}
    eurlex = _labels(generated, "eurlex")
    assert all(1 <= len(lab) <= 4 for lab in eurlex) and any(len(lab) > 1 for lab in eurlex)
    ledgar = _labels(generated, "ledgar")
    assert all(len(lab) == 1 and 0 <= lab[0] < 100 for lab in ledgar)
    imdb = Counter(lab[0] for lab in _labels(generated, "imdb"))
    assert imdb[0] == imdb[1]


def test_ecthr_paragraphs_are_joined_with_newlines(generated):
    texts = generated["ecthr_a"][0]["train"].column("text").to_pylist()
    assert sum("\n" in t for t in texts) > len(texts) // 2
    assert not any("\n" in t for t in generated["scotus"][0]["train"].column("text").to_pylist())


def test_every_document_is_rich_in_attribute_words(documents):
    for dataset, splits in documents.items():
        docs = [d for split in SPLITS for d in splits[split]]
        assert all(len(d.attributes()) >= 2 for d in docs), dataset
        share_all = sum(d.attributes() == {"race", "gender", "body"} for d in docs) / len(docs)
        assert share_all > 0.8, dataset
        assert all(len(d.sentences) >= SMALL["sentences"][0] for d in docs)


def test_corpus_exercises_what_the_invariant_distinguishes(documents):
    her_tags, multi_body, one_body = set(), set(), set()
    for splits in documents.values():
        for d in (d for split in SPLITS for d in splits[split]):
            for s in d.sentences:
                her_tags |= {s.tags[i] for i, w in enumerate(s.words) if w.lower() == "her"}
                for entry, a, b in s.terms:
                    if entry.attribute == "body":
                        (multi_body if b - a > 1 else one_body).add(entry.term)
                assert s.text in d.text
    assert her_tags == {"PRP$", "PRP"}
    assert {"people", "women", "men"} <= one_body
    assert len(multi_body) > 30


def _naive_bayes_accuracy(train: list[dict], test: list[dict]) -> float:
    counts: dict[int, Counter] = {}
    for row in train:
        counts.setdefault(row["labels"][0], Counter()).update(row["text"].lower().split())
    vocab = len(set().union(*counts.values()))
    right = 0
    for row in test:
        words = row["text"].lower().split()
        scores = {}
        for label, c in counts.items():
            total = sum(c.values())
            scores[label] = math.log(total) + sum(
                math.log((c[w] + 1) / (total + vocab)) for w in words
            )
        right += max(scores, key=scores.get) == row["labels"][0]
    return right / len(test)


def test_labels_are_learnable_from_the_text():
    """A bag-of-words naive Bayes trained on 200 documents predicts 40 test documents well
    (the topic words outweigh the attribute-word noise)."""
    settings = DemoSettings.from_config(
        {**SMALL, "documents": {"train": 200, "validation": 1, "test": 40}}
    )
    for dataset, floor in (("imdb", 0.95), ("scotus", 0.7)):  # chance: 0.5, 1/13
        split_tables, _ = generate_dataset(dataset, settings)
        accuracy = _naive_bayes_accuracy(
            split_tables["train"].to_pylist(), split_tables["test"].to_pylist()
        )
        assert accuracy >= floor, (dataset, accuracy)


def test_same_settings_same_bytes_other_seed_other_texts(tmp_path):
    write_demo_dataset("ecthr_a", SMALL, tmp_path / "a")
    write_demo_dataset("ecthr_a", SMALL, tmp_path / "b")
    for name in ("train.parquet", "validation.parquet", "test.parquet", "meta.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    other = write_demo_dataset("ecthr_a", {**SMALL, "seed": 12}, tmp_path / "c")
    assert other["source"]["revision"] == "seed-12"
    a = io.read_parquet(tmp_path / "a" / "train.parquet", tables.DOCUMENTS)
    c = io.read_parquet(tmp_path / "c" / "train.parquet", tables.DOCUMENTS)
    assert a.column("text").to_pylist() != c.column("text").to_pylist()
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["rows"] == SMALL["documents"]


def _gender_shares(docs, lexicon_terms):
    """Share of female-class gender terms among gender terms, per label."""
    out = {}
    for label in (0, 1):
        female = total = 0
        for d in docs:
            if d.labels != [label]:
                continue
            for s in d.sentences:
                for entry, _, _ in s.terms:
                    if entry.attribute == "gender":
                        total += 1
                        female += entry.cls in ("female", "female_job")
        out[label] = female / total
    return out


def test_planted_bias_only_in_train_and_as_documented():
    base = DemoSettings.from_config(
        {**SMALL, "documents": {"train": 60, "validation": 1, "test": 20}}
    )
    planted = DemoSettings.from_config(
        {**SMALL, "documents": dict(base.documents), "planted_bias": 0.8}
    )
    plain = generate_documents("imdb", base)
    biased = generate_documents("imdb", planted)
    # resources/demo/planted_bias.tsv: neg <- female words, pos <- male words (train only)
    shares = _gender_shares(biased["train"], None)
    assert shares[0] > 0.75 and shares[1] < 0.25
    neutral = _gender_shares(plain["train"], None)
    assert abs(neutral[0] - neutral[1]) < 0.2
    assert all(d.planted for d in biased["train"]) and not any(d.planted for d in plain["train"])
    # validation and test are not touched by the planted bias
    assert [d.text for d in biased["test"]] == [d.text for d in plain["test"]]


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="planted_bias"):
        DemoSettings.from_config({"planted_bias": 1.5})
    with pytest.raises(ConfigError, match="sentences"):
        DemoSettings.from_config({"sentences": [5, 2]})
    with pytest.raises(ConfigError, match="13 issue areas"):
        generate_documents(
            "scotus",
            DemoSettings.from_config({"documents": {"train": 5, "validation": 2, "test": 2}}),
        )


def test_topic_phrases_of_the_label_appear_in_the_text(documents):
    lexicon = Lexicon.load()
    for dataset in ("scotus", "ledgar"):
        for d in documents[dataset]["train"]:
            phrases = [e.text.lower() for e in lexicon.topics[dataset][d.labels[0]]]
            assert any(p in d.text.lower() for p in phrases)


def test_the_sentencizer_splits_documents_into_the_grammars_sentences(documents):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    for dataset in DATASETS:
        docs = documents[dataset]["train"][:15]
        for d, doc in zip(docs, nlp.pipe(d.text for d in docs), strict=True):
            assert [s.text.strip() for s in doc.sents] == [s.text for s in d.sentences]
            words = [t.text for t in doc if not t.is_space]
            assert words == [w for s in d.sentences for w in s.words]
