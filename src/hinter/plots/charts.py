"""Chart functions: plain data in, a matplotlib ``Figure`` out (no files, no global state).

Values are percentages as the tables write them; a missing value (nothing to divide) draws no
bar and says "–". The RQ modules choose the data (rows of their tables) and the words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from matplotlib import colors as mcolors
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hinter.plots import style


@dataclass(frozen=True)
class Bars:
    """One bar panel: a bar per label, with its colour."""

    title: str
    labels: Sequence[str]
    values: Sequence[float]  # percent; NaN = undefined
    colors: Sequence[str]
    ylabel: str = ""
    notes: Sequence[str] = field(default_factory=tuple)  # text under each value, e.g. "3/8"


LOG_SPAN = 10


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if v is not None and not math.isnan(v)]


def bar_panel(ax: Axes, bars: Bars, log: bool | None = None) -> None:
    """Draw ``bars`` on ``ax``; ``log=None`` uses a log axis (as the paper does) when the values
    span more than a factor of :data:`LOG_SPAN` and are all positive (a log axis cannot show 0),
    a linear one otherwise."""
    finite = _finite(bars.values)
    if log is None:
        log = bool(finite) and min(finite) > 0 and max(finite) / min(finite) > LOG_SPAN
    x = list(range(len(bars.labels)))
    heights = [v if v is not None and not math.isnan(v) else 0.0 for v in bars.values]
    ax.bar(x, heights, color=list(bars.colors), width=0.7, edgecolor="white", linewidth=0.5)
    ax.set_xticks(x, list(bars.labels), rotation=30, ha="right", rotation_mode="anchor")
    ax.set_title(bars.title, loc="left")
    ax.set_ylabel(bars.ylabel)
    top = max(finite) if finite else 1.0
    if log:
        ax.set_yscale("log")
        ax.set_ylim(min(finite) / 1.6, top * 2.2)  # room above the bars for their values
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    else:
        ax.set_ylim(0, max(top * 1.3, 1.0))
    for i, value in enumerate(bars.values):
        missing = value is None or math.isnan(value)
        text = "–" if missing else f"{value:.2f}"
        if bars.notes and i < len(bars.notes) and bars.notes[i]:
            text += f"\n{bars.notes[i]}"
        y = ax.get_ylim()[0] if missing or (log and value <= 0) else value
        style.label_above(ax, text, (i, y), size=6.5)


def bar_panels(panels: Sequence[Bars], log: bool | None = None) -> Figure:
    """Bar panels side by side, labelled (a), (b), ..."""
    fig = Figure(figsize=style.size(columns=len(panels)))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels, strict=True):
        bar_panel(ax, panel, log=log)
    return fig


@dataclass(frozen=True)
class Shares:
    """One panel of stacked shares: a horizontal bar per row, one segment per category."""

    title: str
    rows: Sequence[str]  # e.g. Original, Mutant (top to bottom)
    shares: Mapping[str, Sequence[float]]  # category -> percent per row (in legend order)
    totals: Sequence[int]  # N per row
    colors: Mapping[str, str]
    names: Mapping[str, str]  # category -> legend name


def text_color(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (relative luminance)."""
    r, g, b = mcolors.to_rgb(background)
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"


def shares_panel(ax: Axes, panel: Shares) -> None:
    y = list(range(len(panel.rows)))[::-1]  # first row on top
    left = [0.0] * len(panel.rows)
    for category, values in panel.shares.items():
        widths = [0.0 if v is None or math.isnan(v) else v for v in values]
        ax.barh(
            y, widths, left=left, color=panel.colors[category], height=0.6,
            label=panel.names[category], edgecolor="white", linewidth=0.5,
        )  # fmt: skip
        ink = text_color(panel.colors[category])
        for yi, start, width in zip(y, left, widths, strict=True):
            if width >= 7:
                ax.text(start + width / 2, yi, f"{width:.1f}", ha="center", va="center",
                        fontsize=6.5, color=ink)  # fmt: skip
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_yticks(y, [f"{r}\n(N = {n})" for r, n in zip(panel.rows, panel.totals, strict=True)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("Share of bias errors (%)")
    ax.set_title(panel.title, loc="left")
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", visible=True)


def shares_panels(panels: Sequence[Shares]) -> Figure:
    """Stacked-share panels side by side with one legend below them."""
    fig = Figure(figsize=style.size(columns=len(panels), rows=0.9))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, panel in zip(axes, panels, strict=True):
        shares_panel(ax, panel)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig
