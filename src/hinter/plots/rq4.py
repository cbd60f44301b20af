"""RQ4's figures: pies of bias-inducing mutants with / without a counterpart (paper Fig. 9),
Venn diagrams of bias-inducing originals (Fig. 10, matplotlib-venn) and an UpSet plot for N=3
(matplotlib). Rows of the RQ4 tables' CSV files in (:mod:`hinter.rq.rq4` writes them), a
``Figure`` out; :func:`build_figures` chooses the pooled rows (all models and datasets)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from hinter.plots import style
from hinter.rq import figures, outputs
from hinter.rq.rq4 import ARTIFACT

FIGURES = outputs.names(4, outputs.FIGURE)
TOTAL = "Total"


def _pie(ax: Axes, title: str, values: Sequence[int], labels: Sequence[str], colors) -> None:
    total = sum(values)
    ax.set_title(title, loc="left")
    if total == 0:
        ax.text(
            0.5, 0.5, "no bias-inducing mutants", ha="center", va="center", transform=ax.transAxes
        )
        ax.set_axis_off()
        return
    shown = [(v, lab, c) for v, lab, c in zip(values, labels, colors, strict=True) if v > 0]
    ax.pie(
        [v for v, _, _ in shown],
        colors=[c for _, _, c in shown],
        startangle=90,
        counterclock=False,
        wedgeprops={"edgecolor": "white", "linewidth": 0.8},
    )
    ax.legend(
        [f"{lab}: {v:,} ({100 * v / total:.2f}%)" for v, lab, _ in shown],
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        fontsize=6.5,
    )
    ax.set_aspect("equal")


def counterpart_pies(table: pd.DataFrame, artifact: str, compatibility: bool) -> Figure:
    """Fig. 9 from the pooled rows of the ``counterparts`` table: (a) bias-inducing
    intersectional mutants with / without a bias-inducing atomic parent, (b) bias-inducing
    atomic mutants with / without a bias-inducing intersectional child. ``compatibility``:
    (a) by the definition beside (b) by the original artifact's condition instead."""
    pooled = table[table["model"] == TOTAL]

    def row(population: str, condition: str) -> pd.Series:
        hit = pooled[(pooled["population"] == population) & (pooled["condition"] == condition)]
        return hit.iloc[0]

    hidden = style.color("kinds", "hidden")
    inter = style.color("kinds", "intersectional")
    atomic = style.color("kinds", "atomic")
    panels = []
    a = row("intersectional", "definition")
    panels.append(
        (
            "(a) Intersectional, as defined",
            a,
            ["with a bias-inducing atomic parent", "without (hidden)"],
            [inter, hidden],
        )
    )
    if compatibility:
        b = row("intersectional", artifact)
        panels.append(
            (
                "(b) Intersectional, artifact's condition",
                b,
                ["otherwise", "atomic 1 benign, atomic 2 biased"],
                [inter, hidden],
            )
        )
    else:
        b = row("atomic", "definition")
        panels.append(
            (
                "(b) Atomic",
                b,
                ["with a bias-inducing intersectional child", "without"],
                [atomic, "#999999"],
            )
        )
    with style.context():
        fig = Figure(figsize=style.size(columns=2, rows=1.25))
        axes = fig.subplots(1, 2)
        for ax, (title, r, labels, colors) in zip(axes, panels, strict=True):
            if r["population"] == "atomic":
                values = [int(r["with_counterpart"]), int(r["without_counterpart"])]
            else:
                values = [int(r["with_counterpart"]), int(r["without_counterpart"])]
            _pie(ax, title, values, labels, colors)
        return fig


def venn_diagrams(rows: pd.DataFrame) -> Figure:
    """Fig. 10: one three-set Venn diagram per attribute pair (atomic A, atomic B,
    intersectional A × B) of the originals in each region, labelled "count (share %)"."""
    from matplotlib_venn import venn3
    from matplotlib_venn.layout.venn3 import DefaultLayoutAlgorithm

    # every region drawn at the same size: the numbers, not the areas, carry the counts
    equal = DefaultLayoutAlgorithm(fixed_subset_sizes=(1,) * 7)

    suites = list(dict.fromkeys(rows["suite"]))
    with style.context():
        fig = Figure(figsize=style.size(columns=max(1, len(suites)), rows=1.3))
        axes = fig.subplots(1, max(1, len(suites)), squeeze=False)[0]
        if not suites:
            axes[0].text(0.5, 0.5, "no intersectional suite", ha="center", va="center")
            axes[0].set_axis_off()
        for i, (ax, suite) in enumerate(zip(axes, suites, strict=True)):
            part = rows[rows["suite"] == suite]
            sets = str(part["sets"].iloc[0]).split(";")
            counts = {str(r.region).zfill(3): int(r.originals) for r in part.itertuples()}
            share = {str(r.region).zfill(3): r.share_pct for r in part.itertuples()}
            names = [style.name("attributes", s.partition("-")[2]) for s in sets[:2]]
            names.append(style.name("suites", suites[i]))
            diagram = venn3(
                subsets=counts,
                set_labels=names,
                set_colors=[style.color("suites", s) for s in sets],
                alpha=0.5,
                ax=ax,
                layout_algorithm=equal,
            )
            for key, n in counts.items():
                label = diagram.get_label_by_id(key)
                if label is not None:
                    s = share.get(key)
                    pct = "–" if s is None or math.isnan(s) else f"{s:.1f}%"
                    label.set_text(f"{n}\n({pct})")
                    label.set_fontsize(6.5)
            union = int(part["union"].iloc[0]) if len(part) else 0
            ax.set_title(f"({chr(97 + i)}) {style.name('suites', suite)} (N = {union})", loc="left")
        return fig


