"""Grouped bars with confidence intervals (RQ2 Fig. 8a, RQ3 Figs. 7, 8b, 8c): plain data in, a
matplotlib ``Figure`` out.

A panel has a group of bars per category (an outcome, a dataset, a mutation kind) and one bar
per series (original / mutant, valid / discarded, true / false positives) in the series'
colour, with its interval as an error bar when one is given and its value written above it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hinter.plots import style

# (value, low, high); low/high NaN = no interval; value NaN = no bar ("–").
Point = tuple[float, float, float]


@dataclass(frozen=True)
class Groups:
    """One panel of grouped bars."""

    title: str
    groups: Sequence[str]  # category labels along the x axis
    series: Mapping[str, Sequence[Point]]  # series key -> one point per group, in legend order
    colors: Mapping[str, str]
    names: Mapping[str, str]  # series key -> legend name
    ylabel: str = ""
    limits: tuple[float, float] | None = None  # fixed y range (None: from the data)
    log: bool = False
    digits: int = 1  # decimals of the value written above each bar
    notes: Sequence[str] = field(default_factory=tuple)  # text under each group's label


def point(row: Mapping[str, float] | None, value: str, low: str, high: str) -> Point:
    """A table row's (value, low, high) columns as a point; no row: no bar."""
    if row is None:
        return (math.nan, math.nan, math.nan)
    return (float(row[value]), float(row[low]), float(row[high]))


def score_groups(
    title: str,
    groups: Sequence[str],
    rows: Mapping[str, pd.DataFrame],
    keys: Sequence[str],
    colors: Mapping[str, str],
    names: Mapping[str, str],
    notes: Sequence[str] = (),
) -> Groups:
    """A panel of grammar scores (RQ2 Fig. 8a, RQ3 Fig. 8c): a series per input, whose rows
    (``score_pct``, ``low``, ``high``) are indexed by ``keys``, one group per key (``notes``
    under each)."""
    series = {
        i: [point(r.loc[k] if k in r.index else None, "score_pct", "low", "high") for k in keys]
        for i, r in rows.items()
    }
    return Groups(
        title=title,
        groups=groups,
        series=series,
        colors=colors,
        names=names,
        ylabel="Grammar score (%)",
        limits=(0.0, 100.0),
        notes=notes,
    )


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def groups_panel(ax: Axes, panel: Groups) -> None:
    keys = list(panel.series)
    n = max(len(keys), 1)
    width = 0.8 / n
    tops = []
    for j, key in enumerate(keys):
        points = list(panel.series[key])
        x = [i - 0.4 + width * (j + 0.5) for i in range(len(panel.groups))]
        heights = [0.0 if _nan(p[0]) else p[0] for p in points]
        ax.bar(
            x,
            heights,
            width=width * 0.95,
            color=panel.colors[key],
            label=panel.names[key],
            edgecolor="white",
            linewidth=0.5,
        )
        for xi, (value, low, high) in zip(x, points, strict=True):
            if _nan(value):
                style.label_above(ax, "–", (xi, 0))
                continue
            top = value
            if not (_nan(low) or _nan(high)):
                ax.errorbar(
                    xi,
                    value,
                    yerr=[[max(value - low, 0)], [max(high - value, 0)]],
                    fmt="none",
                    ecolor="#222222",
                    elinewidth=0.7,
                    capsize=1.5,
                )
                top = max(top, high)
            tops.append(top)
            style.label_above(
                ax,
                f"{value:.{panel.digits}f}",
                (xi, top),
                offset=1.5,
                size=5.5,
                rotation=90 if n > 2 else 0,
            )
    labels = list(panel.groups)
    if panel.notes:
        labels = [
            f"{g}\n{note}" if note else g for g, note in zip(labels, panel.notes, strict=True)
        ]
    if len(labels) > 4:  # many groups: slanted labels, as charts.bar_panel draws them
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", rotation_mode="anchor")
    else:
        ax.set_xticks(range(len(labels)), labels)
    ax.set_title(panel.title, loc="left")
    ax.set_ylabel(panel.ylabel)
    if panel.log:
        positive = [t for t in tops if t > 0]
        ax.set_yscale("log")
        if positive:
            ax.set_ylim(min(positive) / 2, max(positive) * 8)
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    elif panel.limits is not None:
        low, high = panel.limits
        ax.set_ylim(low, max(high, max(tops, default=high) * 1.12))
    else:
        ax.set_ylim(0, max(max(tops, default=1.0) * 1.25, 1.0))


def panels(items: Sequence[Groups], legend: bool = True) -> Figure:
    """Panels side by side, with one legend (the first panel's series) below them."""
    # a single panel is drawn wider, so that a legend of three series fits under it
    fig = Figure(figsize=style.size(columns=max(len(items), 1.6), rows=1.1))
    axes = fig.subplots(1, max(len(items), 1), squeeze=False)[0]
    for ax, item in zip(axes, items, strict=False):
        groups_panel(ax, item)
    if legend and items:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=max(len(labels), 1))
    return fig
