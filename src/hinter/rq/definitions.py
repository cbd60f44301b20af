"""The definitions of every RQ table, read from its report caption (one source for both).

Each table's caption template ``workflow/report/<rq>/<name>.rst`` (:attr:`Output.caption`) holds
one paragraph that starts with ``*Definitions.*``: plain reST, no Jinja, no braces. The
report shows it inside the caption; the table's Markdown/HTML document quotes it as its caption
(:func:`caption`), converted to Markdown and followed by the sentences only the run knows
(intervals, legends, counts), which the RQ modules append. So a definition cannot say one thing
in the report and another beside the table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter.paths import REPORT
from hinter.rq import outputs
from hinter.rq.intervals import Bootstrap

MARK = "*Definitions.*"
_LITERAL = re.compile(r"``(.+?)``")
_ESCAPE = re.compile(r"\\(.)")


class CaptionError(ValueError):
    """A caption template that is missing or has no usable definitions paragraph."""


def markdown(rst: str) -> str:
    """reST inline markup as Markdown: ````code```` -> ```code```, ``\\|`` -> ``|``; emphasis
    (``*x*``, ``**x**``) is the same in both."""
    return _ESCAPE.sub(r"\1", _LITERAL.sub(r"`\1`", rst))


def definitions(output: outputs.Output, report: Path | None = None) -> str:
    """The text of ``output``'s ``*Definitions.*`` paragraph, one line of Markdown
    (``report``: the caption folder, :data:`REPORT` unless given)."""
    path = (report or REPORT) / output.caption
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise CaptionError(f"{path}: cannot read the caption template ({e.strerror})") from None
    found = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip().startswith(MARK)]
    if len(found) != 1:
        raise CaptionError(
            f"{path}: needs exactly one paragraph starting with {MARK} (found {len(found)})"
        )
    body = " ".join(found[0][len(MARK) :].split())
    if not body:
        raise CaptionError(f"{path}: the {MARK} paragraph is empty")
    if "{" in body or "}" in body:
        raise CaptionError(f"{path}: the {MARK} paragraph must be plain text (no Jinja, no braces)")
    return markdown(body)


def caption(rq: int, name: str, *run: str) -> str:
    """The Markdown caption of table ``name`` of RQ ``rq``: its definitions, then the
    sentences ``run`` that depend on the run (empty ones are left out)."""
    return " ".join([definitions(outputs.get(rq, name)), *(s for s in run if s)])


def describe(stats: Mapping[str, Any]) -> str:
    """The interval sentence of a caption, for the ``statistics`` settings ``stats`` (resamples,
    seed, confidence) that an RQ builder receives."""
    return Bootstrap.from_config({"statistics": stats}).describe()
