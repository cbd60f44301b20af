"""Confidence intervals and significance tests for the pooled rates of :mod:`hinter.rates`.

Mutants of one original document are not independent (they share its text, and the model's
view of it), so the unit of resampling is the *original document*, not the mutant: a
bootstrap resample draws documents with replacement and takes all their mutants along (a
cluster bootstrap). A rate is then recomputed from the resampled counts by
:func:`hinter.rates.add_rates` (and :func:`hinter.rates.add_document_rates` for the share of
bias-inducing originals) — the rates are never re-implemented here.

- :func:`document_counts`: per-document counts (``rates.counts`` by document, plus the
  document flags of ``rates.document_flags``) — the input of everything else;
- :func:`bootstrap_rates`: a percentile interval for every rate of every group
  (:func:`bootstrap` for any statistic of column totals, e.g. a pooled grammar score);
- :func:`compare_rates`: the difference of a rate between two suites or models, with a
  percentile interval and a two-sided bootstrap p-value. Documents the two sides share are
  resampled *together* (a paired bootstrap: the same draw for both), the others on each side
  independently. The difference is significant at level ``1 - confidence`` when the
  interval excludes 0, and never when a side rests on fewer than ``min_documents`` documents
  (a bootstrap over one document has no variance: its interval is a point);
- :func:`exact_interval` / :func:`floored_interval`: the exact binomial (Clopper–Pearson)
  interval of a count, and a bootstrap interval widened to contain it. A cluster bootstrap
  collapses to a point when every mutant comes from one document or no event was seen
  (``0.00 [0.00, 0.00]`` from 4 mutants); the exact interval, which treats mutants as
  independent, is a floor under the width that the counts alone justify. :func:`bootstrap`
  applies it to every statistic it is told the counts of (``ratios``; :data:`RATE_COUNTS`
  for :func:`bootstrap_rates`), so no rate interval is narrower than its exact one;
- :data:`MIN_DOCUMENTS`: the fewest original documents a verdict (a significant difference,
  a biased group) may rest on; fewer are "too few" (:func:`verdict`).

The resampling is vectorised: the counts of all documents of a group form a matrix ``C``
(documents x counts), a batch of resamples a matrix ``W`` of draw multiplicities (resamples x
documents, built with one ``bincount``), and the resampled totals are ``W @ C``. Draws come
from ``numpy.random.default_rng`` seeded by ``seed`` and the group's key, so a group's
interval does not depend on which other groups are present.

No correction for multiple comparisons is made: each interval and test is at level
``confidence`` on its own, and the reports make many of them, so some "significant"
differences are expected by chance alone.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from hinter import rates

# Per-document flags (0/1) behind the share of bias-inducing originals.
FLAG_COLUMNS = ("originals", "bias_inducing")
COLUMNS = (*rates.COUNT_COLUMNS, *FLAG_COLUMNS)
# Every rate with an interval: rates.add_rates' four and rates.distinct_originals' share.
RATES = ("error_rate", "hidden_rate", "hidden_rate_artifact", "valid_share", "distinct_share")
# The counts those rates read (only these are resampled).
RATE_INPUTS = (
    "generated",
    "valid",
    "decided",
    "errors",
    "hidden_base",
    "hidden",
    "hidden_artifact",
    *FLAG_COLUMNS,
)
# Each rate of RATES as (numerator, denominator) among RATE_INPUTS: the counts whose exact
# interval floors its bootstrap interval (hinter.rates.RATE_RATIOS, plus the document share).
RATE_COUNTS = {**rates.RATE_RATIOS, "distinct_share": ("bias_inducing", "originals")}
# The fewest original documents behind each side of a verdict: with fewer, a bootstrap interval
# is (nearly) a point and any difference would look "significant" (issue 31, G7).
MIN_DOCUMENTS = 5
TOO_FEW = "too few"
_DRAWS_PER_BATCH = 1 << 22  # document draws per batch of resamples (bounds memory: ~100 MB)


def _binomial_cdf(n: int) -> Callable[[float, int], float]:
    """``cdf(p, upto)`` = P(X <= upto) for X ~ Binomial(n, p), in log space (large ``n`` too)."""
    i = np.arange(n + 1, dtype=np.float64)
    # log C(n, i) as a running sum: no lgamma, no scipy
    steps = np.log(np.maximum(n - i[1:] + 1, 1)) - np.log(i[1:])
    log_choose = np.concatenate([[0.0], np.cumsum(steps)])

    def cdf(p: float, upto: int) -> float:
        if p <= 0.0:
            return 1.0
        if p >= 1.0:
            return 1.0 if upto >= n else 0.0
        # only terms within 20 standard deviations (+ 20) of the mean count: by Bernstein's
        # inequality the rest add less than 1e-13, and the work grows with sqrt(n), so a rate
        # over millions of mutants is floored at once
        reach = 20.0 * math.sqrt(n * p * (1.0 - p)) + 20.0
        first, last = max(0, int(n * p - reach)), min(upto, int(n * p + reach) + 1)
        if last < first:
            return 0.0
        j = i[first : last + 1]
        log_pmf = log_choose[first : last + 1] + j * np.log(p) + (n - j) * np.log1p(-p)
        return float(np.exp(log_pmf).sum())

    return cdf


def exact_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact binomial (Clopper–Pearson) interval of ``k`` events in ``n`` trials, as
    fractions; ``(nan, nan)`` when ``n`` is 0.

    The bounds solve ``P(X >= k | lo) = alpha/2`` and ``P(X <= k | hi) = alpha/2`` by
    bisection on the binomial distribution (log-space, so large ``n`` is exact too)."""
    k, n = _checked(k, n)
    if n <= 0:
        return (float("nan"), float("nan"))
    alpha = 1.0 - confidence
    cdf = _binomial_cdf(n)

    def solve(upto: int, target: float) -> float:  # the p where P(X <= upto | p) = target
        a, b = 0.0, 1.0  # the cdf decreases in p
        for _ in range(60):
            m = (a + b) / 2
            if cdf(m, upto) > target:
                a = m
            else:
                b = m
        return (a + b) / 2

    low = 0.0 if k == 0 else solve(k - 1, 1.0 - alpha / 2)  # P(X >= k | low) = alpha / 2
    high = 1.0 if k == n else solve(k, alpha / 2)
    return (low, high)


