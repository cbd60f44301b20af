"""hinter.rq.intervals: the RQ tables' interval columns and cells, on cases with known answers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hinter import rates, statistics
from hinter.rq import intervals
from hinter.rq.intervals import Bootstrap
from hinter.statistics import COLUMNS, exact_interval

BOOT = Bootstrap(resamples=2000, seed=3)


def docs(per_doc: list[tuple[int, int]], **keys) -> pd.DataFrame:
    """Document counts from (errors, decided) per document, one valid decided mutant each."""
    rows = []
    for i, (errors, decided) in enumerate(per_doc):
        row = dict.fromkeys(COLUMNS, 0)
        row.update(generated=decided, valid=decided, decided=decided, errors=errors)
        row.update(originals=int(decided > 0), bias_inducing=int(errors > 0))
        rows.append({**keys, "doc_id": f"d{i:03d}", **row})
    return pd.DataFrame(rows)


def table_of(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The table an RQ module would build: pooled counts and rates per group."""
    return rates.add_rates(rates.pool(frame, by))[[*by, "errors", "decided", "error_rate"]]


def test_identical_documents_give_the_exact_interval_of_their_counts():
    """G7: identical documents give the bootstrap no variance (it said [25.00, 25.00]); the
    interval is widened to the exact one of 30 errors in 120 mutants."""
    frame = docs([(1, 4)] * 30, dataset="d", model="m")
    got = intervals.add_intervals(
        table_of(frame, ["dataset", "model"]), frame, ["dataset", "model"], ["error_rate"], BOOT
    )
    (row,) = got.to_dict("records")
    assert row["error_rate"] == 0.25
    assert (row["error_rate_lo"], row["error_rate_hi"]) == exact_interval(30, 120)
    assert list(got.columns) == [
        "dataset", "model", "errors", "decided", "error_rate", "error_rate_lo", "error_rate_hi"
    ]  # fmt: skip


def test_two_documents_span_the_two_extremes():
    """Doc A: 1 error of 1; doc B: 0 of 3. A resample is AA (rate 1, p 1/4), AB (1/4, p 1/2) or
    BB (0, p 1/4): the 95% percentile interval is [0, 1] around the pooled 1/4, not [1/4, 1/4]
    and not the mean of the two documents' rates."""
    frame = docs([(1, 1), (0, 3)])
    (row,) = intervals.rate_intervals(frame, [], ["error_rate"], BOOT).to_dict("records")
    assert row["error_rate"] == 0.25
    assert (row["error_rate_lo"], row["error_rate_hi"]) == (0.0, 1.0)
    assert row["documents"] == 2


def test_pooled_levels_draw_a_document_once_for_every_model():
    """Two models on the same 40 documents: the Total row resamples 40 documents (each with
    both models' mutants), the All rows pool datasets without merging their doc ids."""
    a = docs([(i % 2, 1) for i in range(40)], dataset="x", model="m1")
    b = docs([(1 - i % 2, 1) for i in range(40)], dataset="x", model="m2")
    c = docs([(0, 1)] * 10, dataset="y", model="m1")  # doc ids d000.. again, another dataset
    levels = intervals.pooled_levels(
        pd.concat([a, b, c], ignore_index=True), {"dataset": "All", "model": "Total"}
    )
    assert len(levels) == 4 * 90
    found = intervals.rate_intervals(levels, ["dataset", "model"], ["error_rate"], BOOT)
    found = found.set_index(["dataset", "model"])
    assert found.loc[("x", "Total"), "documents"] == 40
    assert found.loc[("All", "m1"), "documents"] == 50
    assert found.loc[("All", "Total"), "documents"] == 50
    # every document of x has exactly one error over the two models: the bootstrap has no
    # variance, the interval is the exact one of 40 errors in 80 mutants
    x_total = found.loc[("x", "Total")]
    assert x_total["error_rate"] == 0.5
    assert (x_total["error_rate_lo"], x_total["error_rate_hi"]) == exact_interval(40, 80)
    assert found.loc[("x", "m1"), "error_rate_lo"] < 0.5 < found.loc[("x", "m1"), "error_rate_hi"]


