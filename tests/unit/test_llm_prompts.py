"""Prompts as data: every template filled, examples resolved and excluded, text pinned."""

from __future__ import annotations

import dataclasses
import functools
import os
from pathlib import Path

import pyarrow as pa
import pytest

from hinter import tables
from hinter.data import display_names
from hinter.errors import ConfigError, DataError
from hinter.models.prompts import (
    answer_text,
    build_prompt,
    check_paper_examples,
    excluded_documents,
    resolve_examples,
    text_digest,
    truncate_words,
)
from hinter.prompt_spec import PROMPTS_DIR, load_prompt_spec

DATASETS = ["ecthr_a", "scotus", "eurlex", "ledgar", "imdb"]
GOLDEN = Path(__file__).parent / "golden" / "prompts"
LABELS = PROMPTS_DIR.parent / "labels"
FILLER = "The parties agreed to the terms set out below and signed them on the same day."


# IMDB's examples are named by the digest of the real reviews' texts (tests/unit/
# test_imdb_fewshot.py finds them in real data); here synthetic stand-ins that open as 001
# Table 8 shows, at rows of their own, replace the digests.
IMDB_STANDINS = {
    5: "In 1970, after a five-year absence, Kurosawa",
    2: "Don't waste your time on this film",
    7: "I know technically this isn't the greatest TV show ever",
}
BODY = " ".join(f"word{k}" for k in range(200))


@functools.cache
def _spec(dataset: str):
    """The dataset's prompt spec; IMDB's digests replaced by those of the stand-ins."""
    spec = load_prompt_spec(dataset)
    if dataset != "imdb":
        return spec
    examples = tuple(
        dataclasses.replace(e, sha256=text_digest(f"{start} {BODY}"))
        for e, start in zip(spec.examples, IMDB_STANDINS.values(), strict=True)
    )
    return dataclasses.replace(spec, examples=examples)


@functools.cache
def _paper_train(dataset: str) -> pa.Table:
    """A train split holding, at the paper's indices (IMDB: at rows of its own), documents that
    start as 001 Table 8 shows and carry its answers (longer than the shown 150 words); filler
    elsewhere."""
    spec = _spec(dataset)
    names = display_names(dataset, LABELS)
    rows = list(IMDB_STANDINS) if dataset == "imdb" else [e.index for e in spec.examples]
    starts = (
        list(IMDB_STANDINS.values()) if dataset == "imdb" else [e.starts for e in spec.examples]
    )
    n = max(rows) + 1
    texts = [f"{FILLER} ({i})" for i in range(n)]
    labels: list[list[int]] = [[0] for _ in range(n)]
    for row, start, example in zip(rows, starts, spec.examples, strict=True):
        texts[row] = f"{start} {BODY}"
        labels[row] = sorted(names.index(a) for a in example.answer)
    return pa.table(
        {"doc_id": [f"train-{i:06d}" for i in range(n)], "text": texts, "labels": labels},
        schema=tables.DOCUMENTS,
    )


def _render(messages: list[dict]) -> str:
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages) + "\n"


