"""Bootstrap intervals over original documents and paired comparisons, on known answers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from oracle_cases import TEXT, Suite, add_case
from test_rates import plain_rates, world

from hinter import rates, statistics
from hinter.statistics import COLUMNS, RATES


def counts_frame(per_doc: list[dict], **keys) -> pd.DataFrame:
    """Document counts from dicts of the non-zero columns."""
    rows = []
    for i, values in enumerate(per_doc):
        row = dict.fromkeys(COLUMNS, 0)
        row.update(values)
        rows.append({**keys, "doc_id": f"d{i:05d}", **row})
    return pd.DataFrame(rows)


def bernoulli_docs(p: float, n: int, seed: int, mutants: int = 1) -> pd.DataFrame:
    """``n`` documents with ``mutants`` valid decided mutants, each an error with prob. ``p``."""
    rng = np.random.default_rng(seed)
    errors = rng.binomial(mutants, p, size=n)
    return counts_frame(
        [
            {"generated": mutants, "valid": mutants, "decided": mutants, "errors": int(e)}
            for e in errors
        ]
    )


def interval(table: pd.DataFrame, rate: str = "error_rate", **where) -> pd.Series:
    sel = table["rate"] == rate
    for k, v in where.items():
        sel &= table[k] == v
    (row,) = table[sel].to_dict("records")
    return pd.Series(row)


def test_identical_documents_collapse_the_bootstrap_and_the_exact_interval_floors_it():
    """G7: 50 identical documents give the percentile bootstrap no variance (a point); the
    rates' intervals are then the exact ones of their counts (:data:`RATE_COUNTS`)."""
    docs = counts_frame(
        [
            {
                "generated": 4,
                "valid": 3,
                "decided": 3,
                "errors": 1,
                "originals": 1,
                "bias_inducing": 1,
            }
        ]
        * 50
    )
    keywords = {"resamples": 300, "seed": 1}
    raw = statistics.bootstrap(docs, statistics.RATE_INPUTS, statistics.rate_table, **keywords)
    table = statistics.bootstrap_rates(docs, **keywords)
    for rate, k, n in (("error_rate", 50, 150), ("valid_share", 150, 200),
                       ("distinct_share", 50, 50)):  # fmt: skip
        point, row = interval(raw, rate), interval(table, rate)
        assert row["estimate"] == pytest.approx(k / n)
        assert point["low"] == pytest.approx(k / n) and point["high"] == pytest.approx(k / n)
        assert (row["low"], row["high"]) == pytest.approx(statistics.exact_interval(k, n))
    hidden = interval(table, "hidden_rate")  # nothing counted: NaN, not an error
    assert math.isnan(hidden["estimate"]) and math.isnan(hidden["low"])


@pytest.mark.parametrize(("p", "n"), [(0.1, 4000), (0.3, 2000), (0.5, 1000)])
def test_binomial_interval_matches_the_normal_approximation(p, n):
    docs = bernoulli_docs(p, n, seed=7)
    row = interval(statistics.bootstrap_rates(docs, resamples=4000, seed=2))
    p_hat = docs["errors"].sum() / n
    half = 1.959964 * math.sqrt(p_hat * (1 - p_hat) / n)
    assert row["estimate"] == pytest.approx(p_hat)
    assert row["low"] == pytest.approx(p_hat - half, abs=0.08 * half)
    assert row["high"] == pytest.approx(p_hat + half, abs=0.08 * half)


def test_clustered_mutants_widen_the_interval():
    """Ten mutants per document that all share the document's outcome: the effective sample is
    the documents, so the interval is that of n documents, not of 10 n mutants."""
    rng = np.random.default_rng(3)
    n = 1500
    hit = rng.random(n) < 0.2
    docs = counts_frame(
        [{"generated": 10, "valid": 10, "decided": 10, "errors": 10 * int(h)} for h in hit]
    )
    row = interval(statistics.bootstrap_rates(docs, resamples=3000, seed=4))
    p_hat = hit.mean()
    per_document = 1.959964 * math.sqrt(p_hat * (1 - p_hat) / n)
    assert (row["high"] - row["low"]) / 2 == pytest.approx(per_document, rel=0.1)


