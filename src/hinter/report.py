"""The HTML report of a test run: one self-contained file to open or send.

Verdict first (pooled rates with their counts and intervals, the gate's thresholds and what
exceeded them, warnings about models whose rates say nothing), then the models' accuracy on
the originals, the models side by side (when several were compared), the rates per suite, the
truth table, group-level bias, the hidden-bias examples (original, atomic mutants and
intersectional mutant side by side, edits highlighted, predictions and confidences, the mutant
whose prediction changed tagged as the bias) and the figures, embedded as base64 PNG; an
appendix keeps what speaks to the paper rather than to the model. The workflow report's style
(:mod:`hinter.render`). Every text that comes from the data is escaped: the page holds no
script and loads nothing. Paths are shown relative to the run's folder (``--out``).
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from hinter import io, pairflips
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
.warning { background: #fff3cd; padding: 0.4em 0.8em; border-left: 4px solid #c90; }
mark { background: #ffe58a; padding: 0 0.1em; }
.example td { max-width: 24em; }
.bias { color: #a00; font-weight: bold; } .same { color: #555; }
th, td { text-align: left; } th.num, td.num { text-align: right; }
dl.glossary dt { font-weight: bold; } dl.glossary dd { margin: 0 0 0.4em 1.5em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
"""
)
FIGURES = ("fig4", "fig5", "fig6", "fig_groups")  # labels from hinter.rq.outputs
# The per-suite table: column of rates_by_suite.csv -> what the report calls it.
SUITE_COLUMNS = {
    "model": "model", "suite": "suite", "mutants": "mutants", "valid": "valid",
    "decided": "decided", "skipped_identical": "unchanged in window",
    "errors": "bias-inducing", "error_rate_pct": "error rate %",
    "hidden_base": "hidden base", "hidden": "hidden", "hidden_rate_pct": "hidden rate %",
    "false_positives": "false positives",
}  # fmt: skip
GLOSSARY = {
    "mutants": "mutants tested (valid or not)",
    "valid": "mutants that pass the dependency-parse invariant",
    "decided": "valid mutants with a known outcome (no model error)",
    "unchanged in window": "decided mutants whose text, within what the model reads, is the "
    "original's (edits beyond its window): benign by construction; many of them dilute the rate",
    "bias-inducing": "decided mutants whose prediction differs from the original's (both "
    "confident enough)",
    "error rate %": "bias-inducing / decided",
    "hidden base": "bias-inducing intersectional mutants whose atomic parents are all valid",
    "hidden": "of those, the ones whose every atomic parent keeps the original's prediction",
    "hidden rate %": "hidden / hidden base",
    "false positives": "discarded (invalid) mutants whose prediction changed: flips the "
    "invariant kept out of the rates",
}
INTERVALS = (
    "Intervals are 95%: a percentile bootstrap over original documents, widened to contain the "
    "exact binomial (Clopper–Pearson) interval of the counts, which stands alone where the "
    "bootstrap collapses to a point (one document, or no event)."
)
_EDIT = re.compile(r"\*\*(.+?)\*\*")  # the examples mark an edit as **…** (Markdown bold)
_MD_ESCAPE = re.compile(r"\\([\\`*_|\[\]<>#&])")  # render.escape_markdown's escapes
_BREAK = re.compile(r"&lt;br\s*/?&gt;", flags=re.IGNORECASE)  # IMDB's <br /> line breaks


def _pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return "–"
    return f"{float(value):.2f}"


