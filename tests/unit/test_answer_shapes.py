"""A catalogue of answer shapes LLMs really give (negated, contradictory, hedged, chatty), read
as a careful person would: a negation or a contradiction is no answer, never the label it names
(review 2026-11-25, L13: ``Answer: Not positive.`` was read as Positive)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hinter.models.answers import ANSWER, NO_ANSWER, NONE, AnswerParser

IMDB = AnswerParser(["Negative", "Positive"], "multi_class")
LEDGAR = AnswerParser(["Waivers", "No Waivers", "Governing Laws", "Notices"], "multi_class")
ECTHR = AnswerParser(["Article 3", "Article 6", "Article 8"], "multi_label")

CATALOGUE = [
    # negations: no answer (the label word inside them is not the answer)
    (IMDB, "Answer: Not positive.", (), NO_ANSWER),
    (IMDB, "Answer: not Positive", (), NO_ANSWER),
    (IMDB, "Answer: NOT POSITIVE.", (), NO_ANSWER),
    (IMDB, "The review is not negative.", (), NO_ANSWER),
    (IMDB, "The sentiment isn't positive.", (), NO_ANSWER),
    (IMDB, "I would never call this positive.", (), NO_ANSWER),
    (IMDB, "Answer: No, negative.", (), NO_ANSWER),
    (IMDB, "Neither positive nor negative.", (), NO_ANSWER),
    (IMDB, "It cannot be negative.", (), NO_ANSWER),
    # contradictions: two answers on one line
    (IMDB, "Answer: Positive. Negative.", (), NO_ANSWER),
    (IMDB, "Answer: Positive. Answer: Negative.", (), NO_ANSWER),
    (IMDB, "Answer: Positive! NEGATIVE", (), NO_ANSWER),
    (IMDB, "Answer: Positive - Negative", (), NO_ANSWER),
    (IMDB, "Answer: Positive, Negative.", (), NO_ANSWER),
    (ECTHR, "Answer: Article 3. Article 8.", (), NO_ANSWER),
    (ECTHR, "Answer: Article 3. None.", (), NO_ANSWER),
    # the same answer repeated, or explained: kept
    (IMDB, "Answer: Positive. Positive.", (1,), ANSWER),
    (IMDB, "Answer: Positive. Some would call it negative.", (1,), ANSWER),
    (IMDB, "Answer: Positive, not negative.", (1,), ANSWER),
    (IMDB, "Answer: Negative.\nAnswer: Positive.", (0,), ANSWER),  # the next line is not read
    (IMDB, "The sentiment of this review is negative", (0,), ANSWER),
    (IMDB, "**Answer:** Positive", (1,), ANSWER),
    # a negation that is part of a label name is not a negation
    (LEDGAR, "Answer: No Waivers.", (1,), ANSWER),
    (LEDGAR, "The clause is about No Waivers.", (1,), ANSWER),
    (LEDGAR, "This is not about Notices.", (), NO_ANSWER),
    (ECTHR, "Answer: Article 3, Article 8.", (0, 2), ANSWER),
    (ECTHR, "Answer: None.", (), NONE),
]


@pytest.mark.parametrize(("parser", "raw", "labels", "status"), CATALOGUE)
def test_answer_shapes(parser, raw, labels, status):
    answer = parser.parse(raw)
    assert (answer.labels, answer.status) == (labels, status), raw


# review 2026-11-28 (N38): a prefixed negation is a negation
TOXIC = AnswerParser(["toxic", "neutral"], "multi_class")
LEDGAR_NEG = AnswerParser(["Non-Disparagement", "Disparagement", "Notices"], "multi_class")
PREFIXED = [
    (TOXIC, "Answer: Non-toxic.", (), NO_ANSWER),
    (TOXIC, "Answer: non toxic", (), NO_ANSWER),
    (TOXIC, "Answer: NON-TOXIC", (), NO_ANSWER),
    (TOXIC, "Answer: Un-toxic.", (), NO_ANSWER),
    (TOXIC, "Answer: Not toxic.", (), NO_ANSWER),
    (TOXIC, "Answer: not-toxic", (), NO_ANSWER),
    (TOXIC, "The text is non\u2011toxic.", (), NO_ANSWER),  # a non-breaking hyphen
    (TOXIC, "Answer: Nontoxic.", (), NO_ANSWER),  # one word, not the label
    (TOXIC, "Answer: Neutral, non-toxic.", (1,), ANSWER),  # the list ends at the negation
    (TOXIC, "Answer: Toxic.", (0,), ANSWER),
    (LEDGAR_NEG, "Answer: Non-Disparagement.", (0,), ANSWER),  # the negation is the label's
    (LEDGAR_NEG, "Answer: Disparagement.", (1,), ANSWER),
]


@pytest.mark.parametrize(("parser", "raw", "labels", "status"), PREFIXED)
def test_prefixed_negations_are_not_the_label(parser, raw, labels, status):
    answer = parser.parse(raw)
    assert (answer.labels, answer.status) == (labels, status), raw


def _built_in_label_sets() -> dict[str, tuple[list[str], str]]:
    """Every built-in prompt's label names (resources/labels) and task type."""
    from hinter.data import FACTS, display_names
    from hinter.prompt_spec import PROMPTS_DIR

    return {
        ds: (display_names(ds, PROMPTS_DIR.parent / "labels"), FACTS[ds].task_type)
        for ds in ("imdb", "scotus", "ledgar", "eurlex", "ecthr_a")
    }