@pytest.mark.parametrize("seed", [0, 1])
def test_estimates_equal_a_plain_pandas_computation(seed):
    frame = world(seed=seed)
    docs = statistics.document_counts(frame, by=["model", "dataset"])
    table = statistics.bootstrap_rates(docs, by=["model", "dataset"], resamples=50, seed=seed)
    for (model, dataset), part in frame.groupby(["model", "dataset"]):
        want = plain_rates(part)
        for rate in ("error_rate", "hidden_rate", "valid_share"):
            got = interval(table, rate, model=model, dataset=dataset)["estimate"]
            assert (math.isnan(got) and math.isnan(want[rate])) or got == pytest.approx(want[rate])
        flags = rates.document_flags(part)
        share = interval(table, "distinct_share", model=model, dataset=dataset)["estimate"]
        tested = flags[flags["tested"]]
        assert share == pytest.approx(tested["bias_inducing"].mean())
    # every interval holds its estimate (percentile intervals of a smooth statistic)
    ok = table.dropna(subset=["low"])
    assert ((ok["low"] <= ok["estimate"] + 1e-12) & (ok["estimate"] <= ok["high"] + 1e-12)).all()


def test_document_counts_add_up_to_rates_counts():
    frame = world(seed=2)
    docs = statistics.document_counts(frame, by=["model", "dataset"])
    pooled = docs.groupby(["model", "dataset"])[list(rates.COUNT_COLUMNS)].sum().reset_index()
    direct = rates.counts(frame, by=["model", "dataset"])
    pd.testing.assert_frame_equal(pooled, direct, check_dtype=False)
    assert set(docs.groupby(["model", "dataset", "doc_id"]).size()) == {1}


def test_intervals_are_seeded_and_independent_of_other_groups():
    a = bernoulli_docs(0.2, 300, seed=1).assign(dataset="a")
    b = bernoulli_docs(0.4, 300, seed=2).assign(dataset="b")
    both = statistics.bootstrap_rates(pd.concat([a, b]), by=["dataset"], resamples=200, seed=5)
    alone = statistics.bootstrap_rates(a, by=["dataset"], resamples=200, seed=5)
    pd.testing.assert_frame_equal(both[both["dataset"] == "a"].reset_index(drop=True), alone)
    other = statistics.bootstrap_rates(a, by=["dataset"], resamples=200, seed=6)
    assert interval(other)["low"] != interval(alone)["low"]


def test_resample_totals_are_sums_of_drawn_documents():
    values = np.arange(12, dtype=float).reshape(4, 3)
    totals = statistics.resample_totals(values, 5, np.random.default_rng(0))
    draws = np.random.default_rng(0).integers(0, 4, size=(5, 4))
    assert np.array_equal(totals, values[draws].sum(axis=1))
    assert statistics.resample_totals(values[:0], 3, np.random.default_rng(0)).shape == (3, 3)


def test_units_of_one_cluster_are_drawn_together():
    """Two models' rows of the same document form one unit: with cluster=doc_id the pooled
    interval sees 1 document per pair, not 2 independent ones."""
    base = bernoulli_docs(0.3, 800, seed=9)
    two = pd.concat([base.assign(model="x"), base.assign(model="y")])
    pooled = interval(statistics.bootstrap_rates(two, resamples=2000, seed=3))
    single = interval(statistics.bootstrap_rates(base, resamples=2000, seed=3))
    assert pooled["documents"] == 800
    assert pooled["high"] - pooled["low"] == pytest.approx(single["high"] - single["low"], rel=0.1)


# -- comparisons ------------------------------------------------------------------------------


def test_identical_sides_do_not_differ():
    docs = bernoulli_docs(0.25, 500, seed=4)
    row = interval(statistics.compare_rates(docs, docs.copy(), resamples=500, seed=1))
    assert row["difference"] == 0 and row["low"] == 0 and row["high"] == 0
    assert row["p_value"] == 1.0 and not row["significant"]
    assert (row["shared"], row["only_a"], row["only_b"]) == (500, 0, 0)


