"""The demo grammar's word lists (resources/demo/words.tsv): read in order, bad rows named."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from hinter.demo.corpus import DemoSettings, generate_documents
from hinter.demo.grammar import Lexicon, default_resources
from hinter.demo.words import FIELDS, Words
from hinter.errors import DataError

WORDS = default_resources() / "demo" / "words.tsv"


@pytest.fixture
def resources(tmp_path) -> Path:
    """A copy of resources/demo whose words.tsv a test may garble."""
    shutil.copytree(default_resources() / "demo", tmp_path / "demo")
    return tmp_path


def _rows(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_every_list_is_read_in_file_order():
    words = Words.load(WORDS)
    assert [f.name for f in dataclasses.fields(Words)] == list(FIELDS)
    rows = [r.split("\t") for r in _rows(WORDS) if r and not r.startswith("#")]
    for name in FIELDS:
        in_file = [w for n, w in rows if n == name]
        read = ["/".join(w) if isinstance(w, tuple) else w for w in getattr(words, name)]
        assert read == in_file, name
    assert words.verbs_person[0] == ("helped", "helped", "help", "helps")
    assert words.quantifiers[0] == ("many", "JJ", "amod")
    assert words.like("pos")[0] == "loved" and words.like("neg")[0] == "hated"
    assert Lexicon.load().words == words


def test_reordering_a_list_changes_the_corpus(resources):
    """The draws pick by position: the order of the file is part of the corpus (and pinned)."""
    settings = DemoSettings.from_config({"documents": {"train": 12, "test": 4}})
    before = [d.text for d in generate_documents("imdb", settings, resources)["train"]]
    path = resources / "demo" / "words.tsv"
    rows = _rows(path)
    i = rows.index("positive\tbrilliant")
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    after = [d.text for d in generate_documents("imdb", settings, resources)["train"]]
    assert after != before


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ("positive", "1 columns, expected 2"),
        ("positive\tgood\tbad", "3 columns, expected 2"),
        ("nouns\ttable", "unknown list 'nouns'"),
        ("verbs_person\twalked/walked/walk", "not a word of verbs_person"),
        ("positive\tgood/JJ", "not a word of positive"),
        ("positive\t", "not a word of positive"),
        ("quantifiers\tfew/QQ/amod", "unknown PTB tag or dependency label"),
        ("quantifiers\tfew/JJ/nosuch", "unknown PTB tag or dependency label"),
        ("positive\tbrilliant", "already in positive"),
    ],
)
def test_a_garbled_row_is_a_one_line_error_naming_file_and_row(resources, row, says):
    path = resources / "demo" / "words.tsv"
    rows = [*_rows(path), row]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        Lexicon.load(resources)
    message = str(err.value)
    assert message.startswith(f"{path}:{len(rows)}: ") and says in message
    assert "\n" not in message


def test_a_missing_file_or_list_is_named(resources):
    path = resources / "demo" / "words.tsv"
    path.write_text(
        "".join(r + "\n" for r in _rows(path) if not r.startswith("degree\t")), encoding="utf-8"
    )
    with pytest.raises(DataError, match=r"words\.tsv: no words in the list\(s\) degree$"):
        Lexicon.load(resources)
    path.unlink()
    with pytest.raises(DataError, match=r"words\.tsv: file not found$"):
        Lexicon.load(resources)
