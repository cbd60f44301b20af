"""The "Generation bias (LABE)" section of a ``hinter generate-test`` run: Markdown and a
self-contained HTML page beside the tables and the figure."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import io, render
from hinter.labe.generate import ORIGINAL

TITLE = "Generation bias (LABE)"


def _examples(scores: pd.DataFrame, limit: int = 4) -> str:
    """The first person's prompt and mutants under the first template and seed: what each
    generation said, its sentences and ratio gap."""
    if scores.empty:
        return ""
    first = scores.iloc[0]
    part = scores[
        (scores["person"] == first["person"])
        & (scores["template"] == first["template"])
        & (scores["seed"] == first["seed"])
    ].head(limit)
    shown = pd.DataFrame(
        {
            "mutation": part["mutation"],
            "prompt": part["prompt"],
            "sentences": part["sentences"],
            "ratio gap": [render.percent(v) if pd.notna(v) else "–" for v in part["ratio_gap"]],
        }
    )
    return render.markdown_table(shown, right=["sentences", "ratio gap"])


def section(name: str, settings: Mapping[str, Any], result: Mapping[str, pd.DataFrame]) -> str:
    rates = result["rates"]
    scores = result["scores"]
    originals = scores[scores["mutation"] == ORIGINAL]
    lines = [
        f"## {TITLE}",
        "",
        f"Model **{render.escape_markdown(name)}**: templates {', '.join(settings['templates'])} "
        f"(004 Table 10), seeds {', '.join(map(str, settings['seeds']))}, at most "
        f"{settings['max_new_tokens']} new tokens; {len(scores)} generations "
        f"({len(originals)} of the prompts as written). A text's ratio gap is (agentic - "
        "communal) / sentences by the agency classifier; the prompt's leading copy is not scored.",
        "",
    ]
    if not rates.empty:
        lines += [
            "### Mutant agency bias",
            "",
            render.markdown_table(
                pd.DataFrame(
                    {
                        "agency bias": rates["bias"].str.replace("_", " "),
                        "persons": rates["cases"],
                        "biased": rates["biased"],
                        "rate (%) [95% CI]": [
                            f"{100 * r:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
                            for r, lo, hi in zip(
                                rates["rate"], rates["low"], rates["high"], strict=True
                            )
                        ],
                    }
                ),
                right=["persons", "biased"],
            ),
            "",
            f"A pair is biased when its mean ratio-gap difference exceeds {settings['threshold']} "
            f"and a paired t-test over templates and seeds rejects equal means at "
            f"{settings['alpha']}; hidden: intersectional bias with neither atomic one.",
            "",
            "![mutant agency bias](generation_bias.png)",
            "",
        ]
    examples = _examples(scores)
    if examples:
        lines += ["### One prompt and its mutants", "", examples, ""]
    return "\n".join(lines)


def write_report(
    out: str | Path, name: str, settings: Mapping[str, Any], result: Mapping[str, pd.DataFrame]
) -> Path:
    """``report.md`` and ``report.html`` in ``out``; returns the HTML's path."""
    out = Path(out)
    text = section(name, settings, result)
    render.write_markdown([text], out / "report.md")
    path = out / "report.html"
    io.write_text(path, render.html_document(text, TITLE))
    return path
