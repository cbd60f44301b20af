"""The HTML report of a test run: one self-contained file to open or send.

Verdict first (pooled rates with intervals, the gate's thresholds and what exceeded them), then
the models side by side (when several were compared), the rates per suite, the truth table,
group-level bias, the hidden-bias examples (original, atomic mutants and intersectional mutant
side by side, edits highlighted, predictions and confidences) and the figures, embedded as
base64 PNG. The workflow report's style (:mod:`hinter.render`). Every text that comes from
the data is escaped: the page holds no script and loads nothing.
"""

from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from hinter import io
from hinter.layout import RunLayout
from hinter.render import STYLE as WORKFLOW_STYLE
from hinter.rq import outputs

if TYPE_CHECKING:
    from hinter.api import Result

STYLE = (
    WORKFLOW_STYLE
    + """
.verdict { font-size: 1.1em; padding: 0.5em 0.8em; display: inline-block; border-radius: 4px; }
.pass { background: #e3f4e3; } .fail { background: #fbe3e3; } .none { background: #f0f0f0; }
mark { background: #ffe58a; padding: 0 0.1em; }
.example td { max-width: 24em; }
.biased { color: #a00; font-weight: bold; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
"""
)
FIGURES = ("fig4", "fig5", "fig6", "fig_groups")  # labels from hinter.rq.outputs
SUITE_COLUMNS = (
    "model", "suite", "mutants", "valid", "errors", "error_rate_pct", "hidden", "hidden_rate_pct",
    "false_positives",
)  # fmt: skip
_EDIT = re.compile(r"\*\*(.+?)\*\*")  # the examples mark an edit as **…** (Markdown bold)


def _pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):.2f}"


def _table(frame: pd.DataFrame) -> str:
    """A table of plain values, every cell escaped."""
    return frame.to_html(index=False, escape=True, na_rep="–", border=0, float_format=_pct)


def _marked(text: str) -> str:
    """An example's text, escaped, its edits highlighted."""
    parts = _EDIT.split(str(text))
    return "".join(
        f"<mark>{html.escape(part)}</mark>" if i % 2 else html.escape(part)
        for i, part in enumerate(parts)
    )


def verdict_section(result: Result) -> str:
    v = result.verdict
    kind = "none" if not v.thresholds else ("fail" if v.failed else "pass")
    word = {"none": "no gate set", "fail": "FAIL", "pass": "pass"}[kind]
    line = v.line() or "No --fail-above threshold was given: the rates below are not gated."
    rates = result.rates.copy()
    bounds = zip(rates.lo, rates.hi, strict=True)
    rates["interval"] = [f"[{_pct(lo)}, {_pct(hi)}]" for lo, hi in bounds]
    rates = rates[["model", "rate", "numerator", "denominator", "percent", "interval"]]
    parts = [
        "<h2>Verdict</h2>",
        f'<p><span class="verdict {kind}">Gate: {html.escape(word)}</span></p>',
        f"<p>{html.escape(line)}</p>",
    ]
    if v.thresholds:
        gate = pd.DataFrame(
            [
                {
                    "rate": t.rate,
                    "threshold %": t.limit,
                    "value %": result.pooled.get(t.rate, {}).get("percent"),
                    "exceeded": "yes" if any(t == e for e, _ in v.exceeded) else "no",
                }
                for t in v.thresholds
            ]
        )
        parts.append(_table(gate))
    parts += [
        "<p>Pooled rates in percent of valid mutants (hidden: of bias-inducing intersectional "
        "mutants with valid parents), with 95% bootstrap intervals over original documents.</p>",
        _table(rates),
    ]
    return "\n".join(parts)


def comparison_section(result: Result) -> str:
    if result.comparison is None:
        return ""
    from hinter.compare import significant_lines

    frame = result.comparison.copy()
    frame["significant"] = frame["significant"].map({True: "yes", False: "no"})
    items = "".join(
        f"<li>{html.escape(line)}</li>" for line in significant_lines(result.comparison)
    )
    return (
        "<h2>Models compared on the same mutants</h2>\n<p>Differences from the first model "
        "(percentage points), paired bootstrap over original documents; significant when the "
        f"95% interval excludes 0.</p>\n<ul>{items}</ul>\n{_table(frame)}"
    )


