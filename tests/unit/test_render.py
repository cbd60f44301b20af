"""Text from the data shows as typed in the HTML pages (review 2026-11-25, R02)."""

from __future__ import annotations

import html

import pandas as pd
import pytest

from hinter.render import escape_markdown, html_document, markdown_table


@pytest.mark.parametrize(
    "text",
    ["&lt;script&gt;alert(1)&lt;/script&gt;", "caf&eacute; &#233; &#x41;", "<b>bold</b>",
     "Race & Gender", "a *b* _c_ `d` [e](f) | g"],
)  # fmt: skip
def test_a_cell_is_shown_exactly_as_typed(text):
    page = html_document(markdown_table(pd.DataFrame({"text": [text]})), "t")
    cell = page.split("<td>")[1].split("</td>")[0]
    assert html.unescape(cell) == text


def test_a_plain_ampersand_is_left_as_it_is():
    assert escape_markdown("Race & Gender") == "Race & Gender"
    assert escape_markdown("&lt;") == "\\&lt;"
