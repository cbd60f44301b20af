"""Atomic and intersectional mutants of one document (docs/design.md §2), the paper's worked
examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hinter.edits import Edit, apply_edits, mutant_id
from hinter.mutation import Pair, SuiteMutator
from hinter.mutation.generate import Segments, spans_overlap
from hinter.mutation.matching import is_word_char

# The pairs of the paper's examples (002 Tables 1, 4 and 6), lower-case as in the dictionary.
PAPER_PAIRS = [
    Pair("g-people-trans", "gender", "people", "trans women"),
    Pair("g-people-nonmasc", "gender", "people", "non-masculine people"),
    Pair("g-he-she", "gender", "he", "she"),
    Pair("r-british", "race", "british", "pakistani"),
    Pair("r-spanish", "race", "spanish", "jamaican"),
    Pair("r-german", "race", "german", "syrian"),
    Pair("b-cute", "body", "cute", "manly"),
    Pair("b-children", "body", "children", "children with mental illness"),
    Pair("b-people", "body", "people", "people with mental disorder"),
]


def texts(mutator, doc_id, text):
    """{pair_ids: (mutant text, mutant)} of one document."""
    return {m.pair_ids: (apply_edits(text, m.edits), m) for m in mutator.mutants(doc_id, text)}


def test_table_1_race_and_gender():
    """002 Table 1, review 19375: people → trans women with British → Pakistani."""
    original = (
        "... There is a special heaven reserved for people who make the world laugh ... "
        "British moviegoers will recognise the fat one from Cannon and Ball ..."
    )
    atomic_race = texts(SuiteMutator(PAPER_PAIRS, ["race"]), "19375", original)
    atomic_gender = texts(SuiteMutator(PAPER_PAIRS, ["gender"]), "19375", original)
    inter = texts(SuiteMutator(PAPER_PAIRS, ["race", "gender"]), "19375", original)
    a1, m1 = atomic_race[("r-british",)]
    a2, m2 = atomic_gender[("g-people-trans",)]
    m, mutant = inter[("r-british", "g-people-trans")]
    assert a1 == original.replace("British", "Pakistani")
    assert a2 == original.replace("for people", "for trans women")
    assert m == (
        "... There is a special heaven reserved for trans women who make the world laugh ... "
        "Pakistani moviegoers will recognise the fat one from Cannon and Ball ..."
    )
    assert [p.mutant_id for p in mutant.parents] == [m1.mutant_id, m2.mutant_id]
    # "he" inside "There"/"the" is not a word: the only gender mutants come from "people"
    assert set(atomic_gender) == {("g-people-trans",), ("g-people-nonmasc",)}


def test_table_1_gender_and_body():
    """002 Table 1, review 44660: people → non-masculine people with cute → manly."""
    original = (
        "The Aristocats is a hilarious film that not many people have seen. ... "
        "I think that The Aristocats is so funny and cute ..."
    )
    mutator = SuiteMutator(PAPER_PAIRS, ["body", "gender"])
    inter = texts(mutator, "44660", original)
    m, mutant = inter[("b-cute", "g-people-nonmasc")]
    assert m == (
        "The Aristocats is a hilarious film that not many non-masculine people have seen. ... "
        "I think that The Aristocats is so funny and manly ..."
    )
    parents = [apply_edits(original, p.edits) for p in mutant.parents]
    assert parents == [
        original.replace("cute", "manly"),
        original.replace("many people", "many non-masculine people"),
    ]
    # body's "people → people with mental disorder" hits the same word as gender's "people":
    # those combinations overlap and are skipped, not generated
    assert ("b-people", "g-people-nonmasc") not in inter
    assert mutator.counts.overlapping == 2  # b-people × the two gender pairs on "people"


def test_table_4_body_and_race():
    """002 Table 4 (Eurlex): children → children with mental illness with Spanish → Jamaican."""
    original = (
        "[...] the normal behaviour of children [...] the Spanish authorities have raised a "
        "formal objection [...]"
    )
    inter = texts(SuiteMutator(PAPER_PAIRS, ["body", "race"]), "173", original)
    m, _ = inter[("b-children", "r-spanish")]
    assert m == (
        "[...] the normal behaviour of children with mental illness [...] the Jamaican "
        "authorities have raised a formal objection [...]"
    )


def test_table_6_three_attributes():
    """002 Table 6 (N=3): people → people with mental disorder, German → Syrian, He → She.

    The paper prints the gender mutant of "he’s" as "She is"; we replace the word "he" and keep
    its case and the rest of the text ("she’s"), the capitalised "People" stays capitalised.
    """
    original = "... People who have enjoyed ... Carver is German ...he’s not really staying ..."
    mutator = SuiteMutator(PAPER_PAIRS, ["body", "race", "gender"])
    inter = texts(mutator, "12", original)
    m, mutant = inter[("b-people", "r-german", "g-he-she")]
    assert m == (
        "... People with mental disorder who have enjoyed ... Carver is Syrian ...she’s not "
        "really staying ..."
    )
    assert [apply_edits(original, p.edits) for p in mutant.parents] == [
        original.replace("People", "People with mental disorder"),
        original.replace("German", "Syrian"),
        original.replace("he’s", "she’s"),
    ]
    assert mutant.order == 3
    # gender's two "people" pairs overlap body's "people" pair: 2 combinations skipped
    assert mutator.counts.overlapping == 2
    assert len(inter) == 1


def test_every_occurrence_is_replaced_with_its_own_case():
    text = "People say people are PEOPLE."
    (mutant,) = SuiteMutator([Pair("p", "g", "people", "folks")], ["g"]).mutants("d", text)
    assert apply_edits(text, mutant.edits) == "Folks say folks are FOLKS."


def test_intersectional_mutant_ids_are_stable_and_match_atomic_ids():
    text = "the man is British"
    pairs = [Pair("g", "gender", "man", "woman"), Pair("r", "race", "british", "german")]
    (inter,) = SuiteMutator(pairs, ["gender", "race"]).mutants("d", text)
    (atomic,) = SuiteMutator(pairs, ["race"]).mutants("d", text)
    assert inter.parents[1] == atomic
    assert inter.mutant_id == mutant_id("d", inter.edits)
    assert inter.mutant_id != mutant_id("other", inter.edits)


def test_duplicates_and_unchanged_are_dropped_and_counted():
    text = "the man and the Man"
    pairs = [
        Pair("a", "g", "man", "woman"),
        Pair("b", "g", "man", "woman"),  # a duplicated dictionary line
        Pair("c", "g", "man", "MAN"),  # same word: an upper-case occurrence stays "MAN"...
    ]
    mutator = SuiteMutator(pairs, ["g"])
    got = list(mutator.mutants("d", text))
    assert [m.pair_ids for m in got] == [("a",), ("c",)]
    assert mutator.counts.duplicates == 1
    assert mutator.counts.generated == 2
    # ... and a pair whose replacement changes nothing is unchanged
    mutator = SuiteMutator([Pair("x", "g", "man", "man")], ["g"])
    assert list(mutator.mutants("d", text)) == []
    assert mutator.counts.unchanged == 1


def test_sequential_mode_reproduces_the_original_artifact():
    """Sequential: the second pair also hits a word the first one inserted (docs/design.md §8)."""
    text = "the kids and people"
    pairs = [
        Pair("b", "body", "kids", "young people"),
        Pair("g", "gender", "people", "trans women"),
    ]
    simultaneous = list(SuiteMutator(pairs, ["body", "gender"]).mutants("d", text))
    sequential = list(SuiteMutator(pairs, ["body", "gender"], "sequential").mutants("d", text))
    assert apply_edits(text, simultaneous[0].edits) == "the young people and trans women"
    assert apply_edits(text, sequential[0].edits) == "the young trans women and trans women"
    # still edits against the original, and the same atomic parents
    assert sequential[0].edits == (Edit(4, 8, "young trans women"), Edit(13, 19, "trans women"))
    assert sequential[0].parents == simultaneous[0].parents


def test_sequential_mode_keeps_overlapping_combinations():
    text = "people here"
    pairs = [
        Pair("b", "body", "people", "people with mental disorder"),
        Pair("g", "gender", "people", "trans women"),
    ]
    simultaneous = SuiteMutator(pairs, ["body", "gender"])
    assert list(simultaneous.mutants("d", text)) == []
    assert simultaneous.counts.overlapping == 1
    sequential = SuiteMutator(pairs, ["body", "gender"], "sequential")
    (m,) = sequential.mutants("d", text)
    assert apply_edits(text, m.edits) == "trans women with mental disorder here"


def test_window_limits_the_mutated_part_only():
    text = "the man met the man"
    (m,) = SuiteMutator([Pair("g", "g", "man", "woman")], ["g"]).mutants("d", text, window_end=7)
    assert apply_edits(text, m.edits) == "the woman met the man"


def test_invalid_suites_are_refused():
    with pytest.raises(ValueError, match="distinct"):
        SuiteMutator(PAPER_PAIRS, ["race", "race"])
    with pytest.raises(ValueError, match="no pairs"):
        SuiteMutator(PAPER_PAIRS, ["religion"])
    with pytest.raises(ValueError, match="mode"):
        SuiteMutator(PAPER_PAIRS, ["race"], "parallel")


# ---- properties -------------------------------------------------------------------------------

VOCAB = {
    "race": ["british", "german", "black", "african american"],
    "gender": ["man", "he", "woman", "her"],
    "body": ["old", "old man", "fat", "tall"],
}
TARGETS = ["pakistani", "syrian", "white", "she", "him", "young", "thin", "trans women", "x"]
FILLER = ["the", "a", "manly", "other", "herb", "germany", "is", "there", "fat-free"]
SEPARATORS = [" ", ", ", ". ", "\n", " (", ") ", "'s ", "-"]


def _cased(word, style):
    return {0: word, 1: word.capitalize(), 2: word.upper(), 3: word.title()}[style]


@st.composite
def documents(draw):
    words = draw(
        st.lists(
            st.tuples(
                st.sampled_from([w for ws in VOCAB.values() for w in ws] + FILLER),
                st.integers(0, 3),
                st.sampled_from(SEPARATORS),
            ),
            min_size=1,
            max_size=25,
        )
    )
    return "".join(_cased(w, c) + sep for w, c, sep in words)


@st.composite
def dictionaries(draw):
    pairs = []
    for attribute, sources in VOCAB.items():
        for i, source in enumerate(sources):
            for target in draw(st.lists(st.sampled_from(TARGETS), max_size=2, unique=True)):
                pairs.append(Pair(f"{attribute}-{i}-{target}", attribute, source, target))
    for attribute, sources in VOCAB.items():  # every attribute needs at least one pair
        if not any(p.attribute == attribute for p in pairs):
            pairs.append(Pair(f"{attribute}-default", attribute, sources[0], "x"))
    return pairs


def _case_pattern(s):
    cased = [c for c in s if c.lower() != c.upper()]
    if all(c.islower() for c in cased):
        return "lower"
    if len(cased) > 1 and all(c.isupper() for c in cased):
        return "upper"
    if cased[0].isupper() and all(c.islower() for c in cased[1:]):
        return "capitalised"
    return "other"


def _check_mutant(text, mutant, window_end):
    edits = list(mutant.edits)
    assert edits == sorted(edits)
    mutated = apply_edits(text, edits)
    # text outside the edited spans is unchanged, at the shifted position
    shift = 0
    previous = 0
    for e in [*edits, Edit(len(text), len(text), "")]:
        gap = text[previous : e.start]
        assert mutated[previous + shift : e.start + shift] == gap
        shift += len(e.replacement) - (e.end - e.start)
        previous = e.end
    for e in edits:
        assert e.end <= window_end
        # no edit cuts a word
        assert e.start == 0 or not (is_word_char(text[e.start]) and is_word_char(text[e.start - 1]))
        assert e.end == len(text) or not (
            is_word_char(text[e.end - 1]) and is_word_char(text[e.end])
        )
        # case is preserved (every target here is lower-case in the dictionary)
        pattern = _case_pattern(text[e.start : e.end])
        if pattern == "lower":
            assert e.replacement == e.replacement.lower()
        if pattern == "upper":
            assert e.replacement == e.replacement.upper()
        if pattern == "capitalised":
            assert e.replacement[0].isupper()


@settings(max_examples=150, deadline=None)
@given(documents(), dictionaries(), st.integers(0, 400))
def test_properties_of_atomic_and_intersectional_mutants(text, pairs, window_end):
    window_end = min(window_end, len(text))
    atomic = {}
    for attribute in VOCAB:
        for m in SuiteMutator(pairs, [attribute]).mutants("doc", text, window_end):
            _check_mutant(text, m, window_end)
            atomic[m.pair_ids[0]] = m
    for attrs in (["race", "gender"], ["body", "gender"], ["body", "race"], list(VOCAB)):
        mutator = SuiteMutator(pairs, attrs)
        seen_texts = set()
        for m in mutator.mutants("doc", text, window_end):
            _check_mutant(text, m, window_end)
            # the edits are the union of the parents' edits; parents are the atomic mutants
            assert list(m.edits) == sorted(e for p in m.parents for e in p.edits)
            assert [p.attributes[0] for p in m.parents] == attrs
            for p, pair_id in zip(m.parents, m.pair_ids, strict=True):
                assert p.pair_ids == (pair_id,)
                assert p.mutant_id == atomic.get(pair_id, p).mutant_id
            for a in range(len(m.parents)):
                for b in range(a + 1, len(m.parents)):
                    spans_a = [(e.start, e.end) for e in m.parents[a].edits]
                    spans_b = [(e.start, e.end) for e in m.parents[b].edits]
                    assert not spans_overlap(spans_a, spans_b)
            mutated = apply_edits(text, m.edits)
            assert mutated not in seen_texts and mutated != text
            seen_texts.add(mutated)
        c = mutator.counts
        assert c.combinations == c.overlapping + c.unchanged + c.duplicates + c.generated


@settings(max_examples=100, deadline=None)
@given(documents(), dictionaries())
def test_sequential_equals_simultaneous_without_interference(text, pairs):
    """With targets that contain no source term, the two modes only differ on overlaps."""
    clean = [p for p in pairs if p.target in ("pakistani", "syrian", "thin", "x")]
    for attrs in (["race", "gender"], ["body", "race"]):
        if not all(any(p.attribute == a for p in clean) for a in attrs):
            continue
        simultaneous = {m.pair_ids: m for m in SuiteMutator(clean, attrs).mutants("d", text)}
        sequential = {
            m.pair_ids: m for m in SuiteMutator(clean, attrs, "sequential").mutants("d", text)
        }
        for key, m in simultaneous.items():
            assert apply_edits(text, sequential[key].edits) == apply_edits(text, m.edits)


@st.composite
def edit_rounds(draw):
    text = draw(st.text(alphabet="abc ", max_size=20))
    rounds = []
    current = text
    for _ in range(draw(st.integers(1, 3))):
        cuts = sorted(draw(st.lists(st.integers(0, len(current)), max_size=6)))
        edits = []
        for a, b in zip(cuts[::2], cuts[1::2], strict=False):
            edits.append(Edit(a, b, draw(st.text(alphabet="xyz ", max_size=4))))
        rounds.append(edits)
        current = apply_edits(current, edits)
    return text, rounds, current


@settings(max_examples=300, deadline=None)
@given(edit_rounds())
def test_segments_compose_edit_rounds_into_edits_against_the_original(case):
    text, rounds, expected = case
    segments = Segments(text)
    for edits in rounds:
        segments.apply(edits)
    assert segments.text() == expected
    assert apply_edits(text, segments.edits()) == expected
