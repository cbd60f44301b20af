"""Demo treebank and parser: DocBin files, a quick training run, sentence boundaries, meta."""

from __future__ import annotations

import json

import pytest
import spacy

from hinter.demo import parser, treebank
from hinter.errors import ConfigError, DataError

# Small and quick: a few hundred sentences and a few epochs still learn the grammar well.
TREEBANK = 600
SETTINGS = {"epochs": 5, "width": 64, "dropout": 0.1, "batch_size": 8}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo_parser")
    train, dev = root / "train.spacy", root / "dev.spacy"
    stats = treebank.write_treebank(TREEBANK, 3, train, dev)
    metrics = parser.train_demo_parser(
        train,
        dev,
        root / "pipeline",
        root / "metrics.json",
        SETTINGS,
        42,
        demo_seed=3,
        substituted=150,
    )
    return root, stats, metrics


def test_treebank_files_are_deterministic_and_complete(tmp_path, trained):
    root, stats, _ = trained
    treebank.write_treebank(TREEBANK, 3, tmp_path / "a.spacy", tmp_path / "b.spacy")
    assert (tmp_path / "a.spacy").read_bytes() == (root / "train.spacy").read_bytes()
    assert (tmp_path / "b.spacy").read_bytes() == (root / "dev.spacy").read_bytes()
    assert stats["train_sentences"] + stats["dev_sentences"] == TREEBANK
    docs = parser.read_docbin(root / "train.spacy", spacy.blank("en").vocab)
    assert len(docs) == stats["train_docs"]
    assert all(d.has_annotation("TAG") and d.has_annotation("DEP") for d in docs)
    assert any("\n" in d.text for d in docs)


def test_treebank_words_are_spacys_tokens(trained):
    root, _, _ = trained
    nlp = spacy.blank("en")
    for d in parser.read_docbin(root / "dev.spacy", nlp.vocab):
        assert [t.text for t in nlp.tokenizer(d.text)] == [t.text for t in d]


def test_training_learns_the_grammar(trained):
    _, _, metrics = trained
    for part in ("dev", "substituted"):
        scores = metrics[part]
        assert scores["tag_acc"] >= 0.96, (part, scores)
        assert scores["las"] >= 0.9, (part, scores)
        assert scores["sents_match"] == 1.0
    assert metrics["substituted"]["texts"] == 150
    assert metrics["train_seconds"] > 0
    assert json.loads((trained[0] / "metrics.json").read_text()) == metrics


def test_saved_pipeline_loads_with_name_version_and_sentencizer_first(trained):
    root, _, metrics = trained
    nlp = spacy.load(root / "pipeline")
    assert nlp.pipe_names == ["sentencizer", "tok2vec", "tagger", "parser"]
    assert nlp.meta["name"] == parser.PIPELINE_NAME == metrics["pipeline"]["name"]
    assert nlp.meta["version"] == metrics["pipeline"]["version"]
    assert nlp.meta["version"].split("+")[1] == parser.fingerprint(
        [root / "train.spacy", root / "dev.spacy"], parser.TrainSettings(**SETTINGS), 42
    )


def test_possessive_and_object_her_and_multiword_groups(trained):
    nlp = spacy.load(trained[0] / "pipeline")
    doc = nlp("She lost her passport and asked him for help.")
    assert [(t.text, t.tag_, t.dep_) for t in doc][2] == ("her", "PRP$", "poss")
    doc = nlp("The Syrian nurse helped her.")
    assert (doc[4].tag_, doc[4].dep_) == ("PRP", "dobj")
    doc = nlp("Many people with mental disorder live in the city.")
    assert [t.dep_ for t in doc][:5] == ["amod", "nsubj", "prep", "amod", "pobj"]


def test_sentences_come_from_the_sentencizer(trained):
    nlp = spacy.load(trained[0] / "pipeline")
    texts = [
        "The applicant complained of torture.\nHer son was questioned by the police in 2004.",
        "He was angry. The choice was hers! The British teacher who helped him resigned.",
        "\nThe Court examined her complaint concerning unlawful detention.",
    ]
    for doc in nlp.pipe(texts):
        alone = nlp.get_pipe("sentencizer")(nlp.make_doc(doc.text))
        assert [(s.start, s.end) for s in doc.sents] == [(s.start, s.end) for s in alone.sents]
        assert doc.has_annotation("DEP")


def test_bad_inputs_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.spacy"
    bad.write_bytes(b"not a docbin")
    with pytest.raises(DataError, match="not a readable spaCy DocBin"):
        parser.read_docbin(bad, spacy.blank("en").vocab)
    with pytest.raises(DataError, match="not found"):
        parser.read_docbin(tmp_path / "missing.spacy", spacy.blank("en").vocab)
    with pytest.raises(ConfigError, match=r"parser\.train"):
        parser.TrainSettings.from_config({"epochs": 2, "learning_rate": 0.1})
