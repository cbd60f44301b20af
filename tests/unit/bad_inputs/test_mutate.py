"""Catalogue rows: the arguments and inputs of ``hinter mutate``."""

from __future__ import annotations

import pytest

from .cases import Case, W, assert_one_line_before_any_work

CASES = [
    Case("mutate-empty-text", 1, r"text: the text is empty", lambda w: ["mutate", "  "]),
    Case(
        "mutate-orders-mixed",
        1,
        r"--orders: 'x' is not an order",
        lambda w: ["mutate", "A man.", "--orders", "1,x"],
    ),
    Case(
        "mutate-orders-beyond",
        1,
        r"--orders: order 4 needs 4 attributes",
        lambda w: ["mutate", "A man.", "--orders", "4"],
    ),
    Case(
        "mutate-attributes-unknown",
        1,
        r"--attributes: unknown attribute",
        lambda w: ["mutate", "A man.", "--attributes", "age"],
    ),
    Case(
        "mutate-limit-0",
        1,
        r"--limit: .*≥ 1, got 0",
        lambda w: ["mutate", "A man.", "--limit", "0"],
    ),
    Case(
        "mutate-dictionary-missing",
        1,
        r"--dictionary .*nowhere: folder not found",
        lambda w: ["mutate", "A man.", "--dictionary", str(w.root / "nowhere")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
