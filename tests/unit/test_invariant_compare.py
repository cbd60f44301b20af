"""tolerantTableComp (paper Alg. 4) and InvCheck (Alg. 3) semantics, on hand-made parses."""

from __future__ import annotations

import pytest
import spacy
from hypothesis import given
from hypothesis import strategies as st
from spacy.tokens import Doc

from hinter.invariant import (
    DEP,
    POS,
    SENTENCE_COUNT,
    TOO_LONG,
    IncrementalChecker,
    Parse,
    SentenceSplitter,
    Verdict,
    compare_parses,
    inv_check,
    parse_of,
    tolerant_errors,
    tolerant_table_comp,
)

seqs = st.lists(st.sampled_from("ABCDE"), max_size=12)


# -- Algorithm 4 ----------------------------------------------------------------------------


def test_identical_sequences_pass():
    assert tolerant_table_comp(["DT", "NN", "VBD"], ["DT", "NN", "VBD"])
    assert tolerant_table_comp([], [])


def test_equal_lengths_with_one_mismatch_fail():
    assert not tolerant_table_comp(["DT", "NN", "VBD"], ["DT", "NNS", "VBD"])


@pytest.mark.parametrize("position", [0, 1, 2, 3])
def test_one_inserted_token_passes_anywhere(position):
    s1 = ["DT", "NN", "VBD", "."]
    s2 = [*s1[:position], "JJ", *s1[position:]]
    assert tolerant_table_comp(s1, s2)
    assert tolerant_table_comp(s2, s1)


def test_leftovers_are_counted():
    # A=A; B!=X: one error, and the longer sequence skips C; D=D; E and F are left over.
    assert tolerant_errors(list("ABCDEF"), list("AXD")) == (3, 3)
    assert tolerant_errors(list("AB"), list("ABX")) == (1, 1)  # an insertion at the end
    assert tolerant_errors(list("ABC"), []) == (3, 3)


def test_the_limit_is_the_length_difference():
    assert tolerant_table_comp(list("AB"), list("XYZW"))  # two mismatches, limit 2
    assert not tolerant_table_comp(list("ABC"), list("XYZWV"))  # three mismatches, limit 2
    assert not tolerant_table_comp(list("ABCD"), list("AXB"))  # (2 errors, limit 1)


@given(seqs, seqs)
def test_errors_never_fall_below_the_limit(s1, s2):
    errors, limit = tolerant_errors(s1, s2)
    assert limit == abs(len(s1) - len(s2))
    assert errors >= limit
    assert tolerant_table_comp(s1, s2) == (errors == limit)


@given(seqs)
def test_reflexive(s):
    assert tolerant_table_comp(s, s)


@given(seqs, seqs)
def test_symmetric(s1, s2):
    assert tolerant_table_comp(s1, s2) == tolerant_table_comp(s2, s1)


@given(seqs, seqs)
def test_equal_lengths_need_an_exact_match(s1, s2):
    n = min(len(s1), len(s2))
    assert tolerant_table_comp(s1[:n], s2[:n]) == (s1[:n] == s2[:n])


@given(seqs, st.data())
def test_a_single_insertion_or_deletion_passes(s, data):
    k = data.draw(st.integers(0, len(s)))
    token = data.draw(st.sampled_from("ABCDEX"))
    longer = [*s[:k], token, *s[k:]]
    assert tolerant_table_comp(s, longer)
    assert tolerant_table_comp(longer, s)


@given(st.integers(0, 8), st.integers(0, 8))
def test_disjoint_sequences_pass_iff_the_shorter_fits_in_the_difference(m, n):
    # Every comparison fails, so the errors are min(m, n) (or |m - n| when that is larger).
    assert tolerant_table_comp(["a"] * m, ["b"] * n) == (min(m, n) <= abs(m - n))


# -- the paper's Fig. 3 on spaCy Docs with given annotation --------------------------------

VOCAB = spacy.blank("en").vocab


def doc(words, tags, deps, heads):
    """A Doc with the given annotation, spaced like text (no space before "." or at the end)."""
    spaces = [i + 1 < len(words) and words[i + 1] != "." for i in range(len(words))]
    return Doc(VOCAB, words=words, spaces=spaces, tags=tags.split(), deps=deps.split(), heads=heads)


ORIGINAL = doc(
    ["The", "man", "loves", "his", "dog", "."],
    "DT NN VBZ PRP$ NN .",
    "det nsubj ROOT poss dobj punct",
    [1, 2, 2, 4, 2, 2],
)
HIM = doc(
    ["The", "man", "loves", "him", "dog", "."],
    "DT NN VBZ PRP NN .",
    "det nsubj ROOT dative dobj punct",
    [1, 2, 2, 2, 2, 2],
)
DISABLED_MAN = doc(
    ["The", "disabled", "man", "loves", "his", "dog", "."],
    "DT JJ NN VBZ PRP$ NN .",
    "det amod nsubj ROOT poss dobj punct",
    [2, 2, 3, 3, 5, 3, 3],
)
WOMAN_DEP = doc(  # same tags, one different label
    ["The", "woman", "loves", "his", "dog", "."],
    "DT NN VBZ PRP$ NN .",
    "det nsubjpass ROOT poss dobj punct",
    [1, 2, 2, 4, 2, 2],
)


