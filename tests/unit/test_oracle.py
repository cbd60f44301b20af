"""The metamorphic oracle on hand-built suites: every truth-table cell, hidden bias, parents,
label sets, thresholds, missing or failed predictions, correctness, and the file stage."""

from __future__ import annotations

from itertools import product

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from oracle_cases import MISSING, TEXT, Suite, add_case
from rq_runs import write_shards

from hinter import io, oracle, tables
from hinter.errors import DataError


def rows(table: pa.Table) -> dict[str, dict]:
    return {r["mutant_id"]: r for r in table.to_pylist()}


@pytest.mark.parametrize("cells", list(product([True, False], repeat=3)))
def test_every_cell_of_the_order_2_truth_table(cells):
    suite = Suite("inter-race+gender")
    mid = add_case(suite, "d1", cells[0], list(cells[1:]))
    row = rows(suite.outcomes())[mid]
    expected = ",".join("E" if c else "B" for c in cells)
    assert row["pattern"] == expected
    assert row["hidden"] is (expected == "E,B,B")
    assert row["biased"] is cells[0]
    assert row["parent_biased"] == list(cells[1:])
    assert row["parents_valid"] is True


@pytest.mark.parametrize("cells", list(product([True, False], repeat=4)))
def test_every_cell_of_the_order_3_truth_table(cells):
    suite = Suite("inter-body+gender+race")
    mid = add_case(suite, "d1", cells[0], list(cells[1:]))
    row = rows(suite.outcomes())[mid]
    assert row["pattern"] == ",".join("E" if c else "B" for c in cells)
    assert row["hidden"] is (cells == (True, False, False, False))


def test_patterns_enumerate_every_cell_once():
    assert oracle.patterns(2) == [
        "E,E,E",
        "E,E,B",
        "E,B,E",
        "E,B,B",
        "B,E,E",
        "B,E,B",
        "B,B,E",
        "B,B,B",
    ]
    assert len(set(oracle.patterns(3))) == 16


def test_parents_follow_the_suite_name_order_whatever_the_listed_order():
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT)
    gender = suite.atomic("d1", "gender", "people", "trans women", pred=(1,))
    race = suite.atomic("d1", "race", "British", "Pakistani", pred=(0,))
    mid = suite.inter("d1", [gender, race], pred=(1,))
    row = rows(suite.outcomes())[mid]
    assert row["parent_ids"] == [race, gender]
    assert row["parent_biased"] == [False, True]
    assert row["pattern"] == "E,B,E"
    assert row["hidden"] is False
    # body+race: body first, as in the suite name
    assert oracle.suite_attributes("inter-body+race") == ("body", "race")
    assert oracle.suite_attributes("inter-race+gender") == ("race", "gender")


def test_parents_of_other_pairs_of_the_same_attribute_are_ignored():
    """Only parent_ids count: a biased atomic mutant of another race pair in the same file (and
    listed first, where a per-(text, attribute) cache would pick it up) changes nothing."""
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT + " The Irish people came too.")
    other_race = suite.atomic("d1", "race", "Irish", "Nigerian", pred=(1,))
    race = suite.atomic("d1", "race", "British", "Pakistani", pred=(0,))
    gender = suite.atomic("d1", "gender", "people", "trans women", pred=(0,))
    hidden_mid = suite.inter("d1", [race, gender], pred=(1,))
    other_mid = suite.inter("d1", [other_race, gender], pred=(1,))
    out = rows(suite.outcomes())
    assert out[hidden_mid]["hidden"] is True
    assert out[hidden_mid]["pattern"] == "E,B,B"
    assert out[other_mid]["hidden"] is False
    assert out[other_mid]["pattern"] == "E,E,B"
    assert set(out) == {hidden_mid, other_mid}  # parents are not outcome rows