def test_intervals_are_seeded():
    frame = docs([(10 * (i % 3 == 0), 10) for i in range(60)])  # wider than the exact one
    one = intervals.rate_intervals(frame, [], ["error_rate"], Bootstrap(500, seed=1))
    again = intervals.rate_intervals(frame, [], ["error_rate"], Bootstrap(500, seed=1))
    other = intervals.rate_intervals(frame, [], ["error_rate"], Bootstrap(500, seed=2))
    pd.testing.assert_frame_equal(one, again)
    assert not one.equals(other)


def test_counts_that_do_not_match_the_table_are_refused():
    frame = docs([(1, 2), (0, 2)], dataset="d", model="m")
    table = table_of(frame, ["dataset", "model"]).assign(error_rate=0.9)
    with pytest.raises(ValueError, match="error_rate: the document counts do not add up"):
        intervals.add_intervals(table, frame, ["dataset", "model"], ["error_rate"], BOOT)
    with pytest.raises(ValueError, match="no interval for rate"):
        intervals.rate_intervals(frame, [], ["error_ratio"], BOOT)


def test_rows_without_documents_keep_empty_bounds():
    frame = docs([(1, 2)], dataset="d", model="m")
    table = pd.concat(
        [table_of(frame, ["dataset", "model"]),
         pd.DataFrame([{"dataset": "e", "model": "m", "errors": 0, "decided": 0}])],
        ignore_index=True,
    )  # fmt: skip
    got = intervals.add_intervals(table, frame, ["dataset", "model"], ["error_rate"], BOOT)
    assert math.isnan(got.loc[1, "error_rate_lo"])
    assert (got.loc[0, "error_rate_lo"], got.loc[0, "error_rate_hi"]) == exact_interval(1, 2)


def test_compare_finds_a_real_difference_and_no_difference():
    same = docs([(i % 4 == 0, 1) for i in range(200)], dataset="d", model="m")
    higher = docs([(i % 2 == 0, 1) for i in range(200)], dataset="d", model="m")
    keys = ["dataset", "model"]
    (none,) = intervals.compare(same, same, keys, "error_rate", BOOT).to_dict("records")
    assert none["difference"] == none["difference_lo"] == none["difference_hi"] == 0.0
    assert not none["significant"]
    (real,) = intervals.compare(higher, same, keys, "error_rate", BOOT).to_dict("records")
    assert real["difference"] == pytest.approx(0.25)
    assert 0 < real["difference_lo"] < 0.25 < real["difference_hi"] and real["significant"]
    assert real["p_value"] < 0.01
    assert intervals.difference_cell(real).endswith("]*")
    assert intervals.compare(same.iloc[:0], same, keys, "error_rate", BOOT).empty


def test_a_difference_over_too_few_documents_gets_no_verdict():
    """G7: 4 documents a side, every mutant of one side bias-inducing and none of the other:
    the interval excludes 0 but the verdict is "too few" (a table, a sentence), never "yes"."""
    n = statistics.MIN_DOCUMENTS - 1
    high, low = (
        docs([(3, 3)] * n, dataset="d", model="m"),
        docs([(0, 3)] * n, dataset="d", model="m"),
    )
    keys = ["dataset", "model"]
    found = intervals.compare(high, low, keys, "error_rate", BOOT)
    (row,) = found.to_dict("records")
    assert row["difference_lo"] > 0 and not row["significant"] and row["side_documents"] == n
    assert intervals.difference_cell(row).endswith("(too few)")
    assert intervals.verdicts(found).tolist() == [statistics.TOO_FEW]
    raw = statistics.compare_rates(high, low, resamples=200, seed=1)
    sentence = intervals.comparison_sentence("a vs b", "error_rate", raw.iloc[0])
    assert sentence.endswith(f"too few documents for a verdict (< {statistics.MIN_DOCUMENTS})")
    more = docs([(3, 3)] * (n + 1), dataset="d", model="m")
    (enough,) = intervals.compare(more, low, keys, "error_rate", BOOT).to_dict("records")
    assert not enough["significant"]  # the other side still has n documents
    both = docs([(0, 3)] * (n + 1), dataset="d", model="m")
    (judged,) = intervals.compare(more, both, keys, "error_rate", BOOT).to_dict("records")
    assert judged["significant"] and intervals.difference_cell(judged).endswith("]*")


