"""The sentence splitter equals spaCy's rule-based Sentencizer on spaCy's tokenizer."""

from __future__ import annotations

import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.pipeline import Sentencizer

from hinter.invariant import SentenceSplitter

NLP = spacy.blank("en")
FRAGMENTS = [
    "The",
    "man",
    "Mr.",
    "U.S.",
    "e.g.",
    "left",
    ".",
    "!",
    "?",
    "...",
    "?!",
    '"',
    "'",
    ")",
    "(",
    ",",
    "-",
    "3.5",
    "don't",
    ":)",
    "。",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
]
# Fragments, each followed by a space or not: glued punctuation, runs of whitespace, quotes.
texts = st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.booleans()), max_size=30).map(
    lambda parts: "".join(p + " " if space else p for p, space in parts)
)


def reference(text: str, punct_chars=None) -> list[str]:
    doc = Sentencizer(punct_chars=punct_chars)(NLP.tokenizer(text))
    return [s.text for s in doc.sents] if len(doc) else []


@settings(max_examples=300)
@given(texts)
def test_matches_spacys_sentencizer(text):
    assert SentenceSplitter(NLP.tokenizer).split(text) == reference(text)


@given(texts)
def test_custom_sentence_final_characters(text):
    chars = [".", ";"]
    assert SentenceSplitter(NLP.tokenizer, chars).split(text) == reference(text, chars)


def test_spans_are_character_offsets():
    text = 'He left.  She came!"Why?" he asked.\n\nNew para'
    splitter = SentenceSplitter(NLP.tokenizer)
    spans = splitter.spans(text)
    assert [text[a:b] for a, b in spans] == splitter.split(text)
    assert splitter.split(text) == ["He left.", ' She came!"Why?"', "he asked.", "\n\nNew para"]


def test_empty_and_blank_texts():
    splitter = SentenceSplitter(NLP.tokenizer)
    assert splitter.split("") == []
    assert splitter.split("  ") == ["  "]


def test_uses_the_pipelines_sentencizer_characters():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer", config={"punct_chars": [";"]})
    splitter = SentenceSplitter.for_pipeline(nlp)
    assert splitter.split("One; two. Three") == ["One;", "two. Three"]
    assert SentenceSplitter.for_pipeline(spacy.blank("en")).split("One; two. Three") == [
        "One; two.",
        "Three",
    ]