SHAPES = [  # (answer shape, reads as the label?)
    ("Answer: {}.", True),
    ("**Answer:** {}", True),
    ("The answer is {}.", True),
    ("Answer: Not {}.", False),
    ("Answer: Non-{}.", False),
    ("Answer: non {}", False),
    ("Answer: Un-{}.", False),
    ("It is not {}.", False),
    ("Answer: {}. Not really.", True),  # an explanation after the answer is not read
]


@pytest.mark.parametrize("dataset", ["imdb", "scotus", "ledgar", "eurlex", "ecthr_a"])
def test_every_built_in_label_in_every_shape(dataset):
    """The catalogue's shapes on every label of every built-in prompt (226 labels x 9)."""
    names, task = _built_in_label_sets()[dataset]
    parser = AnswerParser(names, task)
    wrong = []
    for i, name in enumerate(names):
        for shape, reads in SHAPES:
            raw = shape.format(name)
            answer = parser.parse(raw)
            expected = ((i,), ANSWER) if reads else ((), NO_ANSWER)
            if (answer.labels, answer.status) != expected:
                wrong.append((raw, answer.labels, answer.status))
    assert wrong == []


_RESERVED = {"none", "answer", "and", "or", "not", "no", "non", "un", "never", "neither", "nor",
             "hardly", "cannot", "without", "is", "it", "the"}  # fmt: skip
_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8).filter(
    lambda w: w not in _RESERVED
)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(_NAME, min_size=2, max_size=6, unique=True),
    pick=st.integers(min_value=0, max_value=5),
    case=st.sampled_from([str.lower, str.upper, str.title, str]),
    negation=st.sampled_from(["Not {}.", "Non-{}.", "non {}", "Un-{}.", "It is not {}."]),
)
def test_any_label_set_reads_its_names_and_never_their_negations(names, pick, case, negation):
    """Property over label names: every name, in any case, reads as its label; every negated
    form of it (not, non-, un-) reads as no answer."""
    parser = AnswerParser(names, "multi_class")
    i = pick % len(names)
    answer = parser.parse(f"Answer: {case(names[i])}.")
    assert (answer.labels, answer.status) == ((i,), ANSWER)
    negated = parser.parse("Answer: " + negation.format(case(names[i])))
    assert (negated.labels, negated.status) == ((), NO_ANSWER)


# review 2026-11-28 (N39): an answer withdrawn on its own line is no answer
RETRACTIONS = [
    (IMDB, "Answer: Positive? No. Negative.", (), NO_ANSWER),
    (IMDB, "Answer: Positive isn't right; Negative.", (), NO_ANSWER),
    (IMDB, "Answer: Positive. No, wait: negative.", (), NO_ANSWER),
    (IMDB, "Answer: Positive, not Negative.", (1,), ANSWER),
    (IMDB, "Answer: Negative (not Positive).", (0,), ANSWER),
    (IMDB, "Answer: Positive. It is not negative at all.", (1,), ANSWER),
    (ECTHR, "Answer: Article 3, Article 8. Not Article 6.", (0, 2), ANSWER),
]


@pytest.mark.parametrize(("parser", "raw", "labels", "status"), RETRACTIONS)
def test_retractions_are_no_answer(parser, raw, labels, status):
    answer = parser.parse(raw)
    assert (answer.labels, answer.status) == (labels, status), raw
