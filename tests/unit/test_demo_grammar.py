"""The demo grammar: lexicon, well-formed analyses, spaCy tokenization, coverage."""

from __future__ import annotations

import random

import pytest
import spacy

from hinter.demo.grammar import DOMAINS, Lexicon, Sentence, parse_tokens
from hinter.demo.sentences import Writer
from hinter.demo.tags import DEP_LABELS, PTB_TAGS
from hinter.errors import DataError


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon.load()


@pytest.fixture(scope="module")
def tokenizer():
    return spacy.blank("en").tokenizer


def draw_sentence(writer: Writer) -> Sentence:
    """One sentence of any domain: narrative, topic (any label of any dataset) or sentiment."""
    x = writer.rng.random()
    if x < 0.55:
        return writer.narrative(writer.pick(DOMAINS))
    if x < 0.85:
        dataset = writer.pick(sorted(writer.lex.topics))
        return writer.topic_sentence(dataset, writer.pick(sorted(writer.lex.topics[dataset])))
    return writer.topic_sentence("imdb", writer.pick(["pos", "neg"]))


@pytest.fixture(scope="module")
def sample(lexicon) -> list[Sentence]:
    writer = Writer(lexicon, random.Random(3))
    return [draw_sentence(writer) for _ in range(1500)]


def _projective(s: Sentence) -> bool:
    arcs = [(min(i, h), max(i, h)) for i, h in enumerate(s.heads) if h != i]
    return not any(a < c < b < d for a, b in arcs for c, d in arcs)


def test_sentences_are_single_rooted_projective_trees_with_spacy_labels(sample):
    for s in sample:
        assert len(s.words) == len(s.tags) == len(s.heads) == len(s.deps) == len(s.spaces)
        assert s.deps.count("ROOT") == 1
        root = s.deps.index("ROOT")
        assert s.heads[root] == root
        assert set(s.tags) <= PTB_TAGS, s.text
        assert set(s.deps) <= DEP_LABELS, s.text
        assert _projective(s), s.text
        assert s.words[-1] in ".!?" and s.words[0][0].isupper()


def test_words_are_exactly_spacys_tokens(sample, tokenizer):
    bad = [s.text for s in sample if [t.text for t in tokenizer(s.text)] != s.words]
    assert not bad, bad[:3]


def test_same_seed_same_sentences_other_seed_other_sentences(lexicon):
    def draw(seed):
        w = Writer(lexicon, random.Random(seed))
        return [draw_sentence(w).text for _ in range(50)]

    assert draw(1) == draw(1)
    assert draw(1) != draw(2)


def test_every_attribute_and_the_invariant_distinctions_occur(sample):
    attributes = set().union(*(s.attributes() for s in sample))
    assert attributes == {"race", "gender", "body"}
    her = {(s.tags[i], s.deps[i]) for s in sample for i, w in enumerate(s.words) if w == "her"}
    assert ("PRP$", "poss") in her  # possessive her
    assert {("PRP", "dobj"), ("PRP", "dative"), ("PRP", "pobj")} & her  # object her
    his = {s.tags[i] for s in sample for i, w in enumerate(s.words) if w.lower() == "his"}
    assert his == {"PRP$", "PRP"}  # 'his book' and 'the choice was his'
    multi = {e.term for s in sample for e, a, b in s.terms if e.attribute == "body" and b - a > 1}
    one = {e.term for s in sample for e, a, b in s.terms if e.attribute == "body" and b - a == 1}
    assert {"people", "women", "men"} <= one
    assert any(" with " in t for t in multi) and any(t.startswith("old ") for t in multi)


def test_lexicon_covers_sources_and_targets_of_the_dictionary(lexicon):
    # words of the published dictionary's class files, sources and targets alike
    race = {
        "british",
        "pakistani",
        "german",
        "syrian",
        "spanish",
        "jamaican",
        "briton",
        "jew",
        "south african",
        "native american",
        "middle eastern",
        "mixed race",
        "non-white",
        "white",
        "black",
        "israel",
        "faroe islander",
        "soviets",
    }
    gender = {
        "he",
        "she",
        "him",
        "her",
        "his",
        "hers",
        "himself",
        "herself",
        "man",
        "woman",
        "men",
        "women",
        "mr",
        "mrs",
        "ms",
        "miss",
        "actor",
        "actress",
        "nurse",
        "engineer",
        "CEO",
        "construction worker",
        "paternity",
        "maternity",
        "prostate",
        "ovarian",
        "dog",
    }
    body = {
        "people",
        "folks",
        "children",
        "seniors",
        "diabetics",
        "man",
        "woman",
        "people with mental disorder",
        "old women",
        "trans women",
        "disabled man",
        "non-masculine folks",
        "red haired people",
        "mass shooting victims",
        "old man",
    }
    assert race <= lexicon.terms("race")
    assert {t.lower() for t in gender} <= lexicon.terms("gender")
    assert body <= lexicon.terms("body")
    assert len(lexicon.terms("race")) == 116  # every race word of the published dictionary


def test_topics_cover_every_label(lexicon):
    sizes = {"ecthr_a": 10, "scotus": 14, "eurlex": 100, "ledgar": 100}
    for dataset, n in sizes.items():
        assert sorted(lexicon.topics[dataset]) == list(range(n))


@pytest.mark.parametrize(
    "spec",
    [
        "people/NNS with/IN/prep/1 x/JJ/amod/9",
        "people/QQ",
        "a/DT/det people/NNS",
        "a/DT/nosuch/2 people/NNS",
        "a/DT/det/2 b/NN/amod/1",
        "a/DT/det/1 b/NN",
        "a/JJ/amod/3 b/NN/amod/1 c/NN/compound/2 d/NN",
    ],
)
def test_bad_token_specs_are_one_line_errors(spec):
    with pytest.raises(DataError):
        parse_tokens(spec, "lexicon.tsv:1")