def test_a_parent_from_another_pair_is_rejected():
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT + " The Irish people came too.")
    other_race = suite.atomic("d1", "race", "Irish", "Nigerian")
    race = suite.atomic("d1", "race", "British", "Pakistani")
    gender = suite.atomic("d1", "gender", "people", "trans women")
    suite.inter("d1", [race, gender], parent_ids=[other_race, gender])
    with pytest.raises(DataError, match="not one of its pairs"):
        suite.outcomes()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("missing", "is not in the suite's mutants"),
        ("other_doc", "is not an atomic mutant of d1"),
        ("count", "lists 1 parents, expected 2"),
        ("same_attribute", "not one of its pairs|cover its attributes"),
    ],
)
def test_inconsistent_parents_are_one_line_errors(change, message):
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT)
    suite.doc("d2", TEXT)
    race = suite.atomic("d1", "race", "British", "Pakistani")
    gender = suite.atomic("d1", "gender", "people", "trans women")
    race2 = suite.atomic("d2", "race", "British", "Pakistani")
    race_b = suite.atomic("d1", "race", "viewers", "Welsh viewers", pair_id="race:other")
    parent_ids = {
        "missing": [race, "0" * 20],
        "other_doc": [race2, gender],
        "count": [race],
        "same_attribute": [race, race_b],
    }[change]
    suite.inter("d1", [race, gender], parent_ids=parent_ids)
    with pytest.raises(DataError, match=message) as info:
        suite.outcomes()
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("predicted", [True, False])
def test_a_discarded_parent_leaves_the_truth_table(predicted):
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT)
    race = suite.atomic(
        "d1", "race", "British", "Pakistani", valid=False, pred=(0,) if predicted else MISSING
    )
    gender = suite.atomic("d1", "gender", "people", "trans women")
    mid = suite.inter("d1", [race, gender], pred=(1,))
    row = rows(suite.outcomes())[mid]
    assert row["pattern"] == oracle.PARENT_DISCARDED
    assert row["parents_valid"] is False
    assert row["parent_valid"] == [False, True]
    assert row["hidden"] is False
    assert row["biased"] is True
    assert row["parent_flipped"][0] is (False if predicted else None)


def test_a_discarded_mutant_is_outcome_but_not_in_the_truth_table():
    suite = Suite("inter-race+gender")
    mid = add_case(suite, "d1", True, [False, False], valid=False)
    row = rows(suite.outcomes())[mid]
    assert (row["valid"], row["biased"], row["hidden"], row["pattern"]) == (
        False,
        True,
        False,
        None,
    )
    assert row["reason"] == "pos"


@pytest.mark.parametrize(
    ("original", "mutant", "biased"),
    [
        ([1, 2], [2, 1], False),  # sets, not sequences
        ([1, 2], [1, 2, 2], False),  # duplicates do not count
        ([1, 2], [1], True),  # a lost label
        ([1], [1, 3], True),  # an extra label
        ([], [], False),  # both empty (no answer / ECtHR "none")
        ([], [0], True),
        ([0], [], True),
    ],
)
def test_bias_is_label_set_inequality(original, mutant, biased):
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, gold=(1, 2), pred=original)
    mid = suite.atomic("d1", "race", "British", "Pakistani", pred=mutant, role="mutant")
    row = rows(suite.outcomes())[mid]
    assert row["flipped"] is biased
    assert row["biased"] is biased
    assert row["hidden"] is None and row["pattern"] is None and row["parent_ids"] == []


@pytest.mark.parametrize(
    ("gold", "pred", "empty_is_answer", "expected"),
    [
        ((1, 2), (2, 1), False, "right"),  # exact set match
        ((1, 2), (1,), False, "wrong"),  # a partial match is wrong
        ((3,), (), False, "no_answer"),
        ((), (), True, "right"),  # ECtHR: the empty set is the answer "none"
        ((3,), (), True, "wrong"),
        (None, (1,), False, None),  # no gold labels
    ],
)
def test_correctness_of_original_and_mutant(gold, pred, empty_is_answer, expected):
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, gold=gold, pred=pred)
    mid = suite.atomic("d1", "race", "British", "Pakistani", pred=pred, role="mutant")
    row = rows(suite.outcomes(empty_is_answer=empty_is_answer))[mid]
    assert row["correct_original"] == expected
    assert row["correct_mutant"] == expected


