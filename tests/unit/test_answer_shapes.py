"""A catalogue of answer shapes LLMs really give (negated, contradictory, hedged, chatty), read
as a careful person would: a negation or a contradiction is no answer, never the label it names
(review 2026-11-25, L13: ``Answer: Not positive.`` was read as Positive)."""

from __future__ import annotations

import pytest

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
