"""RQ1's figures 4–6, drawn from the RQ1 tables' CSV files (:mod:`hinter.rq.rq1` writes them):
(a) error rates and (b) distinct bias-inducing originals per model (Figs. 4 and 5), and the
correctness of bias-inducing originals and their mutants (Fig. 6)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from hinter import rates
from hinter.plots import charts, style
from hinter.rq import figures, outputs
from hinter.rq.rq1 import ALL, TOTAL

FIGURES = outputs.names(1, outputs.FIGURE)


def _per_model(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows pooled over datasets, one per model and the "Total" row, in the table's order."""
    return frame[frame["dataset"] == ALL]


def _model_bars(
    title: str, frame: pd.DataFrame, column: str, color: str, ylabel: str, notes=None
) -> charts.Bars:
    models = list(frame["model"])
    return charts.Bars(
        title=title,
        labels=[style.name("models", m) for m in models],
        values=[float(v) for v in frame[column]],
        colors=[style.total_color() if m == TOTAL else color for m in models],
        ylabel=ylabel,
        notes=notes or (),
    )


def _counts(frame: pd.DataFrame, part: str, whole: str) -> list[str]:
    """Each bar's counts, "part/whole", beside its rate (a rate never shows without them)."""
    return [f"{int(a):,}/{int(b):,}" for a, b in zip(frame[part], frame[whole], strict=True)]


def rate_figure(rates_table: pd.DataFrame, originals_table: pd.DataFrame, kind: str) -> Figure:
    """Figs. 4 and 5: (a) the error rate of ``kind`` mutants per model (pooled over datasets),
    (b) the share of originals with at least one bias-inducing mutant of that kind."""
    color = style.color("kinds", kind)
    shares = _per_model(originals_table)
    shares = shares[shares["kind"] == kind]
    notes = _counts(shares, "bias_inducing", "originals")
    pooled = _per_model(rates_table)
    name = style.name("kinds", kind)
    with style.context():
        return charts.bar_panels(
            [
                _model_bars(
                    f"(a) {name} error rate", pooled, "error_rate_pct", color,
                    "Bias-inducing valid mutants (%)", _counts(pooled, "errors", "decided"),
                ),
                _model_bars(
                    "(b) Distinct bias-inducing originals", shares,
                    "share_pct", color, "Originals with ≥ 1 bias (%)", notes,
                ),
            ]
        )  # fmt: skip


def correctness_figure(table: pd.DataFrame) -> Figure:
    """Fig. 6: right / wrong / no-answer (/ no gold label) shares of bias-inducing originals and
    their mutants, pooled over models, for (a) intersectional and (b) hidden bias errors."""
    pooled = table[table["model"] == TOTAL]
    shown = [
        o
        for o in rates.CORRECTNESS_OUTCOMES
        if o != "unknown" or pooled.loc[pooled["outcome"] == o, "count"].sum() > 0
    ]
    panels = []
    for letter, population, title in (
        ("a", "intersectional", "Intersectional bias-inducing inputs"),
        ("b", "hidden", "Hidden bias-inducing inputs"),
    ):
        part = pooled[pooled["population"] == population]
        inputs = ["original", "mutant"]
        share = {
            o: [
                float(part.loc[(part["input"] == i) & (part["outcome"] == o), "share_pct"].sum())
                for i in inputs
            ]
            for o in shown
        }
        totals = [int(part.loc[part["input"] == i, "count"].sum()) for i in inputs]
        panels.append(
            charts.Shares(
                title=f"({letter}) {title}",
                rows=[style.name("inputs", i) for i in inputs],
                shares=share,
                totals=totals,
                colors={o: style.color("outcomes", o) for o in shown},
                names={o: style.name("outcomes", o) for o in shown},
            )
        )
    with style.context():
        return charts.shares_panels(panels)


def build_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    """Every RQ1 figure (``FIGURES``) by name, from the tables' data (CSV frames by name)."""
    builders: dict[str, Callable[[], Figure]] = {
        "fig4": lambda: rate_figure(
            tables["table3"], tables["distinct_originals"], "intersectional"
        ),
        "fig5": lambda: rate_figure(tables["atomic_rates"], tables["distinct_originals"], "atomic"),
        "fig6": lambda: correctness_figure(tables["correctness"]),
    }
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Draw Figs. 4–6 from the RQ1 tables in ``tables_dir``; write PDF and PNG to ``out_dir``."""
    tables = figures.read_tables(tables_dir, outputs.figure_sources(1))
    return figures.save_all(1, build_figures(tables), out_dir)