def test_fig3_his_to_him_is_rejected_on_pos():
    assert compare_parses(parse_of(ORIGINAL), parse_of(HIM)) == POS


def test_fig3_man_to_disabled_man_is_accepted():
    assert compare_parses(parse_of(ORIGINAL), parse_of(DISABLED_MAN)) is None


def test_dependency_labels_are_compared_after_pos():
    assert compare_parses(parse_of(ORIGINAL), parse_of(WOMAN_DEP)) == DEP


# -- Algorithm 3 with a parser that knows the annotated sentences ---------------------------

OTHER = doc(["It", "rains", "."], "PRP VBZ .", "nsubj ROOT punct", [1, 1, 1])
LONG = doc(
    ["The", "gentleman", "said", "that", "it", "constantly", "rains", "."],
    "DT NN VBD IN PRP RB VBZ .",
    "det nsubj ROOT mark nsubj advmod ccomp punct",
    [1, 2, 2, 6, 6, 6, 2, 2],
)
ANNOTATED = {d.text: parse_of(d) for d in (ORIGINAL, HIM, DISABLED_MAN, WOMAN_DEP, OTHER, LONG)}


class DictParser:
    """Parses the annotated sentences; counts requests; fails on anything else."""

    fingerprint = "dict"

    def __init__(self):
        self.requests: list[str] = []

    def parse(self, texts):
        self.requests.extend(texts)
        return [ANNOTATED[t] for t in texts]


SPLIT = SentenceSplitter(spacy.blank("en").tokenizer)


def both(original, mutant, max_chars=None):
    """The literal algorithm and the incremental checker; they must agree."""
    naive = inv_check(original, mutant, SPLIT.split, DictParser().parse, max_chars)
    edits = [{"start": 0, "end": len(original), "replacement": mutant}]
    checker = IncrementalChecker(SPLIT, DictParser(), max_sentence_chars=max_chars)
    (incremental,) = checker.check([("d", original, edits)])
    assert incremental == naive
    return naive


def test_invcheck_fig3():
    o = f"{OTHER.text} {ORIGINAL.text}"
    assert both(o, f"{OTHER.text} {HIM.text}") == Verdict(False, POS, 1)
    assert both(o, f"{OTHER.text} {DISABLED_MAN.text}") == Verdict(True, "ok", None)
    assert both(o, f"{OTHER.text} {WOMAN_DEP.text}") == Verdict(False, DEP, 1)


def test_invcheck_sentence_count():
    assert both(ORIGINAL.text, f"{ORIGINAL.text} {OTHER.text}") == Verdict(
        False, SENTENCE_COUNT, None
    )


def test_invcheck_first_failing_sentence_decides():
    o = f"{ORIGINAL.text} {ORIGINAL.text}"
    assert both(o, f"{WOMAN_DEP.text} {HIM.text}") == Verdict(False, DEP, 0)
    assert both(o, f"{DISABLED_MAN.text} {HIM.text}") == Verdict(False, POS, 1)


def test_too_long_applies_to_changed_sentences_only():
    cap = len(LONG.text) - 1
    assert cap >= len(DISABLED_MAN.text)
    o = f"{LONG.text} {ORIGINAL.text}"
    # The long sentence is unchanged: no cap applies to it.
    assert both(o, f"{LONG.text} {DISABLED_MAN.text}", cap) == Verdict(True, "ok", None)
    assert both(o, f"{ORIGINAL.text} {DISABLED_MAN.text}", cap) == Verdict(False, TOO_LONG, 0)
    assert both(o, f"{ORIGINAL.text} {DISABLED_MAN.text}", None) == Verdict(False, POS, 0)


def test_identical_sentences_are_never_parsed_by_the_incremental_checker():
    parser = DictParser()
    checker = IncrementalChecker(SPLIT, parser)
    original = f"{OTHER.text} {ORIGINAL.text} {OTHER.text}"
    start = len(OTHER.text) + 1
    edits = [{"start": start + 4, "end": start + 7, "replacement": "disabled man"}]
    (verdict,) = checker.check([("d", original, edits)])
    assert verdict.valid
    assert sorted(parser.requests) == sorted([ORIGINAL.text, DISABLED_MAN.text])


def test_parse_holds_tags_and_labels():
    assert parse_of(HIM) == Parse(
        ("DT", "NN", "VBZ", "PRP", "NN", "."), ("det", "nsubj", "ROOT", "dative", "dobj", "punct")
    )
