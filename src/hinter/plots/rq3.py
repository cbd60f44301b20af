"""RQ3's Figs. 7, 8b and 8c, drawn from the RQ3 tables' CSV files (:mod:`hinter.rq.rq3` writes
them): valid vs discarded mutants per dataset, true vs false positives, and grammar scores of
originals, valid and discarded mutants with their three comparisons."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from hinter.plots import grouped, style
from hinter.rq import figures, outputs
from hinter.rq.rq3 import ALL, DISCARDED, EVERY, ORIGINAL, TOTAL, VALID, mutation_order

FIGURES = outputs.names(3, outputs.FIGURE)
POSITIVES = ("true", "false")  # found among valid / among discarded mutants


def validity_figure(table: pd.DataFrame) -> Figure:
    """Fig. 7: valid and discarded shares per dataset (every track pooled), for (a) all
    mutants, (b) intersectional, (c) atomic ones, with intervals; mutants counted under the
    bars."""
    pooled = table[table["track"] == ALL]
    datasets = list(dict.fromkeys(pooled["dataset"]))
    colors, names = _validity_style()
    panels = []
    kinds = [k for k in (EVERY, "intersectional", "atomic") if k in set(pooled["mutation"])]
    kinds = kinds or [EVERY]
    for letter, kind in zip("abc", kinds, strict=False):
        part = pooled[pooled["mutation"] == kind].set_index("dataset")
        rows = [part.loc[d] if d in part.index else None for d in datasets]
        discarded = [grouped.point(r, "discarded_pct", "low", "high") for r in rows]
        valid = [(100 - v, 100 - h, 100 - lo) for v, lo, h in discarded]
        title = {EVERY: "All mutants"}.get(kind, style.name("mutations", kind))
        panels.append(
            grouped.Groups(
                title=f"({letter}) {title}",
                groups=[style.name("datasets", d) for d in datasets],
                series={"valid": valid, "discarded": discarded},
                colors=colors,
                names=names,
                ylabel="Mutants (%)",
                limits=(0.0, 100.0),
                notes=[_validity_note(r) for r in rows],
            )
        )
    with style.context():
        return grouped.panels(panels)


def _validity_note(row) -> str:
    """Under a dataset's bars: the mutants generated and, when the sentence cap (the original
    artifact's, not Alg. 3's) discarded some unparsed, how many (review 2026-11-28 G2)."""
    if row is None:
        return ""
    note = f"N = {int(row['generated'])}"
    capped = row.get("too_long", 0)
    if capped is not None and not pd.isna(capped) and int(capped) > 0:
        note += f"\n{int(capped)} too long"
    return note


def _validity_style() -> tuple[dict[str, str], dict[str, str]]:
    keys = ("valid", "discarded")
    return (
        {k: style.color("validity", k) for k in keys},
        {k: style.name("validity", k) for k in keys},
    )


def _found_panel(pooled: pd.DataFrame, predicted: bool) -> grouped.Groups:
    """Fig. 8b (a): true vs false positives per mutation kind, on a log scale."""
    kinds = [k for k in mutation_order(pooled.index) if k in pooled.index]
    column = {"true": "true_positives", "false": "false_positives"}
    shown = [p for p in POSITIVES if p == "true" or predicted]  # no false ones: no bars
    counts = {
        p: [
            (float(pooled.loc[k, column[p]]) if p in shown else np.nan, np.nan, np.nan)
            for k in kinds
        ]
        for p in POSITIVES
    }
    return grouped.Groups(
        title="(a) Bias found",
        groups=[style.name("mutations", k) for k in kinds],
        series=counts,
        colors={k: style.color("positives", k) for k in POSITIVES},
        names={k: style.name("positives", k) for k in POSITIVES},
        ylabel="Bias-inducing mutants",
        log=True,
        digits=0,
    )


def _rate_panel(per_model: pd.DataFrame, predicted: bool) -> grouped.Groups:
    """Fig. 8b (b): the error rate of valid vs discarded mutants per model, with intervals."""
    prefix = {"true": "error_rate_pct", "false": "discarded_error_rate_pct"}
    series = {
        p: [
            grouped.point(r, prefix[p], f"{prefix[p]}_low", f"{prefix[p]}_high")
            if p == "true" or predicted
            else (np.nan,) * 3
            for _, r in per_model.iterrows()
        ]
        for p in POSITIVES
    }
    return grouped.Groups(
        title="(b) Error rate",
        groups=[style.name("models", m) for m in per_model["model"]],
        series=series,
        colors={k: style.color("positives", k) for k in POSITIVES},
        names={"true": "Valid mutants", "false": "Discarded mutants"},
        ylabel="Bias-inducing mutants (%)",
    )


def positives_figure(table: pd.DataFrame) -> Figure:
    """Fig. 8b: (a) true vs false positives per mutation kind, every model and dataset pooled
    (log scale); (b) the error rate of valid vs discarded mutants per model, with intervals."""
    pooled = table[(table["model"] == TOTAL) & (table["dataset"] == ALL)].set_index("mutation")
    predicted = bool(table["predicted_discarded"].any()) if len(table) else False
    per_model = table[(table["dataset"] == ALL) & (table["mutation"] == EVERY)]
    with style.context():
        return grouped.panels([_found_panel(pooled, predicted), _rate_panel(per_model, predicted)])


def grammar_figure(table: pd.DataFrame) -> Figure:
    """Fig. 8c: grammar scores of originals, valid and discarded mutants per mutation kind."""
    kinds = mutation_order(table["mutation"]) if len(table) else [EVERY]
    inputs = (ORIGINAL, VALID, DISCARDED)
    colors = {
        ORIGINAL: style.color("inputs", "original"),
        VALID: style.color("validity", "valid"),
        DISCARDED: style.color("validity", "discarded"),
    }
    names = {ORIGINAL: "Original", VALID: "Valid mutant", DISCARDED: "Discarded mutant"}
    # a discarded mutant's row repeats for each of its two comparisons: its score once
    scored = table.drop_duplicates(["mutation", "input"])
    panel = grouped.score_groups(
        "Grammar scores",
        [style.name("mutations", k) for k in kinds],
        {i: scored[scored["input"] == i].set_index("mutation") for i in inputs},
        kinds,
        colors,
        names,
        [_differences(table, k) for k in kinds],
    )
    with style.context():
        return grouped.panels([panel])


def _differences(table: pd.DataFrame, kind: str) -> str:
    """The comparisons of ``kind`` as notes under its bars: "D−O −5.04*" = discarded minus
    original, in points (* significant)."""
    short = {ORIGINAL: "O", VALID: "V", DISCARDED: "D"}
    rows = table[(table["mutation"] == kind) & table["difference"].notna()]
    return "\n".join(
        f"{short[i]}−{short[str(c).rpartition(' ')[0]]} {d:+.2f}".replace("-", "−")
        + ("*" if str(s) == "True" else "")
        for i, c, d, s in zip(
            rows["input"],
            rows["compared_with"],
            rows["difference"],
            rows["significant"],
            strict=True,
        )
    )


def build_figures(tables: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    builders = {
        "fig7": lambda: validity_figure(tables["validity"]),
        "fig8b": lambda: positives_figure(tables["positives"]),
        "fig8c": lambda: grammar_figure(tables["grammar_validity"]),
    }
    return {name: builders[name]() for name in FIGURES}


def write_figures(tables_dir: str | Path, out_dir: str | Path) -> list[Path]:
    """Draw Figs. 7, 8b and 8c from the RQ3 tables; write PDF and PNG to ``out_dir``."""
    tables = figures.read_tables(tables_dir, outputs.figure_sources(3))
    return figures.save_all(3, build_figures(tables), out_dir)