def test_confidence_threshold_counts_only_confident_flips():
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT, pred=(0,), conf=0.9)
    race = suite.atomic("d1", "race", "British", "Pakistani", pred=(1,), conf=0.55)
    gender = suite.atomic("d1", "gender", "people", "trans women", pred=(0,), conf=0.9)
    mid = suite.inter("d1", [race, gender], pred=(1,), conf=0.7)
    low = rows(suite.outcomes(threshold=0.5))[mid]
    assert (low["biased"], low["pattern"], low["hidden"]) == (True, "E,E,B", False)
    mid_t = rows(suite.outcomes(threshold=0.6))[mid]  # the race parent's flip no longer counts
    assert (mid_t["biased"], mid_t["pattern"], mid_t["hidden"]) == (True, "E,B,B", True)
    assert mid_t["flipped"] is True and mid_t["parent_flipped"] == [True, False]
    high = rows(suite.outcomes(threshold=0.8))[mid]  # nor the mutant's own
    assert (high["biased"], high["pattern"], high["hidden"]) == (False, "B,B,B", False)
    assert high["confidence"] == pytest.approx(0.7)
    assert high["confidence_original"] == pytest.approx(0.9)
    assert high["parent_confidence"] == pytest.approx([0.55, 0.9])


def test_threshold_applies_to_the_original_too():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, pred=(0,), conf=0.4)
    mid = suite.atomic("d1", "race", "British", "Pakistani", pred=(1,), conf=0.99, role="mutant")
    assert rows(suite.outcomes(threshold=0.5))[mid]["biased"] is False
    assert rows(suite.outcomes(threshold=0.4))[mid]["biased"] is True


def test_null_confidence_passes_only_a_zero_threshold():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, pred=(0,), conf=None)
    mid = suite.atomic("d1", "race", "British", "Pakistani", pred=(1,), conf=None, role="mutant")
    assert rows(suite.outcomes(threshold=0.0))[mid]["biased"] is True
    assert rows(suite.outcomes(threshold=0.01))[mid]["biased"] is False


def test_threshold_outside_the_unit_interval_is_rejected():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    with pytest.raises(DataError, match="outside"):
        suite.outcomes(threshold=1.5)


def test_missing_prediction_of_a_valid_mutant_is_an_error():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    suite.atomic("d1", "race", "British", "Pakistani", pred=MISSING, role="mutant")
    with pytest.raises(DataError, match="no prediction for valid mutant"):
        suite.outcomes()


def test_missing_prediction_of_a_valid_parent_is_an_error():
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT)
    race = suite.atomic("d1", "race", "British", "Pakistani", pred=MISSING)
    gender = suite.atomic("d1", "gender", "people", "trans women")
    suite.inter("d1", [race, gender])
    with pytest.raises(DataError, match="no prediction for valid parent"):
        suite.outcomes()


def test_missing_original_prediction_is_an_error():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, pred=MISSING)
    suite.atomic("d1", "race", "British", "Pakistani", role="mutant")
    with pytest.raises(DataError, match="no prediction for original d1"):
        suite.outcomes()


def test_discarded_mutant_without_prediction_is_not_predicted():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    mid = suite.atomic(
        "d1", "race", "British", "Pakistani", valid=False, pred=MISSING, role="mutant"
    )
    row = rows(suite.outcomes())[mid]
    assert row["status"] == "not_predicted"
    assert row["biased"] is None and row["flipped"] is None and row["correct_mutant"] is None
    assert row["correct_original"] == "right"


def test_model_errors_leave_outcomes_unknown():
    suite = Suite("inter-race+gender")
    m_error = add_case(suite, "d1", None, [False, False])
    p_error = add_case(suite, "d2", True, [None, False])
    p_error_biased = add_case(suite, "d3", True, [None, True])
    out = rows(suite.outcomes())
    assert out[m_error]["status"] == "error"
    assert (out[m_error]["biased"], out[m_error]["hidden"], out[m_error]["pattern"]) == (
        None,
        None,
        None,
    )
    assert out[p_error]["status"] == "ok"
    assert (out[p_error]["hidden"], out[p_error]["pattern"]) == (None, None)
    assert out[p_error]["parent_biased"] == [None, False]
    # a known biased parent decides "not hidden" whatever the unknown one did
    assert out[p_error_biased]["hidden"] is False


