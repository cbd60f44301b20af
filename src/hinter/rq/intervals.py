"""Confidence intervals of the rates in the RQ tables: the one way an RQ table gets them.

Every rate of an RQ table gets a 95% percentile bootstrap interval over *original documents*
(mutants of one document are not independent: :mod:`hinter.statistics` resamples documents and
takes all their mutants along), seeded, with the number of resamples from the run's config
(``statistics: {resamples, confidence, seed}``), widened to contain the exact (Clopper–Pearson)
interval of the rate's counts (:data:`SHARES`; a bootstrap over one document, or with no event,
is a point). This module turns that into table columns
and table cells; it never recomputes a rate (:mod:`hinter.rates` does, through
:func:`hinter.statistics.rate_table`).

How an RQ table adopts it (RQ1's Table 3 and atomic rates do exactly this)::

    from hinter.rq import intervals

    boot = intervals.Bootstrap.from_config(config)      # in the rule script: B, seed, level
    docs = statistics.document_counts(rows, by=["model", "dataset"])   # per-document counts
    docs = intervals.pooled_levels(docs, {"dataset": "All", "model": "Total"})
    grid = intervals.add_intervals(grid, docs, ["dataset", "model"], ["error_rate"], boot)
    # grid now has error_rate_lo / error_rate_hi beside error_rate (fractions)
    cell = intervals.cell(row["error_rate"], row["error_rate_lo"], row["error_rate_hi"])
    # "12.34 [11.10, 13.60]" (percent; "–" when there is nothing to divide)
    diff = intervals.compare(docs_a, docs_b, ["dataset", "model"], "error_rate", boot)
    # difference a - b, its interval, p-value and whether it is significant

- :class:`Bootstrap` — resamples, seed and level (from config), and the caption's sentence;
- :func:`pooled_levels` — per-document counts at every pooling level of a table (the
  ``Total``/``All`` rows), keeping each document's dataset as part of its resampling unit
  (:data:`UNIT`), so a document tested by several models is drawn once for all of them;
- :func:`add_intervals` — ``<rate>_lo`` / ``<rate>_hi`` columns for a table keyed by ``by``;
  it checks that the bootstrap's point estimates are the table's own rates;
- :func:`compare` — ``rate(a) - rate(b)`` per group (e.g. intersectional vs atomic), paired on
  shared documents (:func:`hinter.statistics.compare_rates`);
- :func:`totals_intervals` — intervals of any statistic of summed per-document counts (RQ4–RQ6:
  counterpart rates, Venn shares, accuracies), as the CSV's percent columns
  ``<rate>_pct`` / ``<rate>_low_pct`` / ``<rate>_high_pct`` (:func:`percent_columns`), with
  :func:`combine_document_counts` to pool the per-document counts of several files;
- :func:`cell` — the one rendered form "12.34 [10.10, 14.80]" of every RQ table
  (:func:`percent_cell` reads it from a row's percent columns, :func:`difference_cell` adds
  the sign and the significance star); :func:`comparison_sentence` says a comparison in words
  (RQ5, RQ6).

Rates are fractions in the frames of :func:`rate_intervals` and :func:`add_intervals`; cells
and CSV ``_pct`` columns show percent. :func:`totals_intervals` writes percent columns because
its rates may share a name with one of its inputs (a Venn region is both a count and a share).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import pandas as pd

from hinter import rates as rate_functions
from hinter import statistics
from hinter.render import percent

# The column naming a resampling unit's dataset once a table pools datasets: a unit is
# (UNIT, doc_id), one original document of one dataset.
UNIT = "unit_dataset"
CLUSTER = (UNIT, "doc_id")
# Every share an RQ table gives an interval, as (numerator, denominator) counts: its bootstrap
# interval is widened to contain the exact interval of those counts (issue 31, G7).
SHARES = {
    **statistics.RATE_COUNTS,
    **rate_functions.ACCURACY_RATIOS,
    **rate_functions.COUNTERPART_RATIOS,
    # RQ3.2 (hinter.rates.add_invariant_rates): false positives among discarded mutants with
    # a known outcome, and among every bias-inducing mutant (true + false positives)
    "discarded_error_rate": ("false_positives", "discarded_decided"),
    "false_positive_share": ("false_positives", ("false_positives", "errors")),
}


@dataclass(frozen=True)
class Bootstrap:
    """How intervals are drawn: resamples, seed and confidence level (config ``statistics``)."""

    resamples: int = 2000
    seed: int = 42
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.resamples < 1:
            raise ValueError(f"statistics.resamples must be >= 1, not {self.resamples}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"statistics.confidence {self.confidence} outside (0, 1)")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Bootstrap:
        """From a validated config (its ``statistics`` section, defaults filled in)."""
        s = config.get("statistics", {})
        return cls(
            int(s.get("resamples", cls.resamples)),
            int(s.get("seed", cls.seed)),
            float(s.get("confidence", cls.confidence)),
        )

    def keywords(self) -> dict[str, Any]:
        """``resamples``, ``seed`` and ``confidence`` as keyword arguments of
        :func:`hinter.statistics.bootstrap` and :func:`hinter.statistics.compare_rates`."""
        return dataclasses.asdict(self)

    @property
    def level(self) -> str:
        """The level in percent, as captions print it ("95")."""
        return f"{100 * self.confidence:g}"

    def describe(self) -> str:
        """One sentence for a caption: what the intervals are."""
        return (
            f"[lo, hi] = {self.level}% percentile bootstrap interval over original documents "
            f"(B = {self.resamples} resamples, seed {self.seed}; all mutants of a drawn document "
            "come along), widened to contain the exact (Clopper–Pearson) interval of the counts."
        )


def pooled_levels(doc_counts: pd.DataFrame, levels: Mapping[str, str]) -> pd.DataFrame:
    """Per-document counts at every pooling level of a table.

    ``levels`` maps a key column to the label of its pooled rows (``{"dataset": "All",
    "model": "Total"}``). Returns the rows once per combination of keeping or pooling each
    column (pooled: the column holds the label), with :data:`UNIT` holding the document's own
    dataset (from the ``dataset`` column, when there is one), so :data:`CLUSTER` names one
    original document whatever is pooled. The counts of a document tested by several models
    add up within a pooled group: it is drawn once, with all its mutants.
    """
    frame = doc_counts.copy()
    frame[UNIT] = frame["dataset"] if "dataset" in frame.columns else ""
    parts = []
    for pooled in product((False, True), repeat=len(levels)):
        part = frame
        if any(pooled):
            part = frame.assign(
                **{col: label for (col, label), p in zip(levels.items(), pooled, strict=True) if p}
            )
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def rate_intervals(
    doc_counts: pd.DataFrame,
    by: Sequence[str],
    rates: Sequence[str],
    boot: Bootstrap,
    cluster: Sequence[str] | None = None,
) -> pd.DataFrame:
    """One row per group of ``by``: ``<rate>`` (the pooled estimate), ``<rate>_lo``,
    ``<rate>_hi`` for each of ``rates`` (names of :data:`hinter.statistics.RATES`), and
    ``documents`` (the resampled units)."""
    unknown = [r for r in rates if r not in statistics.RATES]
    if unknown:
        raise ValueError(f"no interval for rate(s) {unknown}: one of {list(statistics.RATES)}")
    columns = [*by, *[f"{r}{s}" for r in rates for s in ("", "_lo", "_hi")], "documents"]
    if doc_counts.empty:
        return pd.DataFrame(columns=columns)
    cluster = resampling_unit(doc_counts, cluster)
    long = statistics.bootstrap_rates(
        doc_counts, by, cluster, boot.resamples, boot.seed, boot.confidence
    )
    long = long[long["rate"].isin(rates)]
    keys = list(by) or ["__all"]
    if not by:
        long = long.assign(__all=0)
    wide = long.pivot(index=keys, columns="rate", values=["estimate", "low", "high"])
    out = pd.DataFrame(index=wide.index)
    for r in rates:
        out[r] = wide[("estimate", r)]
        out[f"{r}_lo"] = wide[("low", r)]
        out[f"{r}_hi"] = wide[("high", r)]
    out["documents"] = long.groupby(keys)["documents"].first()
    out = out.reset_index()
    return out.drop(columns=["__all"]) if not by else out[columns]


def add_intervals(
    table: pd.DataFrame,
    doc_counts: pd.DataFrame,
    by: Sequence[str],
    rates: Sequence[str],
    boot: Bootstrap,
    cluster: Sequence[str] | None = None,
    documents: bool = False,
) -> pd.DataFrame:
    """``table`` (keyed by ``by``, with the ``rates`` as fractions) with ``<rate>_lo`` and
    ``<rate>_hi`` beside each rate, in the table's row order. Rows without documents get
    empty bounds. Raises ``ValueError`` when a bootstrap estimate differs from the table's
    rate: the document counts and the table would then not describe the same mutants.
    ``documents=True`` adds the number of resampled documents behind each interval (last
    column; 0 where none), so a reader can tell an interval over one document from a real one."""
    found = rate_intervals(doc_counts, by, rates, boot, cluster)
    bounds = [f"{r}{s}" for r in rates for s in ("_lo", "_hi")]
    extra = ["documents"] if documents else []
    merged = table.merge(
        found[[*by, *rates, *bounds, *extra]].rename(columns={r: f"{r}__boot" for r in rates}),
        on=list(by),
        how="left",
        validate="one_to_one",
    )
    for r in rates:
        mine, theirs = merged[r].to_numpy(np.float64), merged[f"{r}__boot"].to_numpy(np.float64)
        both = ~np.isnan(theirs)
        if not np.allclose(mine[both], theirs[both], rtol=0, atol=1e-12, equal_nan=True):
            raise ValueError(f"{r}: the document counts do not add up to the table's rates")
    out = merged.drop(columns=[f"{r}__boot" for r in rates])
    ordered = []
    for c in table.columns:
        ordered.append(c)
        if c in rates:
            ordered += [f"{c}_lo", f"{c}_hi"]
    if documents:
        out["documents"] = out["documents"].fillna(0).astype("int64")
        ordered.append("documents")
    return out[ordered]


def compare(
    a: pd.DataFrame,
    b: pd.DataFrame,
    by: Sequence[str],
    rate: str,
    boot: Bootstrap,
    cluster: Sequence[str] | None = None,
) -> pd.DataFrame:
    """``rate(a) - rate(b)`` per group of ``by``: ``rate_a``, ``rate_b``, ``difference``,
    ``difference_lo``, ``difference_hi``, ``p_value``, ``significant`` (the interval
    excludes 0 and each side has :data:`hinter.statistics.MIN_DOCUMENTS` documents) and
    ``side_documents`` (the fewer documents of the two sides). Documents both sides share are
    drawn together (paired)."""
    columns = [*by, "rate_a", "rate_b", "difference", "difference_lo", "difference_hi",
               "p_value", "significant", "side_documents"]  # fmt: skip
    if a.empty:
        return pd.DataFrame(columns=columns)
    cluster = resampling_unit(a, cluster)
    found = statistics.compare_rates(a, b, by, cluster, boot.resamples, boot.seed, boot.confidence)
    found = found[found["rate"] == rate].rename(
        columns={"low": "difference_lo", "high": "difference_hi"}
    )
    found["side_documents"] = side_documents(found)
    return found[columns].reset_index(drop=True)


def verdicts(compared: pd.DataFrame) -> pd.Series:
    """``yes`` / ``no`` / "too few" per row of :func:`compare` (empty where nothing was
    compared)."""
    return pd.Series(
        [statistics.verdict(s, d) for s, d in zip(compared["significant"],
                                                  compared["side_documents"], strict=True)],
        index=compared.index,
    )  # fmt: skip


def side_documents(compared) -> Any:
    """The documents of the smaller side of rows of :func:`hinter.statistics.compare_rates`
    (a frame or one row): a verdict needs :data:`hinter.statistics.MIN_DOCUMENTS` of them."""
    a, b = compared["shared"] + compared["only_a"], compared["shared"] + compared["only_b"]
    return np.minimum(a, b)


def resampling_unit(frame: pd.DataFrame, cluster: Sequence[str] | None = None) -> list[str]:
    """The columns naming one resampling unit: ``cluster`` when given, else one original
    document — :data:`CLUSTER` after :func:`pooled_levels`, (dataset, doc_id) or doc_id."""
    if cluster is not None:
        return list(cluster)
    if UNIT in frame.columns:
        return list(CLUSTER)
    return ["dataset", "doc_id"] if "dataset" in frame.columns else ["doc_id"]


def totals_intervals(
    doc_counts: pd.DataFrame,
    inputs: Sequence[str],
    statistic: Callable[[pd.DataFrame], pd.DataFrame],
    rates: Sequence[str],
    by: Sequence[str],
    cluster: Sequence[str] = ("doc_id",),
    ratios: Mapping[str, tuple[str, str | Sequence[str]]] | None = None,
    **stats: Any,
) -> pd.DataFrame:
    """One row per group of ``by``: the totals of ``inputs`` and, per rate of ``rates`` (columns
    of ``statistic`` applied to totals), its estimate and percentile interval in percent
    (:func:`percent_columns`), widened to contain the exact interval of the rate's counts:
    ``ratios`` (or :data:`SHARES`) names them. ``stats`` are :meth:`Bootstrap.keywords`."""
    ratios = {**SHARES, **(ratios or {})}
    unknown = [r for r in rates if r not in ratios]
    if unknown:
        raise ValueError(f"no counts for rate(s) {unknown}: pass ratios={{rate: (num, den)}}")
    totals = doc_counts.groupby(list(by), sort=False, dropna=False)[list(inputs)].sum()
    totals = totals.reset_index() if by else pd.DataFrame([doc_counts[list(inputs)].sum()])
    if doc_counts.empty:
        return pd.DataFrame(columns=[*by, *inputs, *percent_columns(rates)])

    def chosen(frame: pd.DataFrame) -> pd.DataFrame:
        return statistic(frame)[list(rates)]

    shares = {r: ratios[r] for r in rates}
    boot = statistics.bootstrap(doc_counts, inputs, chosen, by, cluster, **stats, ratios=shares)
    wide = totals
    for rate in rates:
        part = boot.loc[boot["rate"] == rate, [*by, "estimate", "low", "high"]]
        named = dict(zip(("estimate", "low", "high"), percent_columns([rate]), strict=True))
        part = part.rename(columns=named)
        for column in named.values():
            part[column] = 100 * part[column].astype(float)
        if by:
            wide = wide.merge(part, on=list(by), how="left", validate="one_to_one")
        else:
            wide = wide.assign(**{c: part[c].iloc[0] for c in named.values()})
    return wide


def percent_columns(rates: Sequence[str]) -> list[str]:
    """The CSV columns of each rate in percent: ``<rate>_pct``, ``_low_pct``, ``_high_pct``."""
    return [f"{r}{s}_pct" for r in rates for s in ("", "_low", "_high")]


def combine_document_counts(parts: Sequence[pd.DataFrame], keys: Sequence[str]) -> pd.DataFrame:
    """Per-document counts of several files (e.g. the suites of one order) as one table: counts
    add up, the document flags (``originals``, ``bias_inducing``) are "any". So each outcome
    file is read and reduced on its own, and memory follows one file."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=[*keys, *statistics.COLUMNS])
    frame = pd.concat(parts, ignore_index=True)
    grouped = frame.groupby(list(keys), sort=True, dropna=False)
    counts = grouped[list(rate_functions.COUNT_COLUMNS)].sum()
    flags = grouped[list(statistics.FLAG_COLUMNS)].max()
    return counts.join(flags).reset_index()[[*keys, *statistics.COLUMNS]]


