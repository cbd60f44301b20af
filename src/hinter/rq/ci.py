"""Bootstrap intervals as RQ4–RQ6 tables show them: per-document counts in, one row per group
out with ``<rate>_pct``, ``<rate>_low_pct`` and ``<rate>_high_pct`` columns (percent), and a
Markdown cell "12.34 [10.10, 14.80]".

The resampling is :func:`hinter.statistics.bootstrap` (a cluster bootstrap over original
documents, seeded per group); the rates are functions of :mod:`hinter.rates`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from hinter import rates, statistics
from hinter.rq.intervals import Bootstrap
from hinter.rq.render import percent


def options(config: Mapping[str, Any]) -> dict[str, Any]:
    """``resamples``, ``seed`` and ``confidence`` of the config's ``statistics`` section."""
    return dataclasses.asdict(Bootstrap.from_config(config))


def intervals(
    doc_counts: pd.DataFrame,
    inputs: Sequence[str],
    statistic: Callable[[pd.DataFrame], pd.DataFrame],
    rates: Sequence[str],
    by: Sequence[str],
    cluster: Sequence[str] = ("doc_id",),
    **stats: Any,
) -> pd.DataFrame:
    """One row per group of ``by``: the totals of ``inputs`` and, per rate of ``rates``, its
    estimate and percentile interval in percent (``<rate>_pct``, ``_low_pct``, ``_high_pct``)."""
    totals = doc_counts.groupby(list(by), sort=False, dropna=False)[list(inputs)].sum()
    totals = totals.reset_index() if by else pd.DataFrame([doc_counts[list(inputs)].sum()])
    if doc_counts.empty:
        return pd.DataFrame(columns=[*by, *inputs, *columns(rates)])

    def chosen(frame: pd.DataFrame) -> pd.DataFrame:
        return statistic(frame)[list(rates)]

    boot = statistics.bootstrap(doc_counts, inputs, chosen, by, cluster, **stats)
    wide = totals
    for rate in rates:
        part = boot.loc[boot["rate"] == rate, [*by, "estimate", "low", "high"]]
        named = {"estimate": f"{rate}_pct", "low": f"{rate}_low_pct", "high": f"{rate}_high_pct"}
        part = part.rename(columns=named)
        for column in named.values():
            part[column] = 100 * part[column].astype(float)
        if by:
            wide = wide.merge(part, on=list(by), how="left", validate="one_to_one")
        else:
            wide = wide.assign(**{c: part[c].iloc[0] for c in named.values()})
    return wide


def columns(rates: Sequence[str]) -> list[str]:
    return [f"{r}{s}_pct" for r in rates for s in ("", "_low", "_high")]


def cell(row: Mapping[str, Any], rate: str) -> str:
    """ "estimate [low, high]" in percent, "–" when undefined."""
    estimate = row.get(f"{rate}_pct")
    if estimate is None or (isinstance(estimate, float) and math.isnan(estimate)):
        return "–"
    low, high = row.get(f"{rate}_low_pct"), row.get(f"{rate}_high_pct")
    text = percent(estimate / 100)
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return text
    return f"{text} [{percent(low / 100)}, {percent(high / 100)}]"


def combine_document_counts(parts: Sequence[pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """Per-document counts of several files (e.g. the suites of one order) as one table: counts
    add up, the document flags (``originals``, ``bias_inducing``) are "any". So each outcome
    file is read and reduced on its own, and memory follows one file."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=[*keys, *statistics.COLUMNS])
    frame = pd.concat(parts, ignore_index=True)
    grouped = frame.groupby(list(keys), sort=True, dropna=False)
    counts = grouped[list(rates.COUNT_COLUMNS)].sum()
    flags = grouped[list(statistics.FLAG_COLUMNS)].max()
    return counts.join(flags).reset_index()[[*keys, *statistics.COLUMNS]]
