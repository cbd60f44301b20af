"""Matching terms: whole words, case-insensitive, literal, longest first."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hinter.mutation.matching import Matcher, fold, is_word_char, match_key


def find(terms, text, end=None):
    return Matcher(terms).find(text, end)


def test_whole_words_only():
    found = find({"gender": ["man", "he"]}, "The man, a manly chairman; he said: HE. Batman")
    assert found["gender"] == {"man": [(4, 7)], "he": [(27, 29), (36, 38)]}


def test_case_insensitive_and_offsets_into_the_original():
    text = "MAN and Man and mAn"
    assert find({"g": ["man"]}, text)["g"]["man"] == [(0, 3), (8, 11), (16, 19)]


def test_longest_multi_word_term_wins_within_an_attribute():
    text = "Trans women and women met trans\nwomen."
    found = find({"gender": ["women", "trans women"]}, text)["gender"]
    assert found == {"trans women": [(0, 11), (26, 37)], "women": [(16, 21)]}


def test_attributes_are_matched_independently():
    found = find({"gender": ["people"], "body": ["old people", "people"]}, "old people")
    assert found["gender"] == {"people": [(4, 10)]}
    assert found["body"] == {"old people": [(0, 10)]}


@pytest.mark.parametrize(
    ("term", "text", "expected"),
    [
        ("c++", "I like c++ and c and cc+ and C++x", [(7, 10), (29, 32)]),
        ("(", "f(x) (y)", [(1, 2), (5, 6)]),
        (".", "a.b", [(1, 2)]),
        ("a.b", "axb a.b", [(4, 7)]),
        ("[x]*", "[x] [x]* [x]]", [(4, 8)]),
    ],
)
def test_regex_metacharacters_match_literally(term, text, expected):
    assert find({"a": [term]}, text)["a"].get(match_key(term), []) == expected


def test_window_end_hides_terms_that_end_after_it_even_mid_word():
    text = "people like manly people"
    assert find({"g": ["man", "people"]}, text, end=15)["g"] == {"people": [(0, 6)]}
    # "man" ends at 15 but continues as "manly" in the full text: not a whole word
    assert find({"g": ["man"]}, text, end=15)["g"] == {}


def test_length_changing_lowercase_keeps_offsets():
    text = "İstanbul people"
    assert len(fold(text)) == len(text)
    assert find({"g": ["people"]}, text)["g"] == {"people": [(9, 15)]}


def test_empty_dictionary_and_text():
    assert find({"g": []}, "people") == {"g": {}}
    assert find({"g": ["people"]}, "") == {"g": {}}


WORDS = ["man", "Man", "MAN", "woman", "he", "she", "the", "manly", "old man", "c++", "x"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*WORDS, " ", ", ", "-", "\n", "'s "]), max_size=30))
def test_matches_agree_with_a_regex_oracle(parts):
    """Whole-word, case-insensitive, leftmost-longest: the same as an escaped regex alternation."""
    text = "".join(parts)
    terms = ["man", "old man", "he", "c++"]
    found = Matcher({"a": terms}).find(text)["a"]
    got = sorted((s, e, k) for k, spans in found.items() for s, e in spans)
    alternation = "|".join(
        (r"(?<!\w)" if is_word_char(t[0]) else "")
        + re.escape(t).replace(r"\ ", r"\s")
        + (r"(?!\w)" if is_word_char(t[-1]) else "")
        for t in sorted(terms, key=len, reverse=True)
    )
    expected = [
        (m.start(), m.end(), match_key(m.group()))
        for m in re.finditer(alternation, text, re.IGNORECASE)
    ]
    assert got == expected