@pytest.mark.parametrize("dataset", DATASETS)
def test_default_prompt_text_is_pinned(dataset):
    """Golden files (tests/unit/golden/prompts): the paper's prompt with every placeholder
    filled, the label list included, three examples from the paper's train indices.
    HINTER_UPDATE_GOLDEN=1 rewrites them (review the diff)."""
    spec = _spec(dataset)
    names = display_names(dataset, LABELS)
    examples = resolve_examples(spec, _paper_train(dataset), from_hub=True)
    if dataset == "imdb":
        assert [e.index for e in examples] == list(IMDB_STANDINS)
        assert all(e.by_content for e in examples)
    else:
        assert [e.index for e in examples] == [e.index for e in spec.examples]
    assert check_paper_examples(spec, examples, names) == []
    prompt = build_prompt(spec, "default", names, examples)
    text = _render(prompt.messages("THE DOCUMENT UNDER TEST."))
    path = GOLDEN / f"{dataset}.txt"
    if os.environ.get("HINTER_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert "[LABELS]" not in text and "{labels}" not in text and "{text}" not in text
    if dataset != "imdb":  # IMDB's paper instruction names no label list
        assert ", ".join(names) in prompt.context[0]["content"]
    assert text.count("[user]") == 4 and text.count("[assistant]") == 3
    assert text.rstrip().endswith("Text: THE DOCUMENT UNDER TEST.")


@pytest.mark.parametrize("dataset", DATASETS)
def test_every_template_fills_every_placeholder(dataset):
    spec = _spec(dataset)
    names = display_names(dataset, LABELS)
    examples = resolve_examples(spec, _paper_train(dataset), from_hub=True)
    assert {"default", "alt1", "alt2"} <= set(spec.templates)
    digests = set()
    for template in spec.templates:
        prompt = build_prompt(spec, template, names, examples)
        for message in prompt.messages("x"):
            assert "{" not in message["content"] and "[LABELS]" not in message["content"]
        digests.add(prompt.digest)
        # the examples and their answers never change with the template (RQ6.2)
        assert [m["content"] for m in prompt.context[2::2]] == [
            answer_text(e.labels, names, spec.format) for e in examples
        ]
    assert len(digests) == len(spec.templates)


def test_ecthr_examples_answer_with_articles_and_none():
    spec = load_prompt_spec("ecthr_a")
    names = display_names("ecthr_a", LABELS)
    examples = resolve_examples(spec, _paper_train("ecthr_a"), from_hub=True)
    answers = [answer_text(e.labels, names, spec.format) for e in examples]
    assert answers == ["Answer: Article 6.", "Answer: Article 8, Article 1 of Protocol 1.", "None."]


def test_demo_rule_first_distinct_label_sets():
    train = pa.table(
        {
            "doc_id": [f"train-{i:06d}" for i in range(6)],
            "text": [f"Text number {i}." for i in range(6)],
            "labels": [[1], [1], [0], [1], [0], [1]],
        },
        schema=tables.DOCUMENTS,
    )
    spec = load_prompt_spec("imdb")
    examples = resolve_examples(spec, train)  # the paper's reviews are not here
    # label sets {1} and {0} first, completed by the next document: positive, negative, positive
    assert [e.index for e in examples] == [0, 2, 1]
    assert excluded_documents(examples) == ["train-000000", "train-000002", "train-000001"]
    with pytest.raises(DataError, match=r"4120_9\.txt .* not in the imdb train split"):
        resolve_examples(spec, train, from_hub=True)
    with pytest.raises(DataError, match="beyond the 6 rows"):
        resolve_examples(load_prompt_spec("ledgar"), train, from_hub=True)
    with pytest.raises(DataError, match="3 few-shot examples are needed"):
        resolve_examples(spec, train.slice(0, 2))


def test_paper_example_mismatch_is_reported():
    spec = load_prompt_spec("ledgar")
    names = display_names("ledgar", LABELS)
    train = _paper_train("ledgar")
    texts = train.column("text").to_pylist()
    texts[32072] = "Something else entirely."
    train = train.set_column(1, "text", pa.array(texts))
    problems = check_paper_examples(spec, resolve_examples(spec, train, from_hub=True), names)
    assert problems == [
        "train row 32072 does not start with 'Any waiver of a provision of this Agreement'"
    ]


def test_imdb_examples_are_found_by_content_in_any_order():
    """Rows move (another split order), the examples follow their texts; one text changed by a
    character is missing, which stops a hub run (one line naming the review) and sends the demo
    to its own rule."""
    spec = _spec("imdb")
    train = _paper_train("imdb")
    order = list(range(train.num_rows))[::-1]
    moved = train.take(order)
    examples = resolve_examples(spec, moved, from_hub=True)
    assert [e.doc_id for e in examples] == ["train-000005", "train-000002", "train-000007"]
    names = display_names("imdb", LABELS)
    assert check_paper_examples(spec, examples, names) == []
    texts = train.column("text").to_pylist()
    texts[2] = texts[2].replace("film", "film ")
    changed = train.set_column(1, "text", pa.array(texts))
    with pytest.raises(
        DataError, match=r"example aclImdb/train/neg/4771_2\.txt \(sha256 [0-9a-f]{16}…\) is not in"
    ) as info:
        resolve_examples(spec, changed, from_hub=True)
    assert "\n" not in str(info.value)
    fallback = resolve_examples(spec, changed)
    assert not any(e.by_content for e in fallback)
    # a label that is not the paper's answer is reported
    labels = train.column("labels").to_pylist()
    labels[5] = [0]
    relabelled = train.set_column(
        2, "labels", pa.array(labels, tables.DOCUMENTS.field("labels").type)
    )
    problems = check_paper_examples(spec, resolve_examples(spec, relabelled, True), names)
    assert len(problems) == 1
    assert problems[0].startswith("aclImdb/train/pos/4120_9.txt (sha256 ")
    assert problems[0].endswith("has labels ['Negative'], the paper ['Positive']")


def test_truncate_words_keeps_spacing():
    text = "One  two\nthree four five"
    assert truncate_words(text, 3) == "One  two\nthree …"
    assert truncate_words(text, 5) == text
    assert truncate_words(text, 9) == text


def _write(tmp_path: Path, body: str) -> Path:
    (tmp_path / "format.yaml").write_text((PROMPTS_DIR / "format.yaml").read_text())
    (tmp_path / "imdb.yaml").write_text(body)
    return tmp_path


EXAMPLES = "examples: [{index: 1}, {index: 2}, {index: 3}]\n"
DIGEST = "0" * 64


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (EXAMPLES + "templates: {alt: {system: s, question: q}}", "a 'default' template"),
        (
            EXAMPLES + "templates: {default: {system: 'Choose among [{lables}]', question: q}}",
            r"unknown placeholder \{lables\}",
        ),
        ("examples: [{index: 1}]\ntemplates: {default: {system: s, question: q}}", "3 examples"),
        (EXAMPLES + "templates: {default: {system: '', question: q}}", "non-empty string"),
        (EXAMPLES + "templatez: {}", "unknown key 'templatez'"),
        (
            f"examples: [{{index: 1}}, {{index: 2}}, {{sha256: '{DIGEST}'}}]\n",
            "every example by 'index' or every one by 'sha256'",
        ),
        ("examples: [{index: 1, sha256: x}, {index: 2}, {index: 3}]\n", "either 'index'"),
        ("examples: [{sha256: ABC}, {index: 2}, {index: 3}]\n", "64 lowercase hex digits"),
    ],
)
def test_bad_prompt_files_are_one_line_errors(tmp_path, body, message):
    folder = _write(tmp_path, body)
    with pytest.raises(ConfigError, match=message) as info:
        load_prompt_spec("imdb", folder)
    assert "\n" not in str(info.value) and "imdb.yaml" in str(info.value)


def test_unknown_template_is_named(tmp_path):
    with pytest.raises(ConfigError, match="no prompt template 'alt9'"):
        load_prompt_spec("imdb").template("alt9")


def test_documents_are_inserted_verbatim():
    spec = load_prompt_spec("scotus")
    names = display_names("scotus", LABELS)
    train = _paper_train("scotus")
    prompt = build_prompt(spec, "default", names, resolve_examples(spec, train, from_hub=True))
    tricky = "A {labels} and {text} and [LABELS] document."
    assert prompt.messages(tricky)[-1]["content"].endswith("Text: " + tricky)
