"""RQ1's group-level heatmap, drawn from the ``group_bias`` table's CSV file
(:mod:`hinter.rq.groups` writes it): a panel per two-attribute scope, a cell per class pair."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from hinter.plots import heatmap, style
from hinter.rq import figures, outputs
from hinter.rq.groups import PART, SEP, TOTAL

FIGURES = outputs.names(1, outputs.FIGURE, PART)


def heatmap_figure(table: pd.DataFrame) -> Figure:
    """One panel per two-attribute scope, every model and dataset pooled: a cell per class
    pair coloured by its error rate, biased groups (above the scope's mean) starred."""
    pooled = table[(table["model"] == TOTAL) & (table["kind"] == "GIB")]
    names = family_names(table["scope"])
    panels = []
    for scope, part in pooled.groupby("scope", sort=True):
        families = scope.split(SEP)
        if len(families) != 2:
            continue  # three-attribute scopes have no plane to draw on
        classes = [g.split(SEP) for g in part["group"]]
        rows = sorted({c[0] for c in classes})
        cols = sorted({c[1] for c in classes})
        values = np.full((len(rows), len(cols)), np.nan)
        flags = np.zeros((len(rows), len(cols)), dtype=bool)
        for (a, b), rate, flag in zip(
            classes, part["error_rate_pct"], part["above_mean"], strict=True
        ):
            values[rows.index(a), cols.index(b)] = rate
            flags[rows.index(a), cols.index(b)] = bool(flag)
        panels.append(
            heatmap.Heatmap(
                title=f"{names[families[0]]} × {names[families[1]]}",
                rows=rows,
                cols=cols,
                values=values,
                flags=flags,
                ylabel=names[families[0]],
                xlabel=names[families[1]],
            )
        )
    with style.context():
        return heatmap.panels(panels, label="Error rate (%)")


def family_names(scopes) -> dict[str, str]:
    """Short names of class families: the attribute's display name, numbered when its
    classes form several families (``race[african/...]`` -> "Race 1", as Table 4's R1)."""
    families = sorted({f for scope in set(scopes) for f in str(scope).split(SEP)})
    by_attribute: dict[str, list[str]] = {}
    for f in families:
        by_attribute.setdefault(f.partition("[")[0], []).append(f)
    out = {}
    for attribute, members in by_attribute.items():
        name = style.name("attributes", attribute)
        for i, f in enumerate(members, 1):
            out[f] = name if len(members) == 1 else f"{name} {i}"
    return out


def build_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    builders = {"fig_groups": lambda: heatmap_figure(tables["group_bias"])}
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Draw the group heatmap from the ``group_bias`` table; write PDF and PNG."""
    tables = figures.read_tables(tables_dir, outputs.figure_sources(1, PART))
    return figures.save_all(1, build_figures(tables), out_dir)