def upset(rows: pd.DataFrame) -> Figure:
    """An UpSet plot of the bias-inducing originals of the N=3 suite: one bar per non-empty
    combination of its four sets (three atomic suites, the intersectional one), largest first,
    over a dot matrix of the sets in each combination.

    Drawn here rather than with upsetplot: upsetplot 0.9.0's dot matrix fills its style table
    with chained in-place ``fillna`` calls, which pandas 3 (copy-on-write) ignores, so every
    plot fails with "Invalid RGBA argument: nan".
    """
    with style.context():
        fig = Figure(figsize=style.size(columns=2, rows=1.6))
        suites = list(dict.fromkeys(rows["suite"]))
        part = rows[rows["suite"] == suites[0]] if suites else rows
        part = part[part["originals"] > 0]
        if part.empty:
            ax = fig.subplots()
            text = (
                "this run has no suite of order 3"
                if not suites
                else f"{style.name('suites', suites[0])}: tested, no bias-inducing original"
            )
            ax.text(0.5, 0.5, text, ha="center", va="center")
            ax.set_axis_off()
            return fig
        sets = str(part["sets"].iloc[0]).split(";")
        names = [
            style.name("attributes", s.partition("-")[2]) + " (atomic)"
            if s.startswith("atomic-")
            else style.name("suites", s)
            for s in sets
        ]
        part = part.sort_values(["originals", "region"], ascending=[False, True], kind="stable")
        keys = [str(k).zfill(len(sets)) for k in part["region"]]
        bars_ax, dots_ax = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
        x = list(range(len(keys)))
        color = style.color("suites", suites[0])
        bars_ax.bar(x, part["originals"], color=color, width=0.6)
        for xi, n, s in zip(x, part["originals"], part["share_pct"], strict=True):
            style.label_above(bars_ax, f"{int(n)}\n{s:.1f}%", (xi, n))
        bars_ax.set_ylabel("Bias-inducing originals")
        bars_ax.set_ylim(0, part["originals"].max() * 1.35)
        bars_ax.set_title(
            f"Bias-inducing originals, {style.name('suites', suites[0])} "
            f"(N = {int(part['union'].iloc[0])})",
            loc="left",
        )
        for xi, key in zip(x, keys, strict=True):
            ys = [j for j, bit in enumerate(key) if bit == "1"]
            dots_ax.scatter([xi] * len(sets), range(len(sets)), s=18, color="#dddddd", zorder=1)
            dots_ax.scatter([xi] * len(ys), ys, s=18, color="#333333", zorder=2)
            if len(ys) > 1:
                dots_ax.plot([xi, xi], [min(ys), max(ys)], color="#333333", linewidth=1, zorder=2)
        dots_ax.set_yticks(range(len(sets)), names)
        dots_ax.set_ylim(len(sets) - 0.5, -0.5)
        dots_ax.set_xticks([])
        dots_ax.grid(False)
        for side in ("left", "bottom"):
            dots_ax.spines[side].set_visible(False)
        return fig


def build_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    """Every RQ4 figure (``FIGURES``) by name, from the tables' CSV data."""
    c, v = tables["counterparts"], tables["venn"]
    builders = {
        "fig9": lambda: counterpart_pies(c, ARTIFACT, compatibility=False),
        "fig9_artifact": lambda: counterpart_pies(c, ARTIFACT, compatibility=True),
        "fig10": lambda: venn_diagrams(v[(v["model"] == TOTAL) & (v["order"] == 2)]),
        "upset": lambda: upset(v[(v["model"] == TOTAL) & (v["order"] >= 3)]),
    }
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Draw Figs. 9 and 10 (and the compatibility and UpSet figures) from the RQ4 tables."""
    # Venn regions are bit strings ("011"): read as text, not as numbers.
    tables = figures.read_tables(tables_dir, outputs.figure_sources(4), dtype={"region": str})
    return figures.save_all(4, build_figures(tables), out_dir)