def test_cells():
    assert intervals.cell(0.1234, 0.111, 0.136) == "12.34 [11.10, 13.60]"
    assert intervals.cell(0.5, float("nan"), 0.6) == "50.00"
    assert intervals.cell(float("nan"), 0.1, 0.2) == "–"
    assert intervals.cell(7.25, 7.0, 7.5, digits=1, scale=1) == "7.2 [7.0, 7.5]"
    row = {"difference": -0.05, "difference_lo": -0.08, "difference_hi": 0.01,
           "significant": False}  # fmt: skip
    assert intervals.difference_cell(row) == "-5.00 [-8.00, +1.00]"
    assert intervals.difference_cell({"difference": float("nan")}) == "–"
    assert intervals.within(0.1461, 0.12, 0.15) is True
    assert intervals.within(0.1461, 0.15, 0.2) is False
    assert intervals.within(0.1461, float("nan"), 0.2) is None


def test_bootstrap_settings_come_from_the_config():
    boot = Bootstrap.from_config({"statistics": {"resamples": 300, "seed": 7, "confidence": 0.9}})
    assert boot == Bootstrap(300, 7, 0.9)
    assert "90% percentile bootstrap" in boot.describe() and "B = 300" in boot.describe()
    assert "seed 7" in boot.describe()
    with pytest.raises(ValueError, match=r"statistics\.resamples"):
        Bootstrap(0)


def test_one_cell_formatter_serves_every_table_form():
    # RQ2/RQ3/groups: values already in percent, signed differences, "" when undefined
    assert intervals.cell(79.5, 78.1, 80.7, scale=1, missing="") == "79.50 [78.10, 80.70]"
    assert intervals.cell(-1.5, -2.0, -1.0, scale=1, signed=True) == "-1.50 [-2.00, -1.00]"
    assert intervals.cell(None, 1.0, 2.0, scale=1, missing="") == ""
    assert intervals.cell(pd.NA, 1.0, 2.0) == "–"
    # RQ4-RQ6: a row's percent columns
    row = {"share_pct": 12.5, "share_low_pct": 10.0, "share_high_pct": 15.0}
    assert intervals.percent_cell(row, "share") == "12.50 [10.00, 15.00]"
    assert intervals.percent_cell({"share_pct": 40.0}, "share") == "40.00"
    assert intervals.percent_cell({"share_pct": float("nan")}, "share") == "–"


def test_totals_intervals_give_percent_columns_of_any_statistic():
    frame = pd.concat([docs([(1, 2)] * 5, model="m"), docs([(0, 2)] * 5, model="n")])

    def error_rate(totals: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({"error_rate": totals["errors"] / totals["decided"]})

    out = intervals.totals_intervals(
        frame, ["errors", "decided"], error_rate, ["error_rate"], ["model"], **BOOT.keywords()
    )
    assert list(out.columns) == ["model", "errors", "decided",
                                 *intervals.percent_columns(["error_rate"])]  # fmt: skip
    assert out["error_rate_pct"].tolist() == [50.0, 0.0]
    # identical documents: the exact intervals of 5 of 10 and 0 of 10 (the bootstrap's points)
    exact = [exact_interval(5, 10), exact_interval(0, 10)]
    assert out["error_rate_low_pct"].tolist() == [100 * lo for lo, _ in exact]
    assert out["error_rate_high_pct"].tolist() == [100 * hi for _, hi in exact]
    with pytest.raises(ValueError, match="no counts for rate"):
        intervals.totals_intervals(frame, ["errors"], error_rate, ["error_ratio"], ["model"])
    assert BOOT.keywords() == {"resamples": 2000, "seed": 3, "confidence": 0.95}
    empty = intervals.totals_intervals(
        frame.iloc[:0], ["errors", "decided"], error_rate, ["error_rate"], ["model"]
    )
    assert empty.empty and "error_rate_high_pct" in empty.columns