def _nan(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


def cell(
    value,
    lo=None,
    hi=None,
    digits: int = 2,
    scale: float = 100.0,
    signed: bool = False,
    missing: str = "–",
) -> str:
    """``12.34 [11.10, 13.60]``: a rate and its interval in percent (``scale`` 1: as given,
    ``signed``: with a sign, as differences are shown); ``missing`` when the rate is undefined;
    the bare value when there is no interval. The one cell formatter of the RQ tables."""
    if _nan(value):
        return missing
    fmt = f"{'+' if signed else ''}.{digits}f"
    text = f"{scale * float(value):{fmt}}"
    if _nan(lo) or _nan(hi):
        return text
    return f"{text} [{scale * float(lo):{fmt}}, {scale * float(hi):{fmt}}]"


def percent_cell(row: Mapping[str, Any], rate: str) -> str:
    """:func:`cell` of a row of :func:`totals_intervals` (its percent columns)."""
    estimate, low, high = (row.get(c) for c in percent_columns([rate]))
    return cell(*(None if v is None else v / 100 for v in (estimate, low, high)))


def difference_cell(row: Mapping[str, Any], digits: int = 2, scale: float = 100.0) -> str:
    """``+5.10 [2.00, 8.30]*`` for a row of :func:`compare` (``*``: significant; "too few"
    where a side has fewer than :data:`hinter.statistics.MIN_DOCUMENTS` documents); ``–`` when
    either rate is undefined."""
    d = row.get("difference")
    if _nan(d):
        return "–"
    text = cell(d, row.get("difference_lo"), row.get("difference_hi"), digits, scale, signed=True)
    if row.get("side_documents", statistics.MIN_DOCUMENTS) < statistics.MIN_DOCUMENTS:
        return f"{text} ({statistics.TOO_FEW})"
    return text + ("*" if bool(row.get("significant")) else "")


def comparison_sentence(what: str, rate: str, row: Mapping[str, Any]) -> str:
    """ "<what>, error rate: 3.94 vs 2.95, difference +0.99 [0.50, 1.40] points, p = 0.002:
    significant" for a row of :func:`hinter.statistics.compare_rates` (percent points; "–"
    when a side has nothing to divide; "too few documents" below
    :data:`hinter.statistics.MIN_DOCUMENTS` on a side)."""
    name = rate.replace("_", " ")
    diff = row["difference"]
    if pd.isna(diff):
        return f"{what}, {name}: nothing to compare"
    if side_documents(row) < statistics.MIN_DOCUMENTS:
        verdict = f"{statistics.TOO_FEW} documents for a verdict (< {statistics.MIN_DOCUMENTS})"
    else:
        verdict = "significant" if row["significant"] else "not significant"
    return (
        f"{what}, {name}: {percent(row['rate_a'])} vs {percent(row['rate_b'])}, difference "
        f"{100 * diff:+.2f} [{percent(row['low'])}, {percent(row['high'])}] points, "
        f"p = {row['p_value']:.3g}: {verdict}"
    )


def within(value: float, lo: float, hi: float) -> bool | None:
    """Is ``value`` inside ``[lo, hi]`` (None when there is no interval)?"""
    if _nan(value) or _nan(lo) or _nan(hi):
        return None
    return bool(lo <= value <= hi)