def test_an_error_on_the_original_makes_every_mutant_unknown():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, pred=None, status="error")
    mid = suite.atomic("d1", "race", "British", "Pakistani", pred=(1,), role="mutant")
    row = rows(suite.outcomes())[mid]
    assert (row["status"], row["biased"], row["correct_original"]) == ("error", None, None)
    assert row["labels_original"] is None


def test_skipped_identical_is_benign_with_the_originals_prediction():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT, gold=(1,), pred=(1,), conf=0.8)
    mid = suite.atomic(
        "d1",
        "race",
        "British",
        "Pakistani",
        pred=None,
        conf=None,
        status="skipped_identical",
        role="mutant",
    )
    row = rows(suite.outcomes(threshold=0.5))[mid]
    assert (row["flipped"], row["biased"], row["status"]) == (False, False, "ok")
    assert row["labels_mutant"] == [1]
    assert row["confidence"] == pytest.approx(0.8)
    assert row["correct_mutant"] == "right"


def test_mutant_of_an_untested_document_is_rejected():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    suite.atomic("d1", "race", "British", "Pakistani", role="mutant")
    suite.documents.clear()
    with pytest.raises(DataError, match="which is not tested"):
        suite.outcomes()


def test_missing_validity_row_is_rejected():
    suite = Suite("atomic-race")
    suite.doc("d1", TEXT)
    suite.atomic("d1", "race", "British", "Pakistani", role="mutant")
    suite.validity.clear()
    with pytest.raises(DataError, match="no validity row"):
        suite.outcomes()


def test_mutant_of_another_suite_is_rejected():
    suite = Suite("inter-race+gender")
    suite.doc("d1", TEXT)
    suite.atomic("d1", "race", "British", "Pakistani", role="mutant")
    with pytest.raises(DataError, match="not those of suite inter-race\\+gender"):
        suite.outcomes()


def test_file_stage_streams_shards_and_is_byte_identical(tmp_path):
    a, b = Suite("inter-race+gender"), Suite("inter-race+gender")
    hidden_mid = add_case(a, "d1", True, [False, False])
    other = add_case(b, "d2", True, [True, False])
    paths = write_shards(tmp_path, [a, b])
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"], "empty_label_name": None}
    out = tmp_path / "out" / "inter-race+gender.parquet"
    n = oracle.write_suite_outcomes(
        "inter-race+gender", meta=meta, output=out, threshold=0.0, **paths
    )
    assert n == 2
    table = io.read_parquet(out, tables.OUTCOMES)
    assert table["mutant_id"].to_pylist() == [hidden_mid, other]
    assert table["hidden"].to_pylist() == [True, False]
    first = out.read_bytes()
    oracle.write_suite_outcomes("inter-race+gender", meta=meta, output=out, threshold=0.0, **paths)
    assert out.read_bytes() == first
    assert pq.ParquetFile(out).metadata.num_row_groups == 2  # one per shard


def test_file_stage_writes_nothing_on_bad_input(tmp_path):
    a = Suite("atomic-race")
    a.doc("d1", TEXT)
    a.atomic("d1", "race", "British", "Pakistani", pred=MISSING, role="mutant")
    paths = write_shards(tmp_path, [a])
    out = tmp_path / "out" / "atomic-race.parquet"
    with pytest.raises(DataError, match="no prediction for valid mutant"):
        oracle.write_suite_outcomes("atomic-race", meta={}, output=out, **paths)
    assert not out.exists()
    assert list(out.parent.iterdir()) == []


def test_label_key_and_correctness_helpers():
    assert oracle.label_key([3, 1, 3]) == "1,3"
    assert oracle.label_key([]) == ""
    assert oracle.label_key(None) is None
    assert oracle.correctness("", "", empty_is_answer=False) == "no_answer"
    assert oracle.correctness("1", None, empty_is_answer=False) is None