def _checked(k, n) -> tuple[int, int]:
    k, n = int(k), int(n)
    if n > 0 and not 0 <= k <= n:
        raise ValueError(f"{k} events in {n} trials")
    return k, n


def floored_interval(
    k: int, n: int, low: float, high: float, confidence: float = 0.95
) -> tuple[float, float]:
    """A bootstrap interval (fractions) widened to contain the exact interval of ``k`` of ``n``
    (:func:`exact_interval`): the bootstrap keeps its width where it is wider (mutants of
    one document are not independent), the exact interval stands where the bootstrap
    collapsed (one document, zero events) or is missing (NaN).

    A bound already beyond the exact one is seen from one tail probability (``low`` is at or
    below the exact low when ``P(X >= k | low) <= alpha/2``), so the bisection of
    :func:`exact_interval` runs only where the bootstrap is narrower: the common case of a
    large sample costs two sums, not a hundred."""
    k, n = _checked(k, n)
    if n <= 0:
        return (float("nan"), float("nan"))
    tail, cdf = (1.0 - confidence) / 2, _binomial_cdf(n)
    wide_low = not np.isnan(low) and (low <= 0.0 or (k > 0 and 1.0 - cdf(low, k - 1) <= tail))
    wide_high = not np.isnan(high) and (high >= 1.0 or (k < n and cdf(high, k) <= tail))
    if wide_low and wide_high:
        return (float(low), float(high))
    lo_exact, hi_exact = exact_interval(k, n, confidence)
    lo = lo_exact if np.isnan(low) else min(float(low), lo_exact)
    hi = hi_exact if np.isnan(high) else max(float(high), hi_exact)
    return (lo, hi)


