"""Rates from outcome rows: a plain-pandas cross-check, threshold re-decisions equal to the
oracle's own, pooling, the truth table, distinct originals, correctness and the artifact's
buggy hidden condition."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from oracle_cases import ATTRIBUTE_WORDS, MISSING, TEXT, Suite, add_case

from hinter import rates
from hinter.oracle import PARENT_DISCARDED, confident, suite_attributes

SUITES = ("atomic-race", "inter-race+gender", "inter-body+race", "inter-body+gender+race")


def random_suite(name: str, seed: int, n_docs: int = 40) -> Suite:
    """A suite with random validity, outcomes, model errors, missing predictions, confidences."""
    rng = random.Random(seed)
    suite = Suite(name)
    attrs = suite_attributes(name)

    def prediction(valid):
        roll = rng.random()
        if roll < 0.05:
            return {"pred": None, "status": "error", "conf": None}
        if roll < 0.12 and not valid:
            return {"pred": MISSING}
        if roll < 0.17:
            return {"pred": None, "status": "skipped_identical", "conf": None}
        labels = rng.choice([(0,), (1,), (0, 1), ()])
        return {"pred": labels, "conf": round(rng.random(), 3)}

    for d in range(n_docs):
        doc = f"doc{seed}-{d}"
        suite.doc(
            doc,
            TEXT,
            gold=rng.choice([(0,), (1,), (0, 1), None]),
            pred=rng.choice([(0,), (1,)]),
            conf=round(rng.random(), 3),
        )
        if len(attrs) == 1:
            valid = rng.random() < 0.6
            suite.atomic(
                doc,
                attrs[0],
                *ATTRIBUTE_WORDS[attrs[0]],
                valid=valid,
                role="mutant",
                **prediction(valid),
            )
            continue
        parents = []
        for a in attrs:
            valid = rng.random() < 0.8
            parents.append(
                suite.atomic(doc, a, *ATTRIBUTE_WORDS[a], valid=valid, **prediction(valid))
            )
        valid = rng.random() < 0.7
        rng.shuffle(parents)
        suite.inter(doc, parents, valid=valid, **prediction(valid))
    return suite


def world(threshold: float = 0.0, seed: int = 0) -> pd.DataFrame:
    """Outcome rows of several suites, models and datasets, with model/dataset columns."""
    frames = []
    for m, model in enumerate(("bert", "llama")):
        for d, dataset in enumerate(("imdb", "scotus")):
            for s, name in enumerate(SUITES):
                suite = random_suite(name, seed * 1000 + m * 100 + d * 10 + s)
                frame = suite.outcomes(threshold=threshold).to_pandas()
                frame.insert(0, "dataset", dataset)
                frame.insert(0, "model", model)
                frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def plain_rates(frame: pd.DataFrame) -> dict[str, float]:
    """The docs/design.md §2 definitions written row by row, independently of hinter.rates."""
    n_valid = n_errors = n_generated = n_base = n_hidden = n_fp = 0
    for row in frame.itertuples(index=False):
        n_generated += 1
        if row.valid:
            n_valid += row.biased is not None and not _na(row.biased)
            n_errors += row.biased is True
        else:
            n_fp += row.biased is True
        if row.order >= 2 and row.valid and row.biased is True and row.parents_valid is True:
            parents = list(row.parent_biased)
            if all(p is not None for p in parents):
                n_base += 1
                n_hidden += not any(parents)
    valid_all = int(frame["valid"].sum())
    return {
        "error_rate": n_errors / n_valid if n_valid else math.nan,
        "hidden_rate": n_hidden / n_base if n_base else math.nan,
        "valid_share": valid_all / n_generated,
        "false_positives": n_fp,
        "errors": n_errors,
        "hidden": n_hidden,
    }


def _na(value) -> bool:
    return value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rates_equal_a_plain_pandas_recomputation(seed):
    frame = world(seed=seed)
    per_group = rates.add_rates(rates.counts(frame, by=["model", "dataset"]))
    for (model, dataset), part in frame.groupby(["model", "dataset"]):
        got = per_group[(per_group["model"] == model) & (per_group["dataset"] == dataset)].iloc[0]
        want = plain_rates(part)
        for key in ("error_rate", "hidden_rate", "valid_share"):
            assert _same(got[key], want[key]), (model, dataset, key)
        for key in ("false_positives", "errors", "hidden"):
            assert got[key] == want[key]
    pooled = rates.add_rates(rates.pool(per_group)).iloc[0]
    want = plain_rates(frame)
    assert _same(pooled["error_rate"], want["error_rate"])
    assert _same(pooled["hidden_rate"], want["hidden_rate"])
    assert pooled["generated"] == len(frame)
    assert pooled["hidden"] == int(frame["hidden"].fillna(False).astype(bool).sum())


@pytest.mark.parametrize("threshold", [0.0, 0.2, 0.5, 0.731, 0.9, 1.0])
def test_threshold_re_decision_equals_the_oracle_at_that_threshold(threshold):
    stored = world(threshold=0.0, seed=3)
    direct = world(threshold=threshold, seed=3)
    again = rates.verdicts(stored, threshold=threshold, rule=rates.BENIGN)
    as_stored = rates.verdicts(direct)
    assert (again["biased"] == direct["biased"].fillna(False).astype(bool)).all()
    assert (again["hidden"] == direct["hidden"].fillna(False).astype(bool)).all()
    assert again["pattern"].tolist() == direct["pattern"].tolist()
    for column in ("biased", "hidden", "pattern", "hidden_artifact"):
        assert again[column].tolist() == as_stored[column].tolist()
    by = ["model", "suite"]
    pd.testing.assert_frame_equal(
        rates.counts(stored, by, threshold, rates.BENIGN), rates.counts(direct, by)
    )


def test_a_stored_confidence_equal_to_the_threshold_clears_it():
    """Confidences are float32 in the tables: 0.9 is stored as 0.8999999762 and must still
    clear a threshold of 0.9, in the oracle and in the vectorised re-decision alike."""
    stored = np.array([0.9, 0.8999, np.nan], dtype=np.float32)
    for column in (stored, stored.astype(np.float64)):  # as read, or widened by a merge
        assert confident(column, 0.9).tolist() == [True, False, False]
    assert rates.confident is confident  # one rule for the oracle and the re-decision


@pytest.mark.parametrize("threshold", [0.0, 0.5, 0.9])
def test_accuracy_counts_equal_a_plain_pandas_recomputation(threshold):
    frame = world(seed=6)
    got = rates.accuracy_counts(frame, by=["model"], threshold=threshold).set_index("model")
    for model, part in frame.groupby("model"):
        originals = part.dropna(subset=["correct_original"]).drop_duplicates("doc_id")
        mutants = part[part["valid"].fillna(False).astype(bool)].dropna(subset=["correct_mutant"])
        for name, rows, conf, correct in (
            ("originals", originals, "confidence_original", "correct_original"),
            ("mutants", mutants, "confidence", "correct_mutant"),
        ):
            kept = rows[[bool(c >= np.float32(threshold)) or threshold == 0 for c in rows[conf]]]
            assert got.loc[model, name] == len(rows)
            assert got.loc[model, f"{name}_kept"] == len(kept)
            assert got.loc[model, f"{name}_right"] == int((kept[correct] == "right").sum())
    accuracy = rates.add_accuracy_rates(got)
    assert ((accuracy["original_accuracy"].dropna() >= 0) & (accuracy["original_kept"] <= 1)).all()


def test_stored_verdicts_are_reproduced():
    frame = world(seed=4)
    v = rates.verdicts(frame)
    assert v["pattern"].tolist() == frame["pattern"].tolist()
    assert (v["hidden"] == frame["hidden"].fillna(False).astype(bool)).all()


def test_higher_thresholds_never_add_errors():
    frame = world(seed=5)

    def threshold_curve(rule):
        parts = [rates.counts(frame, threshold=t, rule=rule) for t in (0.0, 0.25, 0.5, 0.75, 1.0)]
        return pd.concat(parts, ignore_index=True)

    curve = threshold_curve(rates.BENIGN)
    assert list(curve["errors"]) == sorted(curve["errors"], reverse=True)
    assert (curve["decided"] == curve["decided"].iloc[0]).all()  # the denominator stays
    # excluding the pairs below the threshold shrinks the denominator instead
    excluded = threshold_curve(rates.EXCLUDE)
    assert list(excluded["errors"]) == list(curve["errors"])
    assert list(excluded["decided"]) == sorted(excluded["decided"], reverse=True)
    assert excluded["decided"].iloc[-1] < excluded["decided"].iloc[0]


def test_pooling_sums_counts_instead_of_averaging_rates():
    suite = Suite("atomic-race")
    for i in range(4):  # group a: 1 error in 4
        suite.doc(f"a{i}", TEXT, pred=(0,))
        suite.atomic(
            f"a{i}", "race", "British", "Pakistani", pred=(1,) if i == 0 else (0,), role="mutant"
        )
    a = suite.outcomes().to_pandas().assign(model="a")
    suite = Suite("atomic-race")
    suite.doc("b0", TEXT, pred=(0,))
    suite.atomic("b0", "race", "British", "Pakistani", pred=(1,), role="mutant")  # group b: 1 in 1
    b = suite.outcomes().to_pandas().assign(model="b")
    per_model = rates.add_rates(rates.counts(pd.concat([a, b]), by=["model"]))
    assert list(per_model["error_rate"]) == [0.25, 1.0]
    pooled = rates.add_rates(rates.pool(per_model)).iloc[0]
    assert pooled["error_rate"] == pytest.approx(2 / 5)  # not (0.25 + 1) / 2


def test_artifact_condition_differs_from_hidden_on_a_crafted_case():
    suite = Suite("inter-race+gender")
    hidden_mid = add_case(suite, "d1", True, [False, False])  # E,B,B: hidden
    artifact_mid = add_case(suite, "d2", True, [False, True])  # E,B,E: the artifact's "hidden"
    frame = suite.outcomes().to_pandas().set_index("mutant_id")
    correct = rates.hidden(frame)
    buggy = rates.hidden_as_in_artifact(frame)
    assert correct[hidden_mid] and not correct[artifact_mid]
    assert buggy[artifact_mid] and not buggy[hidden_mid]
    c = rates.add_rates(rates.counts(frame)).iloc[0]
    assert (c["hidden"], c["hidden_artifact"], c["hidden_base"]) == (1, 1, 2)


def test_truth_table_lists_every_cell_with_zeros():
    suite = Suite("inter-race+gender")
    add_case(suite, "d1", True, [False, False])
    add_case(suite, "d2", True, [False, False])
    add_case(suite, "d3", False, [True, False])
    add_case(suite, "d4", True, [False, False], parents_valid=[True, False])
    add_case(suite, "d5", True, [False, False], valid=False)  # not in the table
    table = rates.truth_table(suite.outcomes().to_pandas().assign(model="m"), by=["model"])
    got = dict(zip(table["pattern"], table["count"], strict=True))
    assert len(got) == 9
    assert got["E,B,B"] == 2 and got["B,E,B"] == 1 and got[PARENT_DISCARDED] == 1
    assert sum(got.values()) == 4
    three = Suite("inter-body+gender+race")
    add_case(three, "d1", True, [False, False, False])
    assert len(rates.truth_table(three.outcomes())) == 17


def test_distinct_originals_combine_suites_per_document():
    one, two = Suite("inter-race+gender"), Suite("inter-body+race")
    add_case(one, "d1", True, [False, False])
    add_case(one, "d2", False, [False, False])
    add_case(two, "d1", True, [True, True])  # d1 again: counts once
    add_case(two, "d2", False, [False, False])
    add_case(two, "d3", True, [False, False], valid=False)  # no valid mutant: not an original here
    flags = rates.combine_flags([rates.document_flags(s.outcomes()) for s in (one, two)])
    got = rates.distinct_originals(flags).iloc[0]
    assert (got["originals"], got["bias_inducing"]) == (2, 1)
    assert got["share"] == pytest.approx(0.5)


def test_correctness_counts_one_per_bias_error():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, gold=(0,), pred=(0,))
    suite.atomic("d1", "race", "British", "Pakistani", pred=(1,), role="mutant")
    suite.atomic("d1", "race", "people", "Welsh people", pred=(), role="mutant", pair_id="race:x")
    suite.doc("d2", TEXT, gold=None, pred=(1,))
    suite.atomic("d2", "race", "British", "Pakistani", pred=(0,), role="mutant")
    suite.doc("d3", TEXT, gold=(0,), pred=(0,))
    suite.atomic("d3", "race", "British", "Pakistani", pred=(0,), role="mutant")  # benign
    table = rates.correctness(suite.outcomes())
    got = {(r.input, r.outcome): r.count for r in table.itertuples()}
    assert got == {
        ("original", "right"): 2,
        ("original", "wrong"): 0,
        ("original", "no_answer"): 0,
        ("original", "unknown"): 1,
        ("mutant", "right"): 0,
        ("mutant", "wrong"): 1,
        ("mutant", "no_answer"): 1,
        ("mutant", "unknown"): 1,
    }
    hidden_only = rates.correctness(suite.outcomes(), population="hidden")
    assert hidden_only["count"].sum() == 0


def test_undecided_mutants_are_in_no_denominator():
    suite = Suite("inter-race+gender")
    add_case(suite, "d1", None, [False, False])
    add_case(suite, "d2", True, [False, False])
    add_case(suite, "d3", True, [None, False])
    c = rates.add_rates(rates.counts(suite.outcomes())).iloc[0]
    assert (c["valid"], c["decided"], c["undecided"], c["errors"]) == (3, 2, 1, 2)
    assert (c["hidden_base"], c["hidden"]) == (1, 1)
    assert c["error_rate"] == 1.0 and c["hidden_rate"] == 1.0


def test_empty_denominators_give_nan_and_unknown_groups_fail():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    suite.atomic("d1", "race", "British", "Pakistani", valid=False, pred=MISSING, role="mutant")
    c = rates.add_rates(rates.counts(suite.outcomes())).iloc[0]
    assert np.isnan(c["error_rate"]) and np.isnan(c["hidden_rate"]) and c["valid_share"] == 0
    assert math.isnan(rates.rate(1, 0)) and rates.rate(1, 4) == 0.25
    with pytest.raises(KeyError, match="model"):
        rates.counts(suite.outcomes(), by=["model"])


@pytest.mark.parametrize("threshold", [None, 0.5])
def test_collect_decides_each_outcome_file_once(tmp_path, monkeypatch, threshold):
    """The RQ tables take seven counts of an intersectional file: its rows are decided once
    (rates.verdicts), and every count equals the one that decides the rows itself."""
    import pyarrow.parquet as pq

    from hinter.rq.outcomes import (
        RATE_COLUMNS,
        THRESHOLD_COLUMNS,
        OutcomeFile,
        collect,
        read_outcomes,
    )

    files = []
    for s, name in enumerate(SUITES[:3]):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(random_suite(name, seed=40 + s).outcomes(threshold=0.3), path)
        files.append(OutcomeFile("m", "imdb", name, path))
    decide, calls = rates.verdicts, []
    monkeypatch.setattr(rates, "verdicts", lambda *a, **k: calls.append(1) or decide(*a, **k))
    got = collect(files, threshold=threshold)
    assert len(calls) == len(files)
    monkeypatch.setattr(rates, "verdicts", decide)
    frames = [read_outcomes(f, RATE_COLUMNS + THRESHOLD_COLUMNS) for f in files]
    key = ["model", "dataset", "suite", "order"]
    expected = pd.concat([rates.counts(f, key, threshold) for f in frames], ignore_index=True)
    pd.testing.assert_frame_equal(got.counts, expected)
    by = ["model", "dataset", "suite"]
    truth = pd.concat([rates.truth_table(f, by, threshold) for f in frames[1:]], ignore_index=True)
    pd.testing.assert_frame_equal(got.truth, truth)
    with pytest.raises(ValueError, match="not those of these outcome rows"):
        rates.counts(frames[0], key, given=rates.verdicts(frames[0].iloc[1:]))


@pytest.mark.parametrize("seed", [0, 1])
def test_skipped_identical_counts_the_decided_mutants_the_model_saw_unchanged(seed):
    """Beside every rate: the decided mutants whose prediction was ``skipped_identical`` (the
    model read the original's text), recounted from the suites' own predictions and validity;
    they stay in the error rate's denominator as benign."""
    planted = 0
    for name in SUITES:
        suite = random_suite(name, seed)
        status = {p["text_id"]: p["status"] for p in suite.predictions}
        valid = {v["mutant_id"]: v["valid"] for v in suite.validity}
        originals = {
            p["text_id"]: p["status"] for p in suite.predictions if p["kind"] == "original"
        }
        want = sum(
            1
            for m in suite.mutants
            if m["role"] == "mutant" and valid[m["mutant_id"]]
            and status.get(m["mutant_id"]) == "skipped_identical"
            and originals[m["doc_id"]] != "error"
        )  # fmt: skip
        frame = suite.outcomes()
        got = rates.counts(frame).iloc[0]
        assert got["skipped_identical"] == want, name
        assert frame["skipped_identical"].to_pylist().count(True) >= want
        assert got["skipped_identical"] <= got["decided"] - got["errors"]
        planted += want
    assert planted > 0  # the random suites do plant skipped mutants


def test_rq1s_rendered_suite_table_shows_each_planted_unchanged_count(tmp_path):
    """The rendered per-suite Markdown of RQ1, on a run whose suites plant skipped_identical
    predictions: each row's "Unchanged in window", "Decided" and "Errors" cells equal the
    recount from that suite's own predictions, validity and outcomes."""
    from rq_runs import Run

    from hinter.rq import rq1

    run, want = Run(tmp_path), {}
    for name in SUITES:
        suite = random_suite(name, 7)
        status = {p["text_id"]: p["status"] for p in suite.predictions}
        valid = {v["mutant_id"]: v["valid"] for v in suite.validity}
        error_docs = {p["text_id"] for p in suite.predictions
                      if p["kind"] == "original" and p["status"] == "error"}  # fmt: skip
        frame = suite.outcomes().to_pandas()
        decided = frame[frame["valid"] & frame["biased"].notna()]
        want[name] = (
            sum(1 for m in suite.mutants if m["role"] == "mutant" and valid[m["mutant_id"]]
                and status.get(m["mutant_id"]) == "skipped_identical"
                and m["doc_id"] not in error_docs),
            len(decided), int(decided["biased"].astype(bool).sum()),
        )  # fmt: skip
        run.add("m", "imdb", name, [suite])
    markdown = rq1.rates_by_suite(rq1.collect(run.outcome_files)).markdown
    lines = [line for line in markdown.splitlines() if line.startswith("| m |")]
    header = next(line for line in markdown.splitlines() if line.startswith("| Model |"))
    names = [c.strip() for c in header.strip("|").split("|")]
    assert len(lines) == len(SUITES)
    for line in lines:
        row = dict(zip(names, (c.strip() for c in line.strip("|").split("|")), strict=True))
        skipped, n_decided, errors = want[row["Suite"]]
        assert int(row["Unchanged in window"]) == skipped, row
        assert (int(row["Decided"]), int(row["Errors"])) == (n_decided, errors), row
    assert sum(w[0] for w in want.values()) > 0  # the run does plant unchanged mutants
