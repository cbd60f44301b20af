"""The curated dictionary: published counts, the two pairing modes, pair ids, review notes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hinter import io, tables
from hinter.config import REPO_ROOT
from hinter.dictionary import curated, terms
from hinter.dictionary.pairs import compile_dictionary, pair_id, read_review, write_compiled
from hinter.errors import ConfigError, DataError

RESOURCES = REPO_ROOT / "resources" / "dictionary"
REFERENCE = REPO_ROOT.parent / "shared" / "reference" / "hinter-dictionary"
ALL = ["race", "gender", "body"]


@pytest.fixture(scope="module")
def published():
    return compile_dictionary(ALL, RESOURCES, "as_published")


@pytest.fixture(scope="module")
def complete():
    return compile_dictionary(ALL, RESOURCES, "complete")


def _pairs(compiled, attribute):
    return {
        (r["source"], r["target"])
        for r in compiled.table.to_pylist()
        if r["attribute"] == attribute
    }


@pytest.mark.parametrize(
    ("attribute", "words", "rows"),
    [("race", 116, 3996), ("gender", 217, 1104), ("body", 93, 786)],
)
def test_published_counts(attribute, words, rows):
    spec = curated.load_builtin(RESOURCES, attribute)
    assert len(spec.words) == words
    assert spec.listed_rows == rows


def test_as_published_reproduces_the_published_pairs(published):
    counts = {s.attribute: (s.listed_rows, s.listed_pairs, s.pairs) for s in published.stats}
    # race: exactly as published; gender: teenage -> teenage (listed in both directions) is a
    # self-pair and dropped; body: old women <-> young women is listed twice and merged.
    assert counts == {
        "race": (3996, 3996, 3996),
        "gender": (1104, 1104, 1102),
        "body": (786, 784, 784),
    }
    kinds = {(n.attribute, n.kind, n.source, n.target) for n in published.notes}
    assert ("gender", "self_pair_dropped", "teenage", "teenage") in kinds
    assert ("body", "duplicate_merged", "old women", "young women") in kinds
    assert ("body", "duplicate_merged", "young women", "old women") in kinds
    assert ("race", "white", "black") not in {
        (r["attribute"], r["source"], r["target"]) for r in published.table.to_pylist()
    }


def test_complete_counts_and_rules(published, complete):
    assert {s.attribute: s.pairs for s in complete.stats} == {
        "race": 4108,  # (4+4+9+5+84)^2 - sum of squares, plus 10^2 - (9+16+9)
        "gender": 1102,  # female <-> male is row-aligned; the job lists are already complete
        "body": 826,
    }
    for attribute in ALL:
        assert _pairs(published, attribute) <= _pairs(complete, attribute)
    assert ("white", "black") in _pairs(complete, "race")
    assert _pairs(complete, "gender") == _pairs(published, "gender")
    flips = [
        (s, t)
        for s, t in _pairs(complete, "body")
        if {terms.head_gender(s), terms.head_gender(t)} == {"female", "male"}
    ]
    assert flips == []
    assert ("men", "pregnant men") in _pairs(complete, "body")
    assert ("men", "pregnant women") not in _pairs(complete, "body")


def test_published_pairs_match_the_reference_files():
    if not REFERENCE.is_dir():
        pytest.skip("the shared reference lists are not available")
    for attribute in ALL:
        expected = set()
        for path in (REFERENCE / attribute).glob("*.csv"):
            for line in path.read_text(encoding="ascii").splitlines():
                if ";" in line:
                    source, target = (c.strip() for c in line.split(";"))
                    expected.add((source, target))
        spec = curated.load_builtin(RESOURCES, attribute)
        published = {
            (terms.normalise_term(p.source), terms.normalise_term(p.target)) for p in spec.pairs
        }
        assert published == expected  # the published case, before spelling.tsv


def test_resources_rebuild_identically(tmp_path):
    if not REFERENCE.is_dir():
        pytest.skip("the shared reference lists are not available")
    curated.build_resources(REFERENCE, tmp_path)
    for path in sorted(tmp_path.glob("*.tsv")):
        assert path.read_bytes() == (RESOURCES / path.name).read_bytes(), path.name


def test_pair_id_is_a_fixed_function_of_content(published, complete):
    assert pair_id("gender", "man", "woman") == "41d29721b2fb0eb2"
    assert pair_id("race", "white", "black") == "e44e762e56c09f0b"
    assert pair_id("gender", "nurse", "CEO") == "c74d95deb3d4ec7c"
    assert pair_id("gender", "woman", "man") != pair_id("gender", "man", "woman")
    for compiled in (published, complete):
        rows = compiled.table.to_pylist()
        assert len({r["pair_id"] for r in rows}) == len(rows)
        assert all(r["pair_id"] == pair_id(r["attribute"], r["source"], r["target"]) for r in rows)
    ids = dict(
        zip(published.table["pair_id"].to_pylist(), published.table.to_pylist(), strict=True)
    )
    for row in complete.table.to_pylist():
        if row["pair_id"] in ids:
            assert ids[row["pair_id"]]["source"] == row["source"]


def test_rows_sorted_schema_and_byte_identical_outputs(tmp_path, published):
    rows = published.table.to_pylist()
    keys = [(r["attribute"], r["source"], r["target"]) for r in rows]
    assert keys == sorted(keys)
    assert published.table.schema.equals(tables.PAIRS)
    for run in ("a", "b"):
        again = compile_dictionary(list(reversed(ALL)), RESOURCES, "as_published")
        write_compiled(again, tmp_path / run / "pairs.parquet", tmp_path / run / "review.tsv")
    assert (tmp_path / "a/pairs.parquet").read_bytes() == (
        tmp_path / "b/pairs.parquet"
    ).read_bytes()
    assert (tmp_path / "a/review.tsv").read_bytes() == (tmp_path / "b/review.tsv").read_bytes()
    table = io.read_parquet(tmp_path / "a/pairs.parquet", tables.PAIRS)
    assert table.equals(published.table)
    assert pq.read_metadata(tmp_path / "a/pairs.parquet").num_rows == 3996 + 1102 + 784
    assert read_review(tmp_path / "a/review.tsv") == published.notes


def test_case_policy_canonical_forms(published):
    words = {w for r in published.table.to_pylist() for w in (r["source"], r["target"])}
    assert "CEO" in words and "ceo" not in words
    assert "British" in words and "british" not in words  # resources/dictionary/spelling.tsv
    assert all(w == w.lower() or w.isupper() or w[0].isupper() for w in words)
    assert ("gender", "case_kept", "CEO") in {
        (n.attribute, n.kind, n.source) for n in published.notes
    }
    assert terms.normalise_term("  Red   Haired  WOMEN ") == "red haired women"
    assert terms.normalise_term(" CEO ") == "CEO"


def test_ambiguous_words_are_reported_and_kept_unless_asked(published):
    flagged = {(n.attribute, n.source) for n in published.notes if n.kind == "ambiguous"}
    # notes name terms in their canonical form (spelling.tsv)
    for key in [("race", "Pole"), ("race", "Latin"), ("race", "English"), ("gender", "miss")]:
        assert key in flagged
    assert {("gender", "ma"), ("gender", "pa"), ("gender", "her"), ("gender", "bitch")} <= flagged
    pairs = _pairs(published, "gender")
    assert {("her", "him"), ("her", "his"), ("bitch", "dog")} <= pairs
    detail = next(n.detail for n in published.notes if n.source == "her" and n.kind == "ambiguous")
    assert detail.endswith("in 4 pairs")  # her -> him, her -> his, him -> her, his -> her

    dropped = compile_dictionary(ALL, RESOURCES, "as_published", drop_ambiguous=True)
    kept = {w for r in dropped.table.to_pylist() for w in (r["source"], r["target"])}
    assert not {"Pole", "miss", "her", "bitch"} & kept
    assert {n.kind for n in dropped.notes} >= {"ambiguous_removed"}
    assert dropped.table.num_rows < published.table.num_rows


def test_attributes_select_what_is_compiled():
    only = compile_dictionary(["gender"], RESOURCES)
    assert set(only.table["attribute"].to_pylist()) == {"gender"}
    with pytest.raises(ConfigError, match="unknown attribute 'religion'"):
        compile_dictionary(["religion"], RESOURCES)


def _copy_resources(tmp_path: Path) -> Path:
    target = tmp_path / "dictionary"
    shutil.copytree(RESOURCES, target)
    return target


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        ("race.tsv", "source_class\tsource", "klass\tsource", r"race.tsv:1: header"),
        (
            "race.tsv",
            "\tethiopian\tamerican",
            "\tEthiopian\tamerican",
            r"race.tsv:2: .*not normalised",
        ),
        (
            "race.tsv",
            "\tethiopian\tamerican",
            "\tethiopian)\tamerican",
            r"race.tsv:2: .*whole word",
        ),
        (
            "race.tsv",
            "african\tethiopian\tamerican",
            "african\tethiopian\tmixed",
            r"race.tsv:2: class pairing",
        ),
        (
            "race.classes.tsv",
            "african\tethiopian\t2",
            "african\t\t2",
            r"race.classes.tsv:3: empty term",
        ),
        (
            "pairings.tsv",
            "race\tafrican\tamerican\tcross",
            "race\tafrican\tamerican\tall",
            r"pairings.tsv:\d+: complete rule",
        ),
    ],
)
def test_malformed_resources_name_file_and_line(tmp_path, file, old, new, message):
    base = _copy_resources(tmp_path)
    path = base / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError, match=message) as info:
        curated.load_builtin(base, "race")
    assert "\n" not in str(info.value)


@given(st.text(alphabet="aBcD -'.é\t", max_size=20))
def test_normalise_term_is_idempotent(raw):
    once = terms.normalise_term(raw)
    assert terms.normalise_term(once) == once
    assert once == once.strip() and "  " not in once


@given(st.lists(st.from_regex(r"[a-z][a-z' -]{0,10}[a-z]", fullmatch=True), min_size=1, max_size=3))
def test_word_terms_pass_the_whole_word_check(words):
    term = terms.normalise_term(" ".join(words))
    assert terms.term_problem(term) is None
    assert terms.contains_term(f"some {term} folks", term)
