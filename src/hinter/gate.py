"""The CI gate of ``hinter test``: pooled rates against thresholds, and the summary for machines.

``--fail-above hidden=5`` fails the run (exit code :data:`EXIT_GATE`) when the pooled hidden
rate exceeds 5%. Rates are percentages pooled over suites as in :mod:`hinter.rates` (counts
summed, divided once): ``atomic`` and ``intersectional`` error rates (bias-inducing valid
mutants / valid mutants with an outcome, over atomic resp. intersectional suites), ``hidden``
(hidden / bias-inducing intersectional mutants with valid parents), a suite's name for its
error rate (``inter-race+gender=10``) and ``hidden:<suite>`` for its hidden rate.

The gate cannot pass on nothing: a threshold on a rate no planned suite computes (``hidden``
with ``--orders 1``) is refused before any work, and a threshold whose rate ends undefined
(nothing was counted: no dictionary word in the texts, every mutant invalid) makes the verdict
``error`` with exit code :data:`EXIT_UNDEFINED`, not a pass.

Small counts never decide alone: a gated rate whose denominator is below ``--min-count``
(default :data:`MIN_COUNT` mutants) is *too few* — neither a pass nor a fail, but an ``error``
verdict with exit code :data:`EXIT_UNDEFINED` (one hidden bias of 2 mutants, 50%, is no
evidence either way). A model whose predictions say nothing (the same prediction for every
original: a constant model cannot flip, so its rates are 0 by construction) makes a gated
verdict ``error`` too (exit code :data:`EXIT_UNDEFINED`), never a pass. Every rate of the
summary carries its counts and an interval (``lo``, ``hi`` in percent: the exact binomial,
Clopper–Pearson, interval of its counts; the API widens the pooled ones to the document
bootstrap's). No correction for multiple comparisons is made.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from hinter import rates, statistics
from hinter.errors import HinterError

EXIT_GATE = 3  # a rate exceeded its --fail-above threshold
EXIT_UNDEFINED = 1  # a gated rate has no value (or too few counts): the run vouches for nothing
MIN_COUNT = 10  # --min-count: a gated rate decides only on at least this many mutants
AGGREGATES = ("atomic", "intersectional", "hidden")


@dataclass(frozen=True)
class Threshold:
    rate: str
    limit: float  # percent


def parse_threshold(text: str) -> Threshold:
    """``RATE=VALUE`` (a percentage, ``5`` or ``5%``): the argparse type of ``--fail-above``."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected RATE=PERCENT (e.g. hidden=5), got {text!r}")
    try:
        limit = float(value.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not a percentage") from None
    if not 0 <= limit <= 100 or math.isnan(limit):
        raise argparse.ArgumentTypeError(f"{name}: {value!r} is not a percentage in 0..100")
    return Threshold(name, limit)


def rate_names(suites: Iterable[str]) -> list[str]:
    """The rates a run of these suites computes (an aggregate only over suites it has)."""
    suites = list(suites)
    inter = [s for s in suites if s.startswith("inter-")]
    aggregates = (["atomic"] if len(inter) < len(suites) else []) + (
        ["intersectional", "hidden"] if inter else []
    )
    return [*aggregates, *suites, *(f"hidden:{s}" for s in inter)]


def check_thresholds(thresholds: Sequence[Threshold], suites: Iterable[str]) -> None:
    """Every threshold names a rate this run computes; each rate at most once."""
    known = rate_names(suites)
    seen: set[str] = set()
    for t in thresholds:
        if t.rate in AGGREGATES and t.rate not in known:
            which = "atomic" if t.rate == "atomic" else "intersectional"
            raise HinterError(
                f"--fail-above {t.rate}: no {which} suite is planned (see --orders); the gate "
                "would pass on nothing"
            )
        if t.rate not in known:
            raise HinterError(f"--fail-above: unknown rate {t.rate!r} (known: {', '.join(known)})")
        if t.rate in seen:
            raise HinterError(f"--fail-above: rate {t.rate!r} is given twice")
        seen.add(t.rate)


def pooled_rates(counts: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Every gate rate from per-suite counts (``rates.COUNT_COLUMNS`` with ``suite``, ``order``).

    Each entry: ``percent`` (None when nothing was counted), ``numerator``, ``denominator``
    and the exact (Clopper–Pearson) 95% interval ``lo``, ``hi`` in percent (None likewise).
    """
    out: dict[str, dict[str, Any]] = {}

    def entry(frame: pd.DataFrame, num: str, den: str) -> dict[str, Any]:
        n, d = int(frame[num].sum()), int(frame[den].sum())
        value = rates.rate(n, d)
        lo, hi = statistics.exact_interval(n, d)
        return {
            "percent": _percent(value),
            "numerator": n,
            "denominator": d,
            "lo": _percent(lo),
            "hi": _percent(hi),
            "interval": "exact binomial (Clopper-Pearson), 95%",
        }

    atomic = counts[counts["order"] == 1]
    inter = counts[counts["order"] >= 2]
    out["atomic"] = entry(atomic, "errors", "decided")
    out["intersectional"] = entry(inter, "errors", "decided")
    out["hidden"] = entry(inter, "hidden", "hidden_base")
    for suite, frame in counts.groupby("suite", sort=True):
        out[str(suite)] = entry(frame, "errors", "decided")
        if str(suite).startswith("inter-"):
            out[f"hidden:{suite}"] = entry(frame, "hidden", "hidden_base")
    return out


def _percent(value: float) -> float | None:
    return None if math.isnan(value) else round(100 * value, 6)


@dataclass(frozen=True)
class Verdict:
    thresholds: tuple[Threshold, ...]
    exceeded: tuple[tuple[Threshold, float], ...]
    undefined: tuple[Threshold, ...]  # no mutant counted: the rate has no value
    too_few: tuple[tuple[Threshold, int], ...] = ()  # (threshold, denominator < min_count)
    min_count: int = MIN_COUNT
    broken: tuple[str, ...] = ()  # why the model's rates say nothing (a constant model)

    @property
    def failed(self) -> bool:
        return bool(self.exceeded)

    @property
    def undecided(self) -> bool:
        """A gated run that cannot vouch: a rate undefined or on too few mutants, or a model
        whose rates say nothing."""
        return bool(self.thresholds) and bool(self.undefined or self.too_few or self.broken)

    @property
    def exit_code(self) -> int:
        if self.failed:
            return EXIT_GATE
        return EXIT_UNDEFINED if self.undecided else 0

    @property
    def word(self) -> str:
        if not self.thresholds:
            return "no gate"
        if self.failed:
            return "fail"
        return "error" if self.undecided else "pass"

    def _cannot(self) -> list[str]:
        return (
            [f"{t.rate} undefined (nothing counted)" for t in self.undefined]
            + [
                f"{t.rate} too few: {d:,} mutants, fewer than --min-count {self.min_count}"
                for t, d in self.too_few
            ]
            + list(self.broken)
        )

    def line(self) -> str:
        """One line for the terminal."""
        if not self.thresholds:
            return ""
        cannot = self._cannot()
        if self.failed:
            parts = [f"{t.rate} {v:.2f}% > {t.limit:g}%" for t, v in self.exceeded]
            return f"bias gate failed: {'; '.join(parts + cannot)} (exit code {EXIT_GATE})"
        if self.broken:
            return (
                f"bias gate failed: {'; '.join(cannot)}; its bias rates say nothing "
                f"(exit code {EXIT_UNDEFINED})"
            )
        if self.undecided:
            return (
                f"bias gate cannot decide: {'; '.join(cannot)}; the run vouches for nothing "
                f"(exit code {EXIT_UNDEFINED})"
            )
        parts = [f"{t.rate} ≤ {t.limit:g}%" for t in self.thresholds]
        return f"bias gate passed: {'; '.join(parts)}"


def evaluate(
    pooled: Mapping[str, Mapping[str, Any]],
    thresholds: Sequence[Threshold],
    *,
    min_count: int = MIN_COUNT,
    broken: Sequence[str] = (),
) -> Verdict:
    """Which thresholds a run exceeds (strictly above), which rates are undefined or rest on
    fewer than ``min_count`` mutants (their denominator), and ``broken``: why the model's
    rates say nothing. All but the first are an error of the gate, never a pass."""
    if min_count < 1:
        raise HinterError(f"--min-count: {min_count} is not a count of at least 1")
    exceeded, undefined, too_few = [], [], []
    for t in thresholds:
        entry = pooled.get(t.rate, {})
        value, denominator = entry.get("percent"), int(entry.get("denominator") or 0)
        if value is None:
            undefined.append(t)
        elif denominator < min_count:
            too_few.append((t, denominator))
        elif value > t.limit:
            exceeded.append((t, value))
    return Verdict(
        tuple(thresholds), tuple(exceeded), tuple(undefined), tuple(too_few), int(min_count),
        tuple(broken),
    )  # fmt: skip


def summary(
    counts: pd.DataFrame, verdict: Verdict, pooled: Mapping[str, Any], **about: Any
) -> dict[str, Any]:
    """The ``--json`` document: what was tested, per-suite counts and rates, the verdict."""
    suites = []
    for row in rates.add_rates(counts).sort_values(["order", "suite"]).itertuples(index=False):
        item = {"suite": row.suite, "order": int(row.order)}
        item.update({c: int(getattr(row, c)) for c in rates.COUNT_COLUMNS})
        for name in ("error_rate", "hidden_rate", "valid_share"):
            value = getattr(row, name)
            item[f"{name}_pct"] = None if pd.isna(value) else round(100 * float(value), 6)
        suites.append(item)
    return {
        **about,
        "suites": suites,
        "rates": dict(pooled),
        "thresholds": {t.rate: t.limit for t in verdict.thresholds},
        "exceeded": [
            {"rate": t.rate, "percent": v, "threshold": t.limit} for t, v in verdict.exceeded
        ],
        "undefined": [t.rate for t in verdict.undefined],
        "too_few": [{"rate": t.rate, "denominator": d} for t, d in verdict.too_few],
        "min_count": verdict.min_count,
        "broken": list(verdict.broken),
        "verdict": verdict.word,
    }