def verdict(significant, documents, min_documents: int = MIN_DOCUMENTS) -> str:
    """A comparison's or a flag's verdict as the tables write it: ``yes`` / ``no``,
    :data:`TOO_FEW` when it rests on fewer than ``min_documents`` documents, empty where
    nothing was compared (``significant`` missing)."""
    if significant is None or pd.isna(significant):
        return ""
    if documents is not None and not pd.isna(documents) and int(documents) < min_documents:
        return TOO_FEW
    return "yes" if bool(significant) else "no"


def document_counts(
    outcomes: pd.DataFrame,
    by: Sequence[str] = (),
    threshold: float | None = None,
    rule: str = rates.EXCLUDE,
    *,
    given: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Counts of every rate per (``by``, ``doc_id``): :data:`COLUMNS`.

    ``originals`` / ``bias_inducing`` are the document's flags over *all* the rows given (an
    original is bias-inducing if any of its valid mutants is), so pass every suite that a
    share pools (e.g. all intersectional suites of a model and dataset) in one call.
    ``given``: the rows' :func:`hinter.rates.verdicts`, when the caller already has them.
    """
    keys = [*by, "doc_id"]
    counts = rates.counts(outcomes, by=keys, threshold=threshold, rule=rule, given=given)
    flags = rates.document_flags(outcomes, by=by, threshold=threshold, rule=rule, given=given)
    flags = flags.rename(columns={"tested": "originals"})
    out = counts.merge(flags, on=keys, how="left", validate="one_to_one")
    for column in FLAG_COLUMNS:
        out[column] = out[column].fillna(False).astype(np.int64)
    return out[[*keys, *COLUMNS]]


def rate_table(totals: pd.DataFrame) -> pd.DataFrame:
    """Every rate of :data:`RATES` from totals of :data:`RATE_INPUTS` (one row per row given)."""
    with_rates = rates.add_document_rates(rates.add_rates(totals))
    return with_rates.rename(columns={"share": "distinct_share"})[list(RATES)]


def group_rng(seed: int, key: tuple) -> np.random.Generator:
    """A generator for one group: seeded by ``seed`` and a stable hash of the group's key.

    The key's values are made plain Python values first (``np.int64(3)`` -> ``3``): numpy 2
    prints its scalars differently from numpy 1, which would change the seeds, and so every
    interval, with the numpy version."""
    plain = tuple(v.item() if isinstance(v, np.generic) else v for v in key)
    digest = hashlib.blake2b(repr(plain).encode("utf-8"), digest_size=16).digest()
    words = np.frombuffer(digest, dtype=np.uint32).tolist()
    return np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, *words]))


def resample_totals(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Column totals of ``values`` (documents x counts) over ``resamples`` bootstrap resamples.

    Each resample draws ``len(values)`` documents with replacement. Returns resamples x counts.
    """
    values = np.asarray(values, dtype=np.float64)
    n_docs, n_cols = values.shape
    out = np.zeros((resamples, n_cols), dtype=np.float64)
    if n_docs == 0 or resamples == 0:
        return out
    batch = max(1, min(resamples, _DRAWS_PER_BATCH // n_docs))
    for start in range(0, resamples, batch):
        n = min(batch, resamples - start)
        draws = rng.integers(0, n_docs, size=(n, n_docs))
        draws += (np.arange(n, dtype=np.int64) * n_docs)[:, None]
        weights = np.bincount(draws.ravel(), minlength=n * n_docs).reshape(n, n_docs)
        out[start : start + n] = weights.astype(np.float64) @ values  # BLAS, exact integers
    return out


def _clusters(
    frame: pd.DataFrame, cluster: Sequence[str], inputs: Sequence[str] = RATE_INPUTS
) -> pd.DataFrame:
    """``inputs`` summed per cluster, in cluster-key order (so a group's draws do not depend
    on the order of its rows)."""
    missing = [c for c in (*cluster, *inputs) if c not in frame.columns]
    if missing:
        raise KeyError(f"column(s) {', '.join(missing)} not in the document counts")
    return frame.groupby(list(cluster), sort=True)[list(inputs)].sum()


def _interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - confidence
    with np.errstate(all="ignore"):
        finite = np.isfinite(samples).any(axis=0)
        low = np.full(samples.shape[1], np.nan)
        high = np.full(samples.shape[1], np.nan)
        if finite.any():
            low[finite] = np.nanquantile(samples[:, finite], alpha / 2, axis=0)
            high[finite] = np.nanquantile(samples[:, finite], 1 - alpha / 2, axis=0)
    return low, high


def _check(resamples: int, confidence: float) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, not {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence} outside (0, 1)")


def _groups(frame: pd.DataFrame, by: Sequence[str]):
    if not by:
        yield (), frame
        return
    yield from frame.groupby(list(by), sort=True, dropna=False)


def bootstrap(
    frame: pd.DataFrame,
    inputs: Sequence[str],
    statistic: Callable[[pd.DataFrame], pd.DataFrame],
    by: Sequence[str] = (),
    cluster: Sequence[str] = ("doc_id",),
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    ratios: Mapping[str, tuple[str, str | Sequence[str]]] | None = None,
) -> pd.DataFrame:
    """Percentile intervals of statistics of column totals, resampling clusters per group.

    ``statistic`` maps a frame of totals of ``inputs`` (one row per resample) to a frame of
    statistics (same rows, one column each). Rows with the same ``by`` and ``cluster`` key
    are one resampling unit. Returns one row per (group, statistic): ``by...``, ``rate``
    (the statistic's name), ``estimate`` (on the totals of the data), ``low``, ``high``,
    ``documents`` (resampled units) and ``resamples``. ``ratios`` names the counts of the
    statistics that are shares, ``name: (numerator, denominator)`` among ``inputs`` (a
    denominator may be several columns, summed): their intervals are widened to contain the
    exact interval of the group's totals (:func:`floored_interval`).
    """
    _check(resamples, confidence)
    records = []
    for key, part in _groups(frame, by):
        key = key if isinstance(key, tuple) else (key,)
        clusters = _clusters(part, cluster, inputs)
        point = statistic(pd.DataFrame([clusters.sum()]))
        totals = resample_totals(clusters.to_numpy(), resamples, group_rng(seed, key))
        samples = statistic(pd.DataFrame(totals, columns=list(inputs)))
        low, high = _interval(samples.to_numpy(np.float64), confidence)
        total = clusters.sum()
        for j, name in enumerate(samples.columns):
            if ratios and name in ratios:
                k, n = _share_counts(total, ratios[name])
                low[j], high[j] = floored_interval(k, n, low[j], high[j], confidence)
            estimate = float(point[name].iloc[0])
            records.append((*key, name, estimate, low[j], high[j], len(clusters), resamples))
    columns = [*by, "rate", "estimate", "low", "high", "documents", "resamples"]
    return pd.DataFrame(records, columns=columns)


def _share_counts(total: pd.Series, ratio: tuple[str, str | Sequence[str]]) -> tuple[int, int]:
    numerator, denominator = ratio
    columns = [denominator] if isinstance(denominator, str) else list(denominator)
    return int(total[numerator]), int(sum(total[c] for c in columns))


def bootstrap_rates(
    doc_counts: pd.DataFrame,
    by: Sequence[str] = (),
    cluster: Sequence[str] = ("doc_id",),
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """A percentile bootstrap interval for every rate of :data:`RATES`, per group of ``by``,
    widened to contain the exact interval of its counts (:data:`RATE_COUNTS`).

    ``doc_counts`` holds :data:`RATE_INPUTS` per row (see :func:`document_counts`); rows with
    the same ``by`` and ``cluster`` key are one resampling unit (an original document: use
    ``("dataset", "doc_id")`` when pooling datasets; rows of several models on the same
    document stay together, as they are not independent either). Returns one row per
    (group, rate): ``by...``, ``rate``, ``estimate`` (the pooled rate), ``low``, ``high``,
    ``documents`` (resampled units) and ``resamples``.
    """
    return bootstrap(
        doc_counts, RATE_INPUTS, rate_table, by, cluster, resamples, seed, confidence, RATE_COUNTS
    )


def compare_rates(
    a: pd.DataFrame,
    b: pd.DataFrame,
    by: Sequence[str] = (),
    cluster: Sequence[str] = ("doc_id",),
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    min_documents: int = MIN_DOCUMENTS,
) -> pd.DataFrame:
    """Is a rate different between side ``a`` and side ``b`` (two suites, or two models)?

    Both sides are document counts (:func:`document_counts`) compared within each group of
    ``by``. The statistic is ``rate(a) - rate(b)``; documents both sides share are drawn
    once for both (paired), the rest independently per side. Returns one row per (group,
    rate): the two pooled rates, the ``difference``, its percentile interval (``low``,
    ``high``), the two-sided bootstrap ``p_value`` (twice the smaller tail share of resampled
    differences at or beyond 0, with the +1 correction), ``significant`` (the interval excludes
    0, and each side has at least ``min_documents`` documents: with one document the
    bootstrap has no variance and any difference would be "significant") and the numbers of
    ``shared`` documents and documents ``only_a`` / ``only_b``.
    """
    _check(resamples, confidence)
    b_groups = dict(_groups(b, by))
    records = []
    for key, part_a in _groups(a, by):
        part_b = b_groups.get(key, b.iloc[:0])
        key = key if isinstance(key, tuple) else (key,)
        ca, cb = _clusters(part_a, cluster), _clusters(part_b, cluster)
        shared = ca.index.intersection(cb.index)
        only_a, only_b = ca.index.difference(shared), cb.index.difference(shared)
        rng = group_rng(seed, ("compare", *key))
        k = len(RATE_INPUTS)
        paired = np.hstack([ca.loc[shared].to_numpy(), cb.loc[shared].to_numpy()])
        both = resample_totals(paired.reshape(len(shared), 2 * k), resamples, rng)
        total_a = both[:, :k] + resample_totals(ca.loc[only_a].to_numpy(), resamples, rng)
        total_b = both[:, k:] + resample_totals(cb.loc[only_b].to_numpy(), resamples, rng)
        rate_a = rate_table(pd.DataFrame(total_a, columns=list(RATE_INPUTS))).to_numpy(np.float64)
        rate_b = rate_table(pd.DataFrame(total_b, columns=list(RATE_INPUTS))).to_numpy(np.float64)
        diff = rate_a - rate_b
        point_a = rate_table(pd.DataFrame([ca.sum()])).iloc[0]
        point_b = rate_table(pd.DataFrame([cb.sum()])).iloc[0]
        low, high = _interval(diff, confidence)
        for j, name in enumerate(RATES):
            d = diff[:, j][np.isfinite(diff[:, j])]
            if len(d):
                tail = min(np.sum(d <= 0), np.sum(d >= 0))
                p_value = min(1.0, 2 * (tail + 1) / (len(d) + 1))
            else:
                p_value = np.nan
            estimate = float(point_a[name]) - float(point_b[name])
            enough = min(len(ca), len(cb)) >= min_documents
            significant = bool(enough and np.isfinite(low[j]) and (low[j] > 0 or high[j] < 0))
            records.append(
                (
                    *key,
                    name,
                    float(point_a[name]),
                    float(point_b[name]),
                    estimate,
                    low[j],
                    high[j],
                    p_value,
                    significant,
                    len(shared),
                    len(only_a),
                    len(only_b),
                    resamples,
                )
            )
    columns = [
        *by,
        "rate",
        "rate_a",
        "rate_b",
        "difference",
        "low",
        "high",
        "p_value",
        "significant",
        "shared",
        "only_a",
        "only_b",
        "resamples",
    ]
    return pd.DataFrame(records, columns=columns)
