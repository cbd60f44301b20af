"""Benchmark: the vectorised document bootstrap against a per-resample pandas loop.

Naive: for every resample, draw the documents (the same generator, so the same draws), select
their rows with ``DataFrame.iloc``, sum the counts and compute the rates — what one writes
first. Ours: ``hinter.statistics.bootstrap_rates`` (batches of resamples as a multiplicity
matrix from one ``bincount``, totals by one matrix product). The intervals must be identical.

    pytest tests/benchmarks/test_bootstrap_bench.py -m benchmark -s        # smoke (seconds)
    HINTER_BENCH_SCALE=full pytest tests/benchmarks/test_bootstrap_bench.py -m benchmark -s
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd
import pytest

from hinter import statistics
from hinter.statistics import COLUMNS, RATE_INPUTS, RATES

pytestmark = pytest.mark.benchmark

FULL = os.environ.get("HINTER_BENCH_SCALE", "smoke") == "full"
DOCUMENTS = 100_000 if FULL else 5_000
RESAMPLES = 2_000 if FULL else 200
NAIVE_RESAMPLES = 200 if FULL else 20  # the naive loop is timed on fewer, then scaled


def document_counts(n: int, seed: int = 0) -> pd.DataFrame:
    """Per-document counts shaped like a run's: a few to a few dozen mutants per document."""
    rng = np.random.default_rng(seed)
    generated = rng.integers(1, 40, size=n)
    valid = rng.binomial(generated, 0.4)
    decided = valid - rng.binomial(valid, 0.02)
    errors = rng.binomial(decided, 0.12)
    hidden_base = rng.binomial(errors, 0.5)
    hidden = rng.binomial(hidden_base, 0.2)
    frame = pd.DataFrame({"doc_id": [f"d{i:07d}" for i in range(n)]})
    for column in COLUMNS:
        frame[column] = 0
    frame["generated"], frame["valid"], frame["decided"] = generated, valid, decided
    frame["errors"], frame["hidden_base"], frame["hidden"] = errors, hidden_base, hidden
    frame["hidden_artifact"] = rng.binomial(hidden_base, 0.1)
    frame["originals"] = (decided > 0).astype(int)
    frame["bias_inducing"] = (errors > 0).astype(int)
    return frame


def naive(frame: pd.DataFrame, resamples: int, seed: int, confidence: float) -> np.ndarray:
    rng = statistics.group_rng(seed, ())
    ordered = frame.sort_values("doc_id").reset_index(drop=True)[list(RATE_INPUTS)]
    out = []
    for _ in range(resamples):
        draws = rng.integers(0, len(ordered), size=len(ordered))
        totals = ordered.iloc[draws].sum()
        out.append(statistics.rate_table(pd.DataFrame([totals])).iloc[0].to_numpy(np.float64))
    samples = np.array(out)
    alpha = 1 - confidence
    return np.vstack(
        [np.nanquantile(samples, alpha / 2, axis=0), np.nanquantile(samples, 1 - alpha / 2, axis=0)]
    )


def test_bootstrap_speed_and_identical_intervals():
    frame = document_counts(DOCUMENTS)
    # identical results: the same draws give the same interval bounds
    check = NAIVE_RESAMPLES
    ours_small = statistics.bootstrap_rates(frame, resamples=check, seed=1)
    want = naive(frame, check, seed=1, confidence=0.95)
    totals = frame[list(RATE_INPUTS)].sum()
    for j, rate in enumerate(RATES):
        # both floored by the exact interval of the totals (issue 31, G7), as every rate is
        numerator, denominator = statistics.RATE_COUNTS[rate]
        want[:, j] = statistics.floored_interval(
            int(totals[numerator]), int(totals[denominator]), want[0, j], want[1, j]
        )
        row = ours_small[ours_small["rate"] == rate].iloc[0]
        assert row["low"] == pytest.approx(want[0, j], rel=1e-12, abs=1e-15), rate
        assert row["high"] == pytest.approx(want[1, j], rel=1e-12, abs=1e-15), rate

    times_naive, times_ours = [], []
    for _ in range(3):
        start = time.perf_counter()
        naive(frame, NAIVE_RESAMPLES, seed=2, confidence=0.95)
        times_naive.append((time.perf_counter() - start) / NAIVE_RESAMPLES)
        start = time.perf_counter()
        statistics.bootstrap_rates(frame, resamples=RESAMPLES, seed=2)
        times_ours.append((time.perf_counter() - start) / RESAMPLES)
    per_naive, per_ours = float(np.median(times_naive)), float(np.median(times_ours))
    print(
        f"\nbootstrap over {DOCUMENTS:,} documents: naive {per_naive * 1e3:.2f} ms/resample, "
        f"ours {per_ours * 1e3:.2f} ms/resample ({RESAMPLES:,} resamples in "
        f"{per_ours * RESAMPLES:.2f} s), speed-up {per_naive / per_ours:.1f}x"
    )
    if FULL:
        assert per_naive / per_ours >= 3
        assert per_ours * RESAMPLES < 30  # thousands of resamples over 1e5 documents: seconds
