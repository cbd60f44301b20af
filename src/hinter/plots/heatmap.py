"""Heatmaps of group error rates (RQ1 group bias): plain data in, a matplotlib ``Figure`` out.

A panel is a grid of classes of one attribute (rows) by classes of another (columns); a cell's
colour is its value on one scale shared by every panel, its value is written in it, and a
flagged cell (a group above its scope's mean) is starred. Empty cells (no mutants) stay blank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from hinter.plots import style
from hinter.plots.charts import text_color

CMAP = "cividis"  # perceptually uniform, readable with colour-vision deficiencies


@dataclass(frozen=True)
class Heatmap:
    """One panel: ``values[i][j]`` for row class ``rows[i]`` and column class ``cols[j]``."""

    title: str
    rows: Sequence[str]
    cols: Sequence[str]
    values: np.ndarray  # NaN = no group
    flags: np.ndarray  # starred cells
    xlabel: str = ""
    ylabel: str = ""


def panels(items: Sequence[Heatmap], label: str = "", columns: int = 3) -> Figure:
    """Heatmap panels on a grid (``columns`` wide) with one shared colour bar."""
    n = max(len(items), 1)
    ncols = min(columns, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=style.size(columns=ncols, rows=1.25 * nrows))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    finite = [v for item in items for v in np.asarray(item.values, float).ravel() if v == v]
    norm = Normalize(vmin=0.0, vmax=max(max(finite, default=1.0), 1e-9))
    cmap = colormaps[CMAP]
    image = None
    for ax, item in zip(axes, items, strict=False):
        values = np.ma.masked_invalid(np.asarray(item.values, float))
        image = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
        ax.set_xticks(
            range(len(item.cols)), list(item.cols), rotation=45, ha="right", rotation_mode="anchor"
        )
        ax.set_yticks(range(len(item.rows)), list(item.rows))
        ax.set_title(item.title, loc="left")
        ax.set_xlabel(item.xlabel)
        ax.set_ylabel(item.ylabel)
        ax.grid(False)
        for i in range(len(item.rows)):
            for j in range(len(item.cols)):
                v = item.values[i][j]
                if v != v:
                    continue
                star = "*" if item.flags[i][j] else ""
                ax.text(
                    j,
                    i,
                    f"{v:.1f}{star}",
                    ha="center",
                    va="center",
                    fontsize=5.5,
                    color=text_color(cmap(norm(v))),
                )
    for ax in axes[len(items) :]:
        ax.set_axis_off()
    if not items:
        axes[0].text(
            0.5,
            0.5,
            "No intersectional groups",
            ha="center",
            va="center",
            transform=axes[0].transAxes,
        )
    if image is not None:
        fig.colorbar(image, ax=list(axes[: len(items)]), label=label, shrink=0.8)
    return fig