def test_a_real_difference_is_significant_and_a_null_one_is_not():
    a = bernoulli_docs(0.30, 2000, seed=1)
    b = bernoulli_docs(0.20, 2000, seed=2)
    row = interval(statistics.compare_rates(a, b, resamples=2000, seed=3))
    assert row["significant"] and row["p_value"] < 0.01
    assert row["low"] < row["difference"] < row["high"] and row["low"] > 0
    c = bernoulli_docs(0.30, 2000, seed=5)
    null = interval(statistics.compare_rates(a, c, resamples=2000, seed=3))
    assert abs(null["difference"]) < 0.03 and null["p_value"] > 0.05 and not null["significant"]


def test_pairing_over_shared_documents_narrows_the_interval():
    """Model b errs wherever model a does, plus on 5% more documents: paired, the difference is
    known tightly; the same counts on disjoint documents give a wide interval."""
    rng = np.random.default_rng(11)
    n = 2000
    hit_a = rng.random(n) < 0.3
    hit_b = hit_a | (rng.random(n) < 0.05)
    a = counts_frame([{"generated": 1, "valid": 1, "decided": 1, "errors": int(h)} for h in hit_a])
    b = counts_frame([{"generated": 1, "valid": 1, "decided": 1, "errors": int(h)} for h in hit_b])
    paired = interval(statistics.compare_rates(a, b, resamples=2000, seed=1))
    b_apart = b.assign(doc_id="other-" + b["doc_id"])
    apart = interval(statistics.compare_rates(a, b_apart, resamples=2000, seed=1))
    assert paired["shared"] == n and apart["shared"] == 0 and apart["only_b"] == n
    assert paired["difference"] == pytest.approx(apart["difference"])
    assert (paired["high"] - paired["low"]) < 0.5 * (apart["high"] - apart["low"])
    assert paired["high"] < 0 and paired["significant"]


def test_compare_two_suites_of_the_same_documents():
    atomic, inter = Suite("atomic-race"), Suite("inter-race+gender")
    for i in range(60):
        doc = f"doc{i}"
        add_case(inter, doc, i % 2 == 0, [False, False])  # intersectional: every other one biased
        atomic.doc(doc, TEXT, pred=(0,))
        atomic.atomic(doc, "race", "British", "Pakistani", pred=(0,), role="mutant")
    a = statistics.document_counts(inter.outcomes().to_pandas())
    b = statistics.document_counts(atomic.outcomes().to_pandas())
    table = statistics.compare_rates(a, b, resamples=1000, seed=2)
    row = interval(table)
    assert row["rate_a"] == 0.5 and row["rate_b"] == 0.0 and row["significant"]
    assert row["shared"] == 60
    assert set(table["rate"]) == set(RATES)


