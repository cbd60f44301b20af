"""Replacements written as a reader would write them: canonical forms and case transfer."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hinter.dictionary.curated import load_spellings
from hinter.dictionary.pairs import compile_dictionary
from hinter.edits import apply_edits
from hinter.errors import DataError
from hinter.mutation import SuiteMutator
from hinter.mutation.generate import pairs_from_table
from hinter.mutation.matching import at_sentence_start, transfer_case

RESOURCES = "resources/dictionary"


@pytest.mark.parametrize(
    ("occurrence", "source", "target", "start", "expected"),
    [
        ("British", "British", "Native American", False, "Native American"),
        ("British", "British", "Native American", True, "Native American"),
        ("british", "British", "Northern Irish", False, "Northern Irish"),
        ("BRITISH", "British", "Native American", False, "NATIVE AMERICAN"),
        ("Caucasian", "Caucasian", "black", False, "black"),
        ("Caucasian", "Caucasian", "black", True, "Black"),
        ("Native American", "Native American", "mixed race", True, "Mixed race"),
        ("people", "people", "people with mental illness", False, "people with mental illness"),
        ("People", "people", "people with mental illness", True, "People with mental illness"),
        ("PEOPLE", "people", "trans women", False, "TRANS WOMEN"),
        ("Old People", "old people", "young people", False, "Young People"),
        ("pEoPlE", "people", "trans women", False, "trans women"),
        ("He", "he", "she", True, "She"),
        ("nurse", "nurse", "CEO", False, "CEO"),
        ("Nurse", "nurse", "CEO", True, "CEO"),
        ("CEO", "CEO", "nurse", False, "nurse"),
        ("CEO", "CEO", "nurse", True, "Nurse"),
        ("Mr", "Mr", "Ms", False, "Ms"),
        ("mr", "Mr", "Mrs", False, "Mrs"),
        ("42", "42", "x", False, "x"),
    ],
)
def test_transfer_case(occurrence, source, target, start, expected):
    assert transfer_case(occurrence, source, target, start) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("British actors", True),
        ("The British", False),
        ("It was great. British", True),
        ('He said "Go." British', True),
        ("It was great!<br /><br />British", True),
        ("it was great<br/>British", True),
        ("(British", True),
        ("the (British", False),
        ("the end\nBritish", True),
        ("Mr. British", True),  # the rule is local: an abbreviation's period counts as an end
    ],
)
def test_sentence_starts(text, expected):
    assert at_sentence_start(text, text.rindex("British")) is expected


# Canonical forms are built from words as a dictionary writes them: proper words capitalised,
# common words lower-case, acronyms in capitals.
WORDS = ["British", "Native", "American", "Irish", "people", "with", "mental", "illness"]
WORDS += ["trans", "women", "old", "man", "disabled", "CEO", "Mr", "black"]
forms = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


def _capitalise(text: str) -> str:
    return text[0].upper() + text[1:]


@settings(max_examples=300, deadline=None)
@given(forms, forms, st.booleans())
def test_canonical_capitals_are_never_lowered(source, target, start):
    for occurrence in {source, source.lower(), _capitalise(source), source.upper()}:
        out = transfer_case(occurrence, source, target, start)
        assert out.lower() == target.lower()
        if occurrence != source.upper() or source == source.upper():
            assert all(o.isupper() for o, t in zip(out, target, strict=True) if t.isupper())


@settings(max_examples=300, deadline=None)
@given(forms, forms)
def test_mid_sentence_and_sentence_initial_forms(source, target):
    # written as the dictionary writes it, or in lower case: the target's canonical form
    assert transfer_case(source, source, target, False) == target
    assert transfer_case(source.lower(), source, target, True) == target
    # at a sentence start only the first letter may change
    assert transfer_case(_capitalise(source), source, target, True) == _capitalise(target)


@settings(max_examples=300, deadline=None)
@given(forms, forms, st.booleans())
def test_swapping_back_restores_a_canonically_written_occurrence(source, target, start):
    """Well-written text: canonical mid-sentence, capitalised at a sentence start, or UPPER."""
    occurrences = [_capitalise(source) if start else source]
    if source != source.upper() and target != target.upper():
        occurrences.append(source.upper())
    for occurrence in occurrences:
        there = transfer_case(occurrence, source, target, start)
        assert transfer_case(there, target, source, start) == occurrence


# --- the dictionary's canonical forms ------------------------------------------------------


@pytest.fixture(scope="module")
def complete(repo):
    return compile_dictionary(["race", "gender", "body"], repo / RESOURCES, pairing="complete")


def test_the_dictionary_writes_proper_terms_with_capitals(complete, repo):
    rows = complete.table.to_pylist()
    words = {w for r in rows for w in (r["source"], r["target"])}
    assert {"Native American", "Northern Irish", "British", "Mr", "CEO"} <= words
    assert {"people with mental illness", "trans women", "black", "white", "mixed race"} <= words
    spelled = load_spellings(repo / RESOURCES)
    assert set(spelled.values()) <= words  # every canonical form is used (no typo)
    assert all(w in spelled.values() or w == w.lower() or w.isupper() for w in words)
    notes = {(n.source, n.detail) for n in complete.notes if n.kind == "case_kept"}
    assert ("CEO", "acronym") in notes
    assert ("Native American", "canonical form with capitals") in notes
    # an ambiguous word is still found under its canonical form
    assert any(n.kind == "ambiguous" and n.source == "English" for n in complete.notes)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("british\tBritannic\tpeople", "must be 'british' with capitals"),
        ("british\tbritish\tpeople", "must be 'british' with capitals"),
        ("british\tBritish\tnation", "kind 'nation' is not one of"),
        ("British\tBritish\tpeople", "is not normalised"),
    ],
)
def test_a_bad_spelling_row_is_a_one_line_error(tmp_path, repo, row, message):
    folder = tmp_path / "dictionary"
    shutil.copytree(repo / RESOURCES, folder)
    (folder / "spelling.tsv").write_text(f"term\tspelling\tkind\n{row}\n")
    with pytest.raises(DataError, match=f"spelling.tsv:2: .*{message}"):
        compile_dictionary(["race"], folder)


def _mutants(compiled, attributes, text):
    pairs = pairs_from_table(compiled.table, attributes)
    mutator = SuiteMutator(pairs, attributes)
    return {apply_edits(text, m.edits) for m in mutator.mutants("d", text)}


def test_mutants_a_reader_would_write(complete):
    def review(term):
        return f"{term} moviegoers will love it. The film delights {term} moviegoers."

    british = _mutants(complete, ["race"], review("British"))
    assert review("Native American") in british
    assert not any("Native american" in m for m in british)
    assert review("Northern Irish") in _mutants(complete, ["race"], review("Nigerian"))
    caucasian = _mutants(complete, ["race"], review("Caucasian"))
    expected = "Black moviegoers will love it. The film delights black moviegoers."
    assert expected in caucasian
    body = _mutants(complete, ["body"], "People who have enjoyed it will like it.")
    assert "People with mental illness who have enjoyed it will like it." in body
    assert not any("With Mental" in m for m in body)


def test_the_papers_examples_with_the_shipped_dictionary(repo):
    """002 Tables 1, 4 and 6 with the dictionary as published (pairs as the authors listed)."""
    published = compile_dictionary(["race", "gender", "body"], repo / RESOURCES)
    table1 = (
        "There is a special heaven reserved for people who make the world laugh. "
        "British moviegoers will recognise the fat one from Cannon and Ball."
    )
    assert table1.replace("British", "Pakistani") in _mutants(published, ["race"], table1)
    both = table1.replace("for people", "for trans women").replace("British", "Pakistani")
    assert both in _mutants(published, ["race", "body"], table1)
    table4 = (
        "The Directive concerns the normal behaviour of children. "
        "The Spanish authorities have raised a formal objection."
    )
    mutant = table4.replace("children", "children with mental illness").replace(
        "Spanish", "Jamaican"
    )
    assert mutant in _mutants(published, ["body", "race"], table4)
    table6 = (
        "People who have enjoyed this will like it. Carver is German. He is not really staying."
    )
    mutant = (
        table6.replace("People", "People with mental disorder")
        .replace("German", "Syrian")
        .replace("He is", "She is")
    )
    assert mutant in _mutants(published, ["body", "race", "gender"], table6)