def _is_number(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _table(frame: pd.DataFrame, numeric: tuple[str, ...] = ()) -> str:
    """A table of plain values, every cell escaped; numbers (and ``numeric`` columns) aligned
    right under right-aligned headers, text left under left-aligned headers."""
    right = [c for c in frame.columns if c in numeric or _is_number(frame[c])]
    head = "".join(
        f"<th{' class=num' if c in right else ''}>{html.escape(str(c))}</th>" for c in frame.columns
    )
    rows = []
    for values in frame.itertuples(index=False):
        cells = []
        for c, v in zip(frame.columns, values, strict=True):
            if isinstance(v, float):
                text = _pct(v)
            elif v is None or (not isinstance(v, str) and pd.isna(v)):
                text = "–"
            else:
                text = str(v)
            cells.append(f"<td{' class=num' if c in right else ''}>{html.escape(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{''.join(rows)}\n</tbody></table>"


def _plain(text: str) -> str:
    """An example's Markdown text as plain text: ``\\<br /\\>`` back to ``<br />``."""
    return _MD_ESCAPE.sub(r"\1", str(text))


def _marked(text: str) -> str:
    """An example's text, escaped, its edits highlighted, ``<br />`` as a line break."""
    parts = _EDIT.split(str(text))
    out = "".join(
        f"<mark>{html.escape(_plain(part))}</mark>" if i % 2 else html.escape(_plain(part))
        for i, part in enumerate(parts)
    )
    return _BREAK.sub("<br>", out)


def _relative(path: Any, out: Path) -> str:
    """A path as seen from the run's folder (no machine-absolute path in the page)."""
    text = str(path)
    if text.startswith("<") or "://" in text or ":" in text.split("/")[0]:
        return text  # in memory, an API model (openai:…) or a package (pypi:…)
    try:
        return os.path.relpath(Path(text).resolve(), Path(out).resolve())
    except ValueError:  # another drive
        return Path(text).name


def _counts(k: Any, n: Any) -> str:
    return f"{int(k):,} of {int(n):,}"


def warnings_section(result: Result) -> str:
    lines = result.warnings()
    if not lines:
        return ""
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return f'<div class="warning"><p><b>Read the rates with care:</b></p><ul>{items}</ul></div>'


def verdict_section(result: Result) -> str:
    v = result.verdict
    kind = "none" if not v.thresholds else ("fail" if v.exit_code else "pass")
    word = {"none": "no gate set", "fail": "FAIL" if v.failed else "ERROR", "pass": "pass"}[kind]
    line = v.line() or "No --fail-above threshold was given: the rates below are not gated."
    rates = result.rates
    frame = pd.DataFrame(
        {
            "model": rates["model"],
            "rate": rates["rate"],
            "count": [
                _counts(k, n) for k, n in zip(rates.numerator, rates.denominator, strict=True)
            ],
            "percent": rates["percent"],
            "95% interval": [
                f"[{_pct(lo)}, {_pct(hi)}]" for lo, hi in zip(rates.lo, rates.hi, strict=True)
            ],
            "enough mutants": [
                "–" if n == 0 else ("too few" if few else "yes")
                for n, few in zip(rates.denominator, rates.too_few, strict=True)
            ],
        }
    )
    parts = [
        "<h2>Verdict</h2>",
        f'<p><span class="verdict {kind}">Gate: {html.escape(word)}</span></p>',
        f"<p>{html.escape(line)}</p>",
        warnings_section(result),
    ]
    if v.thresholds:
        pooled = result.pooled
        exceeded = {t.rate for t, _ in v.exceeded}
        few = {t.rate for t, _ in v.too_few} | {t.rate for t in v.undefined}
        gate = pd.DataFrame(
            [
                {
                    "rate": t.rate,
                    "threshold %": t.limit,
                    "count": _counts(
                        pooled.get(t.rate, {}).get("numerator", 0),
                        pooled.get(t.rate, {}).get("denominator", 0),
                    ),
                    "value %": pooled.get(t.rate, {}).get("percent"),
                    "exceeded": "yes"
                    if t.rate in exceeded
                    else ("too few to decide" if t.rate in few else "no"),
                }
                for t in v.thresholds
            ]
        )
        parts.append(_table(gate))
        parts.append(
            f"<p>A gated rate decides only on at least {v.min_count:,} mutants (--min-count); "
            "below that it is too few, and the gate cannot pass.</p>"
        )
    parts += [
        "<p>Pooled rates in percent of decided valid mutants (hidden: of bias-inducing "
        "intersectional mutants with valid parents), with their counts. "
        f"{html.escape(INTERVALS)} A rate on fewer than {result.min_count:,} mutants is marked "
        "too few: it decides nothing.</p>",
        _table(frame, numeric=("count", "95% interval")),
    ]
    return "\n".join(p for p in parts if p)


def models_section(result: Result) -> str:
    q = result.quality
    if q.empty:
        return ""
    frame = pd.DataFrame(
        {
            "model": q["model"],
            "originals": q["originals"],
            "accuracy %": q["accuracy"],
            "macro-F1 %": q["macro_f1"],
            "most frequent prediction": q["majority"],
            "its share %": q["constant_share"],
        }
    )
    if q["unparsable_share"].notna().any():
        frame["unparsable answers %"] = q["unparsable_share"]
    usage = result.about.get("usage") or {}
    if usage:
        from hinter.models.llm import usage_line

        frame["API usage"] = [usage_line(usage[m]) if m in usage else "–" for m in frame["model"]]
    labelled = q["accuracy"].notna().any()
    return (
        "<h2>Models on the originals</h2>\n<p>What each model predicts for the tested "
        "originals. A model that gives (nearly) every original the same prediction cannot "
        "flip, so low bias rates say nothing about it. "
        + (
            "Accuracy is the exact match with the gold labels; macro-F1 averages over the labels."
            if labelled
            else "No gold labels were given (--label-column): no accuracy."
        )
        + "</p>\n"
        + _table(frame)
    )


def comparison_section(result: Result) -> str:
    if result.comparison is None:
        return ""
    from hinter.compare import MIN_DOCUMENTS, NO_CORRECTION, significant_lines

    c = result.comparison
    frame = pd.DataFrame(
        {
            "rate": c["rate"],
            "model": c["model"],
            "count": [_counts(k, n) for k, n in zip(c.numerator, c.denominator, strict=True)],
            "model %": c["percent"],
            "baseline": c["baseline"],
            "baseline count": [
                _counts(k, n)
                for k, n in zip(c.baseline_numerator, c.baseline_denominator, strict=True)
            ],
            "baseline %": c["baseline_percent"],
            "difference": c["difference"],
            "95% interval": [
                f"[{_pct(lo)}, {_pct(hi)}]" for lo, hi in zip(c.lo, c.hi, strict=True)
            ],
            "p": c["p_value"].map(lambda p: "–" if pd.isna(p) else f"{p:.4f}"),
            "documents": c["documents"],
            "significant": ["no" if not s else "yes" for s in c["significant"]],
            "note": c["note"].replace("", "–"),
        }
    )
    items = "".join(f"<li>{html.escape(line)}</li>" for line in significant_lines(c))
    return (
        "<h2>Models compared on the same mutants</h2>\n<p>Differences from the first model "
        "(percentage points), paired bootstrap over original documents; significant when the "
        f"95% interval excludes 0, never on fewer than {MIN_DOCUMENTS} documents (too few "
        f"documents) nor for a constant model; {NO_CORRECTION}.</p>\n<ul>{items}</ul>\n"
        + _table(frame, numeric=("count", "baseline count", "95% interval", "p"))
    )


def suites_section(result: Result) -> str:
    columns = [c for c in SUITE_COLUMNS if c in result.suites.columns]
    frame = result.suites[columns].rename(columns=SUITE_COLUMNS)
    glossary = "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>"
        for k, v in GLOSSARY.items()
        if k in frame.columns
    )
    return (
        "<h2>Rates per suite and attribute</h2>\n"
        + _table(frame)
        + f'\n<dl class="glossary">{glossary}</dl>'
    )


def truth_section(result: Result) -> str:
    """The truth table as the Markdown's pivot: one row per pattern, one column per suite."""
    t = result.truth_table
    if t.empty:
        return ""
    cells = t.assign(
        cell=[
            f"{int(n):,}" + ("" if pd.isna(s) else f" ({s:.2f}%)")
            for n, s in zip(t["count"], t["share_pct"], strict=True)
        ]
    )
    blocks = [
        "<h2>Truth table</h2>\n<p>Outcomes of valid intersectional mutants whose atomic parents "
        "are all valid, pooled over the models, as (mutant, parent 1, parent 2[, parent 3]) "
        "— the intersectional mutant first, then its atomic parents in the order of the "
        "suite's name — with E = error (bias: the prediction changed) and B = benign "
        "(unchanged). E,B,B (E,B,B,B) is hidden intersectional bias: the intersectional "
        "mutant changes the prediction, no atomic parent does. Counts, with the share of the "
        "suite's cells.</p>"
    ]
    for order, part in cells.groupby("order", sort=True):
        pivot = part.pivot_table(
            index="pattern", columns="suite", values="cell", aggfunc="first", sort=False
        )
        pivot = pivot.reindex(list(dict.fromkeys(part["pattern"])))
        blocks.append(f"<h3>N = {int(order)}</h3>")
        blocks.append(_table(pivot.reset_index(), numeric=tuple(pivot.columns)))
    return "\n".join(blocks)


def pairs_section(result: Result) -> str:
    """Which dictionary pairs the flips rest on (P22), the first model's, most flips first."""
    try:
        frame = pairflips.table(result.out, model=result.models[0], top=15)
    except (OSError, IndexError, KeyError, ValueError):  # no outcome files or dictionary
        return ""
    if frame.empty:
        return ""
    frame = frame.drop(columns=["pair_id"]).rename(
        columns={"biased_pct": "biased %", "valid": "valid mutants", "hidden": "hidden bias"}
    )
    frame["biased %"] = frame["biased %"].map(_pct)
    return (
        "<h2>Dictionary pairs behind the flips</h2>\n<p>Per word pair of the bias dictionary "
        f"({html.escape(result.models[0])}): the valid mutants that used it, how many changed the "
        "prediction (biased) and how many were hidden intersectional biases; a mutant of several "
        "pairs counts once for each. To drop a pair, copy the dictionary folder, delete its row "
        "and pass <code>--dictionary</code>.</p>\n"
        + _table(frame, numeric=("valid mutants", "biased", "biased %", "hidden bias"))
    )


def examples_section(result: Result) -> str:
    frame = result.examples
    if frame.empty:
        return "<h2>Hidden-bias examples</h2>\n<p>No hidden intersectional bias was found.</p>"
    confidences = _confidences(result)
    blocks = [
        "<h2>Hidden-bias examples</h2>\n<p>Each example: the original, its atomic mutants (one "
        "attribute swapped) and the intersectional mutant (all swapped), edits highlighted. "
        "The intersectional mutant changes the model's prediction (<span class=bias>bias: "
        "prediction changed</span>); no atomic mutant does (<span class=same>no change</span>"
        ").</p>"
    ]
    for (model, suite, mutant), rows in frame.groupby(["model", "suite", "mutant_id"], sort=False):
        conf = confidences.get((model, mutant), {})
        head = "".join(f"<th>{html.escape(str(t))}</th>" for t in rows["type"])
        cells = "".join(f"<td>{_marked(t)}</td>" for t in rows["text"])
        preds, shown = [], []
        for i, row in enumerate(rows.itertuples(index=False)):
            c = conf.get(i)
            # the examples' bias column is the paper's: "-" original, "✓" benign, "X" bias
            tag = {
                "X": ' <span class="bias">bias: prediction changed</span>',
                "✓": ' <span class="same">no change</span>',
            }.get(str(row.bias), "")
            shown.append(html.escape(_plain(row.mutations)))
            preds.append(
                f"<td>{html.escape(str(row.prediction))}"
                f"{'' if c is None else f' ({c:.2f})'}{tag}</td>"
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


def _groups(result: Result) -> str:
    from hinter.statistics import MIN_DOCUMENTS, floored_interval

    path = Path(RunLayout(str(result.out)).rq_output(1, "group_bias", "csv"))
    if not path.exists():
        return ""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    frame = frame[frame["model"] != "Total"].sort_values(
        ["model", "kind", "error_rate_pct"], ascending=[True, True, False]
    )
    bounds = [
        floored_interval(k, n, lo / 100, hi / 100)
        for k, n, lo, hi in zip(frame.errors, frame.decided, frame.low, frame.high, strict=True)
    ]
    few = frame["decided"] < result.min_count
    if "error_documents" in frame.columns:  # above the mean on errors of too few documents
        above = frame["error_rate_pct"] > frame["scope_mean_pct"]
        few |= above & (frame["error_documents"] < MIN_DOCUMENTS)
    shown = pd.DataFrame(
        {
            "model": frame["model"],
            "kind": frame["kind"],
            "attributes": frame["attributes"],
            "group": frame["group"],
            "count": [_counts(k, n) for k, n in zip(frame.errors, frame.decided, strict=True)],
            "error rate %": frame["error_rate_pct"],
            "95% interval": [f"[{_pct(100 * lo)}, {_pct(100 * hi)}]" for lo, hi in bounds],
            "scope mean %": frame["scope_mean_pct"],
            "biased group": [
                "too few" if f else ("yes" if above else "no")
                for f, above in zip(few, frame["above_mean"].astype(bool), strict=True)
            ],
        }
    )
    return (
        "<h2>Group-level bias</h2>\n<p>Error rate per attribute class (GAB: one attribute) and "
        "class combination (GIB: intersectional) that the mutants swap to: count = "
        "bias-inducing of decided mutants. A group is biased when its rate is above the mean "
        "of its scope's groups (the scope mean), and only on at least "
        f"{result.min_count:,} decided mutants (--min-count) with errors in at least "
        f"{MIN_DOCUMENTS} documents: below that it is too few. "
        f"{html.escape(INTERVALS)}</p>\n" + _table(shown, numeric=("count", "95% interval"))
    )


def appendix_section(result: Result) -> str:
    """What speaks to the paper and its artifact rather than to the model."""
    path = Path(RunLayout(str(result.out)).rq_output(1, "truth_table", "md"))
    notes = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("Hidden intersectional"):
                notes.append(line)
    notes.append(
        "No correction for multiple comparisons is made: every interval and test is at 95% on "
        "its own, and this page shows many, so some differences are expected by chance alone."
    )
    items = "".join(f"<li>{html.escape(_plain(n))}</li>" for n in notes)
    return f"<h2>Appendix</h2>\n<ul>{items}</ul>"


def _header(result: Result) -> str:
    about = result.about
    data = about["data"]
    models = [about["model"], *about.get("compared", [])]
    listed = "; ".join(
        f"{html.escape(str(m['name']))} (<code>{html.escape(_relative(m['path'], result.out))}"
        "</code>)"
        for m in models
    )
    return (
        f"<p>{data['documents']:,} documents of "
        f"<code>{html.escape(_relative(data['path'], result.out))}</code>; "
        f"model{'s' if len(models) > 1 else ''} {listed}. Paths are relative to the run's "
        "folder.</p>"
    )


def render(result: Result) -> str:
    model = result.about["model"]["name"]
    body = [
        f"<h1>hinter test: {html.escape(', '.join(result.models))}</h1>",
        _header(result),
        verdict_section(result),
        models_section(result),
        comparison_section(result),
        suites_section(result),
        truth_section(result),
        _groups(result),
        pairs_section(result),
        examples_section(result),
        figures_section(result.out),
        appendix_section(result),
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
