"""RQ6's figures: error and hidden rates per variant (paper Fig. 11) and against a confidence
threshold (Fig. 12). Rows of the RQ6 tables' CSV files in (:mod:`hinter.rq.rq6` writes them), a
``Figure`` out."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from hinter.plots import style
from hinter.rq import figures, outputs

FIGURES = outputs.names(6, outputs.FIGURE)

RATES = (("error_rate", "Intersectional error rate (%)"), ("hidden_rate", "Hidden rate (%)"))
GROUPS = (("runs", "repeated runs"), ("prompts", "prompt templates"))
VARIANT_COLORS = ["#0072B2", "#56B4E9", "#009E73", "#E69F00", "#D55E00", "#CC79A7", "#999999"]


def _run_name(model: str, dataset: str) -> str:
    return f"{style.name('models', model)}\n{style.name('datasets', dataset)}"


def _empty(fig: Figure, text: str) -> Figure:
    ax = fig.subplots()
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.set_axis_off()
    return fig


def variant_bars(table: pd.DataFrame) -> Figure:
    """Fig. 11: per rate (rows) and group (columns: repeated runs, prompt templates), a bar per
    variant of each (model, dataset) with its interval; "*" marks a variant that differs
    significantly from the default one."""
    with style.context():
        fig = Figure(figsize=style.size(columns=2, rows=2.2))
        if table.empty:
            return _empty(fig, "no model has variants in this run")
        axes = fig.subplots(2, 2, squeeze=False)
        runs = list(dict.fromkeys(zip(table["model"], table["dataset"], strict=True)))
        variants = list(dict.fromkeys(table["variant"]))
        colors = {v: VARIANT_COLORS[i % len(VARIANT_COLORS)] for i, v in enumerate(variants)}
        letter = iter("abcd")
        for row, (rate, ylabel) in enumerate(RATES):
            for col, (group, title) in enumerate(GROUPS):
                ax = axes[row][col]
                part = table[table["groups"].str.split(";").map(lambda g, grp=group: grp in g)]
                shown = [v for v in variants if v in set(part["variant"])]
                width = 0.8 / max(1, len(shown))
                for j, v in enumerate(shown):
                    xs, ys, lo, hi, stars, values = [], [], [], [], [], []
                    for i, (m, d) in enumerate(runs):
                        hit = part[
                            (part["model"] == m) & (part["dataset"] == d) & (part["variant"] == v)
                        ]
                        if hit.empty:
                            continue
                        r = hit.iloc[0]
                        y = r[f"{rate}_pct"]
                        values.append(y)
                        xs.append(i - 0.4 + width * (j + 0.5))
                        ys.append(0.0 if pd.isna(y) else float(y))
                        lo.append(0.0 if pd.isna(y) else float(y - r[f"{rate}_low_pct"]))
                        hi.append(0.0 if pd.isna(y) else float(r[f"{rate}_high_pct"] - y))
                        sig = r.get(f"{rate}_vs_default_significant")
                        stars.append(
                            (isinstance(sig, (bool, np.bool_)) and bool(sig)) or str(sig) == "True"
                        )
                    ax.bar(
                        xs,
                        ys,
                        width=width * 0.95,
                        color=colors[v],
                        label=v,
                        yerr=[lo, hi],
                        error_kw={"elinewidth": 0.7, "capsize": 1.5},
                    )
                    for x, y, h, s, v_ in zip(xs, ys, hi, stars, values, strict=True):
                        # the value on every bar: a 0 is drawn, an undefined rate says "–"
                        text = "–" if pd.isna(v_) else f"{v_:.1f}"
                        style.label_above(
                            ax, text + ("*" if s else ""), (x, y + h), offset=1, size=5.5
                        )
                ax.set_xticks(range(len(runs)), [_run_name(m, d) for m, d in runs])
                ax.set_title(f"({next(letter)}) {title}", loc="left")
                ax.set_ylabel(ylabel)
                top = ax.get_ylim()[1]
                ax.set_ylim(0, max(top * 1.3, 1.0))  # room for the legend
                if shown:
                    ax.legend(ncols=min(3, len(shown)), loc="upper left", fontsize=6.5)
        fig.suptitle(
            "* = differs significantly from the default variant",
            fontsize=7,
            fontweight="normal",
            x=0.99,
            ha="right",
        )
        return fig


ACCURACY = (
    ("original_accuracy", "Accuracy on originals (%)"),
    ("mutant_accuracy", "Accuracy on valid mutants (%)"),
)


def threshold_curves(table: pd.DataFrame, accuracy: pd.DataFrame, rule: str) -> Figure:
    """Fig. 12: (a) the error rate and (b) the hidden rate against the confidence threshold, a
    line per (model, dataset) with its interval as a band for ``rule``, the other rule dashed;
    (c), (d) the model's accuracy on the originals and on the valid mutants it keeps."""
    with style.context():
        fig = Figure(figsize=style.size(columns=2, rows=2.2))
        if table.empty:
            return _empty(fig, "no model is tested for sensitivity in this run")
        axes = fig.subplots(2, 2, squeeze=False).ravel()
        runs = list(dict.fromkeys(zip(table["model"], table["dataset"], strict=True)))
        palette = ["#E69F00", "#0072B2", "#009E73", "#D55E00", "#CC79A7", "#56B4E9"]
        # thresholds evenly spaced (as the paper's axis): 90, 95 and 99% stay readable
        ticks = sorted(set(table["threshold_pct"].astype(float)))
        position = {t: i for i, t in enumerate(ticks)}
        panels = [(table, rate, ylabel, True) for rate, ylabel in RATES]
        panels += [(accuracy, rate, ylabel, False) for rate, ylabel in ACCURACY]
        for ax, (data, rate, ylabel, by_rule), letter in zip(axes, panels, "abcd", strict=True):
            for i, (m, d) in enumerate(runs):
                color = palette[i % len(palette)]
                run = data[(data["model"] == m) & (data["dataset"] == d)]
                name = f"{style.name('models', m)}, {style.name('datasets', d)}"
                groups = run.groupby("rule", sort=False) if by_rule else [(rule, run)]
                for r, part in groups:
                    part = part.sort_values("threshold_pct")
                    x = part["threshold_pct"].astype(float).map(position).to_numpy(float)
                    y = part[f"{rate}_pct"].to_numpy(float)
                    if r == rule:
                        ax.plot(
                            x, y, color=color, marker="o", markersize=2.5, linewidth=1.2, label=name
                        )
                        ax.fill_between(
                            x,
                            part[f"{rate}_low_pct"].to_numpy(float),
                            part[f"{rate}_high_pct"].to_numpy(float),
                            color=color,
                            alpha=0.15,
                            linewidth=0,
                        )
                    else:
                        ax.plot(
                            x,
                            y,
                            color=color,
                            linestyle="--",
                            linewidth=0.8,
                            label=f"{name} (rule {r})",
                        )
            ax.set_xticks(
                range(len(ticks)), ["No\nthreshold" if t == 0 else f"{t:g}" for t in ticks]
            )
            ax.set_xlabel("Confidence threshold (%)")
            ax.set_ylabel(ylabel)
            title = ylabel.replace(" (%)", "") + (f" (rule {rule})" if by_rule else "")
            ax.set_title(f"({letter}) {title}", loc="left")
            if by_rule:
                top = ax.get_ylim()[1]
                ax.set_ylim(0, max(top, 1.0) if not math.isnan(top) else 1.0)
            else:
                ax.set_ylim(0, 100)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(
            handles, labels, loc="outside lower center", ncols=min(4, len(labels)), fontsize=6.5
        )
        return fig


def build_figures(tables: Mapping[str, pd.DataFrame], rule: str) -> dict[str, Figure]:
    builders = {
        "fig11": lambda: variant_bars(tables["variants"]),
        "fig12": lambda: threshold_curves(tables["thresholds"], tables["accuracy"], rule),
    }
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path, rule: str) -> list[Path]:
    """Draw Figs. 11 and 12 from the RQ6 tables in ``tables_dir``."""
    tables = figures.read_tables(tables_dir, outputs.figure_sources(6))
    return figures.save_all(6, build_figures(tables, rule), out_dir)
