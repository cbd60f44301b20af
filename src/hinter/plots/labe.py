"""LABE's figures in the report's style (:mod:`hinter.plots.style`, ``plotting.yaml``):
the groups' mean ratio gaps with their intervals (the 8 race x gender groups, one panel per
source), the variance per bias dimension per source (004 Table 1 as bars, the paper's values
marked), and the mutant bias rates of a generation run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from hinter.labe import metric, paper
from hinter.plots import style
from hinter.plots.writer import save_figure

DIMENSION_COLORS = {
    "gender": ("attributes", "gender"),
    "race": ("attributes", "race"),
    "intersectional": ("suites", "inter-race+gender"),
}


def _display(source: str) -> str:
    return style.name("models", source)


def _yerr(part: pd.DataFrame) -> np.ndarray:
    return np.vstack([part["value"] - part["low"], part["high"] - part["value"]]).clip(min=0)


def group_means(est: pd.DataFrame, sources: Sequence[str]) -> Figure:
    """One panel per source: each intersectional group's mean ratio gap (percent), 95% CI."""
    with style.context():
        fig = Figure(figsize=style.size(len(sources), 1), layout="constrained")
        axes = fig.subplots(1, len(sources), sharey=True, squeeze=False)[0]
        for ax, source in zip(axes, sources, strict=True):
            part = est[
                (est["source"] == source)
                & (est["kind"] == "mean")
                & (est["dimension"] == "intersectional")
            ]
            colors = [
                style.color("attributes", "gender")
                if g.endswith("female")
                else style.color("attributes", "race")
                for g in part["group"]
            ]
            x = np.arange(len(part))
            ax.bar(x, part["value"], color=colors, yerr=_yerr(part), capsize=2)
            ax.set_xticks(x, list(part["group"]), rotation=60, ha="right")
            ax.set_title(_display(source))
            ax.axhline(0, color=style.total_color(), linewidth=0.6)
        axes[0].set_ylabel("mean ratio gap (%)")
        from matplotlib.patches import Patch

        axes[-1].legend(
            handles=[
                Patch(color=style.color("attributes", "race"), label="male"),
                Patch(color=style.color("attributes", "gender"), label="female"),
            ],
            frameon=False,
            fontsize=6,
        )
    return fig


def variances(
    est: pd.DataFrame, sources: Sequence[str], reported: Mapping[str, Mapping[str, float]]
) -> Figure:
    """Variance of the group means per dimension (bars, 95% CI) per source; the paper's value,
    where it reports one, as a black tick."""
    dims = metric.DIMENSIONS
    with style.context():
        fig = Figure(figsize=style.size(1.4, 1), layout="constrained")
        ax = fig.subplots()
        width = 0.8 / len(dims)
        for j, dim in enumerate(dims):
            rows = [
                est[
                    (est["source"] == s) & (est["kind"] == "variance") & (est["dimension"] == dim)
                ].iloc[0]
                for s in sources
            ]
            part = pd.DataFrame(rows)
            x = np.arange(len(sources)) + (j - (len(dims) - 1) / 2) * width
            ax.bar(
                x,
                part["value"],
                width,
                yerr=_yerr(part),
                capsize=2,
                color=style.color(*DIMENSION_COLORS[dim]),
                label=dim,
            )
            paper_x = [xi for xi, s in zip(x, sources, strict=True) if s in reported]
            paper_y = [reported[s][dim] for s in sources if s in reported]
            if paper_x:
                ax.scatter(
                    paper_x,
                    paper_y,
                    marker="_",
                    s=80,
                    color="black",
                    zorder=3,
                    label="004 Table 1" if j == 0 else None,
                )
        ax.set_xticks(np.arange(len(sources)), [_display(s) for s in sources])
        ax.set_ylabel("variance of group means")
        ax.legend(frameon=False, fontsize=6)
    return fig


def mutant_rates(rates: pd.DataFrame) -> Figure:
    """Atomic, intersectional and hidden intersectional agency bias: share of persons, 95% CI."""
    kinds = {
        "atomic": "atomic",
        "intersectional": "intersectional",
        "hidden_intersectional": "hidden",
    }
    with style.context():
        fig = Figure(figsize=style.size(1, 1), layout="constrained")
        ax = fig.subplots()
        rows = rates.set_index("bias").loc[list(kinds)]
        frame = pd.DataFrame(
            {"value": rows["rate"] * 100, "low": rows["low"] * 100, "high": rows["high"] * 100}
        )
        x = np.arange(len(kinds))
        ax.bar(
            x,
            frame["value"],
            yerr=_yerr(frame),
            capsize=3,
            color=[style.color("kinds", k) for k in kinds.values()],
        )
        ax.set_xticks(x, [style.name("kinds", k) for k in kinds.values()])
        ax.set_ylabel("persons with agency bias (%)")
    return fig


def write_released(est: pd.DataFrame, sources: Sequence[str], group_stem, variance_stem) -> None:
    """The two figures of the released generations (PDF and PNG each)."""
    save_figure(group_means(est, sources), group_stem)
    save_figure(variances(est, sources, paper.TABLE1_PROFESSOR), variance_stem)


def write_mutant_rates(rates: pd.DataFrame, stem) -> None:
    """The mutant agency bias of the first LLM of a generation run (zeros when none)."""
    if rates.empty:
        rates = pd.DataFrame(
            {
                "bias": ["atomic", "intersectional", "hidden_intersectional"],
                "rate": 0.0,
                "low": 0.0,
                "high": 0.0,
            }
        )
    else:
        rates = rates[rates["llm"] == rates["llm"].iloc[0]]
    save_figure(mutant_rates(rates), stem)