def examples_section(result: Result) -> str:
    frame = result.examples
    if frame.empty:
        return "<h2>Hidden-bias examples</h2>\n<p>No hidden intersectional bias was found.</p>"
    confidences = _confidences(result)
    blocks = ["<h2>Hidden-bias examples</h2>"]
    for (model, suite, mutant), rows in frame.groupby(["model", "suite", "mutant_id"], sort=False):
        conf = confidences.get((model, mutant), {})
        head = "".join(f"<th>{html.escape(str(t))}</th>" for t in rows["type"])
        cells = "".join(f"<td>{_marked(t)}</td>" for t in rows["text"])
        preds, shown = [], []
        for i, row in enumerate(rows.itertuples(index=False)):
            c = conf.get(i)
            bias = ' <span class="biased">biased</span>' if row.bias == "✓" else ""
            shown.append(f"{html.escape(str(row.mutations))}")
            preds.append(
                f"<td>{html.escape(str(row.prediction))}"
                f"{'' if c is None else f' ({c:.2f})'}{bias}</td>"
            )
        blocks.append(
            f"<h3>{html.escape(str(model))} · {html.escape(str(suite))} · document "
            f"{html.escape(str(rows['doc_id'].iloc[0]))}</h3>\n"
            f'<table class="example"><tr>{head}</tr><tr>{cells}</tr>'
            f"<tr>{''.join(f'<td>{s}</td>' for s in shown)}</tr><tr>{''.join(preds)}</tr>"
            "</table>"
        )
    return "\n".join(blocks)


def _confidences(result: Result) -> dict[tuple[str, str], dict[int, float]]:
    """Per shown example: the confidence of the original, each atomic parent and the mutant."""
    wanted = set(result.examples["mutant_id"])
    out: dict[tuple[str, str], dict[int, float]] = {}
    for model in result.models:
        frame = result.outcomes(model)
        for row in frame[frame["mutant_id"].isin(wanted)].itertuples(index=False):
            values = [row.confidence_original, *list(row.parent_confidence), row.confidence]
            out[(model, row.mutant_id)] = {
                i: float(v) for i, v in enumerate(values) if v is not None and not pd.isna(v)
            }
    return out


def figures_section(out: Path) -> str:
    layout = RunLayout(str(out))
    parts = ["<h2>Figures</h2>"]
    for name in FIGURES:
        caption = outputs.get(1, name).label
        path = Path(layout.rq_output(1, name, "png"))
        if not path.exists():
            continue
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        parts.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    return "\n".join(parts)


def _groups(out: Path) -> str:
    path = Path(RunLayout(str(out)).rq_output(1, "group_bias", "csv"))
    if not path.exists():
        return ""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    frame = frame[frame["model"] != "Total"].sort_values(
        ["model", "kind", "error_rate_pct"], ascending=[True, True, False]
    )
    frame["above scope mean"] = frame["above_mean"].map({True: "yes", False: "no"})
    columns = ["model", "kind", "attributes", "group", "decided", "errors", "error_rate_pct"]
    return (
        "<h2>Group-level bias</h2>\n<p>Error rate per attribute class (GAB) and class "
        "combination (GIB) the mutants swap to, in percent with 95% intervals; a group is "
        "biased when its rate is above the mean of its scope's groups.</p>\n"
        + _table(frame[[*columns, "low", "high", "above scope mean"]])
    )


def render(result: Result) -> str:
    about = result.about
    model = about["model"]["name"]
    data = about["data"]
    suites = result.suites[list(SUITE_COLUMNS)]
    body = [
        f"<h1>hinter test: {html.escape(', '.join(result.models))}</h1>",
        f"<p>{data['documents']:,} documents of <code>{html.escape(str(data['path']))}</code>; "
        f"model <code>{html.escape(str(about['model']['path']))}</code>.</p>",
        verdict_section(result),
        comparison_section(result),
        "<h2>Rates per suite and attribute</h2>",
        _table(suites),
        "<h2>Truth table</h2>\n<p>Outcome patterns (atomic I, atomic II, intersectional; "
        "E = bias-inducing, B = benign); E,B,B is hidden intersectional bias.</p>",
        _table(result.truth_table),
        _groups(result.out),
        examples_section(result),
        figures_section(result.out),
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>hinter test: {html.escape(model)}</title>\n<style>{STYLE}</style>\n</head>\n"
        "<body>\n" + "\n".join(b for b in body if b) + "\n</body>\n</html>\n"
    )


def write_report(result: Result, path: str | Path) -> Path:
    io.write_text(path, render(result))
    return Path(path)
