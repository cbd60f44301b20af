"""Exact answer parsing (the original artifact matched label names as substrings) and the
answer's confidence."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hinter.data import display_names
from hinter.models.answers import (
    ANSWER,
    NO_ANSWER,
    NONE,
    Answer,
    AnswerParser,
    answer_confidence,
)
from hinter.models.prompts import answer_text
from hinter.prompt_spec import PROMPTS_DIR, load_format

LABELS = PROMPTS_DIR.parent / "labels"
NAMES = {ds: display_names(ds, LABELS) for ds in ("ecthr_a", "scotus", "eurlex", "ledgar", "imdb")}
TASKS = {
    "ecthr_a": "multi_label",
    "eurlex": "multi_label",
    "scotus": "multi_class",
    "ledgar": "multi_class",
    "imdb": "multi_class",
}


def parse(dataset: str, raw: str) -> tuple[list[str], str]:
    answer = AnswerParser(NAMES[dataset], TASKS[dataset]).parse(raw)
    return sorted(NAMES[dataset][i] for i in answer.labels), answer.status


@pytest.mark.parametrize(
    ("dataset", "raw", "labels", "status"),
    [
        # substring labels: the artifact counted both
        ("ledgar", "Answer: No Waivers.", ["No Waivers"], ANSWER),
        ("ledgar", "Answer: Waivers.", ["Waivers"], ANSWER),
        ("eurlex", "Answer: trade policy.", ["trade policy"], ANSWER),
        ("eurlex", "Answer: trade.", ["trade"], ANSWER),
        ("ecthr_a", "Answer: Article 10.", ["Article 10"], ANSWER),
        ("ecthr_a", "Answer: Article 1 of Protocol 1.", ["Article 1 of Protocol 1"], ANSWER),
        # multi-label lists, a label containing a comma, duplicates
        (
            "ecthr_a",
            "Answer: Article 8, Article 1 of Protocol 1.",
            ["Article 1 of Protocol 1", "Article 8"],
            ANSWER,
        ),
        (
            "eurlex",
            "Answer: iron, steel and other metal industries and trade policy.",
            ["iron, steel and other metal industries", "trade policy"],
            ANSWER,
        ),
        (
            "ecthr_a",
            "Answer: Article 6; Article 6 and Article 3",
            ["Article 3", "Article 6"],
            ANSWER,
        ),
        # None: the empty set as an answer
        ("ecthr_a", "None.", [], NONE),
        ("ecthr_a", "Answer: None.", [], NONE),
        # trailing text never adds labels
        ("imdb", "Answer: Positive. Some would call it negative.", ["Positive"], ANSWER),
        (
            "scotus",
            "Answer: Civil Rights.\n\nQuestion: Which …? Answer: Due Process.",
            ["Civil Rights"],
            ANSWER,
        ),
        # capitalisation, spacing, emphasis, typography
        ("imdb", "answer:   POSITIVE", ["Positive"], ANSWER),
        ("imdb", "**Answer:** Negative", ["Negative"], ANSWER),
        ("ledgar", "Answer: “Governing Laws”.", ["Governing Laws"], ANSWER),
        # unknown labels
        ("ecthr_a", "Answer: Article 99.", [], NO_ANSWER),
        ("ecthr_a", "Answer: Article 6, Article 99.", ["Article 6"], ANSWER),
        ("scotus", "Answer: Maritime Law.", [], NO_ANSWER),
        # a single-label dataset needs one label
        ("imdb", "positive or negative?", [], NO_ANSWER),
        ("scotus", "Answer: Civil Rights, Due Process.", [], NO_ANSWER),
        ("imdb", "", [], NO_ANSWER),
        ("imdb", "I cannot tell.", [], NO_ANSWER),
        # whole words only
        ("imdb", "Answer: Positively great.", [], NO_ANSWER),
        ("ecthr_a", "Answer: Article 21.", [], NO_ANSWER),
    ],
)
def test_artifact_failure_cases(dataset, raw, labels, status):
    assert parse(dataset, raw) == (labels, status)


# Answers SmolLM2-135M-Instruct gave to the demo's IMDB and SCOTUS prompts (greedy; demo run of
# 2026-11-23), and the free-form ones measured when the issue was written: the parser must read
# them as a person would.
SMOLLM2_ANSWERS = [
    ("imdb", "Answer: Negative.", ["Negative"], ANSWER),
    ("imdb", "Answer: Positive.", ["Positive"], ANSWER),
    ("scotus", "Answer: Unions.", ["Unions"], ANSWER),
    ("scotus", "Answer: Civil Rights.", ["Civil Rights"], ANSWER),
    ("scotus", "Answer: Judicial Power.", ["Judicial Power"], ANSWER),
    ("scotus", "Answer: Miscellaneous Matters.", ["Miscellaneous"], ANSWER),
    ("scotus", "Answer: Miscellaneous matters.", ["Miscellaneous"], ANSWER),
    ("scotus", "Answer: Unites.", [], NO_ANSWER),  # not a label: no answer, kept and counted
    ("imdb", "The sentiment of this review is negative", ["Negative"], ANSWER),
    ("imdb", "This review is negative.", ["Negative"], ANSWER),
]


@pytest.mark.parametrize(("dataset", "raw", "labels", "status"), SMOLLM2_ANSWERS)
def test_smollm2_demo_answers(dataset, raw, labels, status):
    assert parse(dataset, raw) == (labels, status)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["ecthr_a", "eurlex", "ledgar"]),
    st.lists(st.integers(min_value=0, max_value=99), min_size=0, max_size=6, unique=True),
)
def test_expected_answers_parse_back_to_their_labels(dataset, picks):
    """The answer the few-shot examples teach ("Answer: A, B." / "None.") parses back exactly,
    whatever label names it holds (commas, shared words, prefixes of one another)."""
    names = NAMES[dataset]
    labels = sorted({p % len(names) for p in picks})
    if TASKS[dataset] == "multi_class":
        labels = labels[:1]
    raw = answer_text(labels, names, load_format())
    answer = AnswerParser(names, TASKS[dataset]).parse(raw)
    assert list(answer.labels) == labels
    assert answer.status == (ANSWER if labels else NONE)
    assert raw[: answer.end].rstrip(".") == raw.rstrip(".")


def test_parser_refuses_duplicate_names():
    with pytest.raises(ValueError, match="same name"):
        AnswerParser(["Trade", "trade"], "multi_label")


def test_confidence_is_the_probability_of_the_answer_tokens():
    raw = "Answer: Negative. It is bad."
    # tokens: "Answer" ":" " Negative" "." " It" " is" " bad" "."
    ends = [6, 7, 16, 17, 20, 23, 27, 28]
    logprobs = [math.log(p) for p in (0.9, 1.0, 0.5, 0.8, 0.1, 0.1, 0.1, 0.1)]
    answer = AnswerParser(["Negative", "Positive"], "multi_class").parse(raw)
    assert answer == Answer((0,), ANSWER, 16)
    # up to the token completing "Negative": 0.9 * 1.0 * 0.5
    assert answer_confidence(answer, ends, logprobs) == pytest.approx(0.45)
    unparsed = Answer((), NO_ANSWER, 0)
    assert answer_confidence(unparsed, ends, logprobs) == pytest.approx(0.9 * 0.5 * 0.8 * 0.1**4)
    with pytest.raises(ValueError):
        answer_confidence(answer, ends[:-1], logprobs)


@pytest.mark.parametrize(
    ("raw", "labels", "status"),
    [
        # a comment in parentheses after a label does not end the list (review F20)
        (
            "Answer: Article 6 (right to a fair trial), Article 8.",
            ["Article 6", "Article 8"],
            ANSWER,
        ),
        (
            "Answer: Article 3 (torture) (inhuman treatment), Article 8",
            ["Article 3", "Article 8"],
            ANSWER,
        ),
        ("Answer: Article 6 (fair trial (civil)), Article 3", ["Article 3", "Article 6"], ANSWER),
        ("Answer: Article 6 (Article 8)", ["Article 6", "Article 8"], ANSWER),  # a label: read
        ("Answer: Article 6 (not Article 8), Article 3", ["Article 3", "Article 6"], ANSWER),
        ("Answer: Article 6 (unclosed, Article 8", ["Article 6"], ANSWER),
        ("Answer: Article 6 (fair trial). Article 8.", [], NO_ANSWER),  # two lists: contradiction
        # the Convention's spelling of Protocol No. 1 and the Court's short form
        ("Answer: Article 1 of Protocol No. 1.", ["Article 1 of Protocol 1"], ANSWER),
        ("Answer: Article 1 of Protocol No 1", ["Article 1 of Protocol 1"], ANSWER),
        ("Answer: Article 1 of Protocol Number 1.", ["Article 1 of Protocol 1"], ANSWER),
        ("Answer: Article 8, P1-1.", ["Article 1 of Protocol 1", "Article 8"], ANSWER),
        (
            "The applicant relied on Article 1 of Protocol No. 1.",
            ["Article 1 of Protocol 1"],
            ANSWER,
        ),
        ("Answer: Article 1 of Protocol No. 12.", [], NO_ANSWER),
    ],
)
def test_ecthr_comments_and_protocol_spellings(raw, labels, status):
    assert parse("ecthr_a", raw) == (labels, status)


def test_alias_end_covers_the_spelling_the_model_gave():
    raw = "Answer: Article 1 of Protocol No. 1. Explanation follows."
    answer = AnswerParser(NAMES["ecthr_a"], TASKS["ecthr_a"]).parse(raw)
    assert raw[: answer.end] == "Answer: Article 1 of Protocol No. 1"
