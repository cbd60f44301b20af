"""RQ2's Fig. 8a, drawn from the RQ2 table's CSV file (:mod:`hinter.rq.rq2` writes it): grammar
scores of originals and valid mutants per outcome, one panel per mutation kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from hinter.plots import grouped, style
from hinter.rq import figures, outputs, scores
from hinter.rq.rq2 import INPUTS, MUTANT, ORIGINAL
from hinter.rq.scores import OUTCOMES

FIGURES = outputs.names(2, outputs.FIGURE)


def score_figure(
    table: pd.DataFrame, inputs: Sequence[str], colors: Mapping[str, str], names: Mapping[str, str]
) -> Figure:
    """One panel per mutation kind: a group of bars per outcome, a bar per input, with the
    intervals as error bars."""
    panels = []
    kinds = scores.mutation_order(table["mutation"]) if len(table) else ["atomic", "intersectional"]
    for letter, kind in zip("abcdefgh", kinds, strict=False):
        part = table[table["mutation"] == kind]
        panels.append(
            grouped.score_groups(
                f"({letter}) {style.name('kinds', kind)}",
                [o.capitalize() for o in OUTCOMES],
                {i: part[part["input"] == i].set_index("outcome") for i in inputs},
                OUTCOMES,
                colors,
                names,
            )
        )
    with style.context():
        return grouped.panels(panels)


def build_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    builders = {
        "fig8a": lambda: score_figure(
            tables["grammar_scores"],
            INPUTS,
            {ORIGINAL: style.color("inputs", "original"), MUTANT: style.color("inputs", "mutant")},
            {ORIGINAL: "Original", MUTANT: "Valid mutant"},
        )
    }
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Draw Fig. 8a from the RQ2 table in ``tables_dir``; write PDF and PNG to ``out_dir``."""
    tables = figures.read_tables(tables_dir, outputs.figure_sources(2))
    return figures.save_all(2, build_figures(tables), out_dir)