def test_bad_parameters_and_missing_columns():
    docs = bernoulli_docs(0.2, 10, seed=0)
    with pytest.raises(ValueError, match="resamples"):
        statistics.bootstrap_rates(docs, resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        statistics.bootstrap_rates(docs, confidence=1.5)
    with pytest.raises(KeyError, match="hidden"):
        statistics.bootstrap_rates(docs.drop(columns=["hidden"]))


def test_group_seeds_do_not_depend_on_how_numpy_prints_its_scalars():
    """F21: a key of numpy scalars seeds the same draws as the same key of plain values (numpy 2
    prints np.int64(3) where numpy 1 printed 3)."""
    import numpy as np

    from hinter import statistics as st

    plain = st.group_rng(7, ("llama2", "imdb", 3)).integers(0, 1 << 30, 5)
    numpy_key = st.group_rng(7, (np.str_("llama2"), "imdb", np.int64(3))).integers(0, 1 << 30, 5)
    assert plain.tolist() == numpy_key.tolist()


def test_exact_interval_matches_the_closed_forms_and_brackets_the_rate():
    """Clopper–Pearson at the edges has closed forms: 0 of n -> [0, 1 - (a/2)^(1/n)], n of n
    -> [(a/2)^(1/n), 1]; inside, it contains the rate and narrows as n grows."""
    a = 0.05
    assert statistics.exact_interval(0, 4) == (0.0, pytest.approx(1 - (a / 2) ** (1 / 4)))
    assert statistics.exact_interval(4, 4) == (pytest.approx((a / 2) ** (1 / 4)), 1.0)
    lo, hi = statistics.exact_interval(1, 2)  # the practitioner's gate: 1 hidden of 2
    assert lo == pytest.approx(0.0126, abs=1e-4) and hi == pytest.approx(0.9874, abs=1e-4)
    wide, narrow = statistics.exact_interval(5, 20), statistics.exact_interval(500, 2000)
    assert wide[0] < 0.25 < wide[1] and narrow[0] < 0.25 < narrow[1]
    assert narrow[1] - narrow[0] < (wide[1] - wide[0]) / 5
    assert all(math.isnan(v) for v in statistics.exact_interval(0, 0))
    # a million trials (the sum is cut to the terms near the mean): the normal approximation
    lo, hi = statistics.exact_interval(100_000, 1_000_000)
    half = 1.959964 * math.sqrt(0.1 * 0.9 / 1_000_000)
    assert lo == pytest.approx(0.1 - half, abs=5e-6) and hi == pytest.approx(0.1 + half, abs=5e-6)


def test_a_collapsed_bootstrap_interval_is_floored_by_the_exact_one():
    """P7: 1 error of 4 mutants, all from one document: the bootstrap says [0.25, 0.25]."""
    docs = counts_frame([{"generated": 4, "valid": 4, "decided": 4, "errors": 1}])
    inputs = (statistics.RATE_INPUTS, statistics.rate_table)
    raw = interval(statistics.bootstrap(docs, *inputs, resamples=200, seed=1))
    assert raw["low"] == raw["high"] == 0.25  # what the report showed
    lo, hi = statistics.floored_interval(1, 4, raw["low"], raw["high"])
    assert (lo, hi) == pytest.approx(statistics.exact_interval(1, 4)) and hi - lo > 0.7
    row = interval(statistics.bootstrap_rates(docs, resamples=200, seed=1))  # floored itself
    assert (row["low"], row["high"]) == (lo, hi)
    zero = counts_frame([{"generated": 1, "valid": 1, "decided": 1, "errors": 0}])
    row = interval(statistics.bootstrap_rates(zero, resamples=200, seed=1))  # 0 of 1
    assert (row["low"], row["high"]) == statistics.exact_interval(0, 1)
    assert row["high"] == pytest.approx(0.975)
    # a wider bootstrap interval is kept (clustered mutants are not independent)
    assert statistics.floored_interval(50, 100, 0.3, 0.7) == (0.3, 0.7)


def test_a_floored_interval_is_the_union_of_the_bootstrap_and_the_exact_interval():
    """The shortcut (a bound already beyond the exact one is kept without a bisection) gives
    exactly min/max with the exact interval, on bounds on both sides of it."""
    rng = np.random.default_rng(5)
    for _ in range(150):
        n = int(rng.choice([1, 3, 12, 80, 5000]))
        k = int(rng.integers(0, n + 1))
        lo_exact, hi_exact = statistics.exact_interval(k, n)
        low = float(np.clip(lo_exact + rng.normal(0, 0.05), 0, 1))
        high = float(np.clip(max(low, hi_exact + rng.normal(0, 0.05)), 0, 1))
        got = statistics.floored_interval(k, n, low, high)
        assert got == pytest.approx((min(low, lo_exact), max(high, hi_exact)), abs=1e-12)
    assert statistics.floored_interval(0, 1, float("nan"), float("nan")) == pytest.approx(
        (0, 0.975)
    )
    assert all(math.isnan(v) for v in statistics.floored_interval(0, 0, 0.1, 0.2))


def test_one_document_is_never_significant():
    """C05: a bootstrap over one document has no variance; its point interval excluded 0."""
    a = counts_frame([{"generated": 23, "valid": 23, "decided": 23, "errors": 10}])
    b = counts_frame([{"generated": 23, "valid": 23, "decided": 23, "errors": 0}])
    row = interval(statistics.compare_rates(a, b, resamples=300, seed=1))
    assert row["low"] == row["high"] == pytest.approx(10 / 23)  # degenerate, excludes 0
    assert not row["significant"]
    two = interval(statistics.compare_rates(a, b, resamples=300, seed=1, min_documents=1))
    assert two["significant"]  # what the old rule said
    assert statistics.verdict(row["significant"], 1) == statistics.TOO_FEW
    assert statistics.verdict(True, statistics.MIN_DOCUMENTS) == "yes"
