"""Group-level bias (MUTAINT Table 4, Lalor et al.'s subgroup measures) on hand-made suites
whose group error rates are known, cross-checked against plain pandas and hinter.rates."""

from __future__ import annotations

import random

import pandas as pd
import pytest
from oracle_cases import TEXT, Suite

from hinter import rates
from hinter.errors import DataError
from hinter.rq.group_bias import class_families, group_rates, group_summary, mutant_classes

PAIRS = pd.DataFrame(
    [
        # pair_id, attribute, source_class, target_class
        ("r-arab", "race", "european", "arab"),
        ("r-asian", "race", "european", "asian"),
        ("r-african", "race", "european", "african"),
        ("r-minority", "race", "majority", "minority"),
        ("g-female", "gender", "male", "female"),
        ("g-male", "gender", "female", "male"),
    ],
    columns=["pair_id", "attribute", "source_class", "target_class"],
)
LABELS = [(0,), (1,)]


def atomic_suite(errors: dict[str, tuple[int, int]], model: str = "m") -> pd.DataFrame:
    """Atomic race mutants: per pair id, (bias-inducing, benign) valid mutants; plus a
    discarded bias-inducing mutant per pair (never counted in an error rate)."""
    suite = Suite("atomic-race")
    n = 0
    for pair, (biased, benign) in errors.items():
        for outcome in [True] * biased + [False] * benign + [None]:
            doc = f"{model}-{n}"
            n += 1
            suite.doc(doc, TEXT, pred=(0,))
            suite.atomic(
                doc, "race", "British", f"R{n}", pair_id=pair, role="mutant",
                valid=outcome is not None, pred=(1,) if outcome in (True, None) else (0,),
            )  # fmt: skip
    return suite.outcomes().to_pandas().assign(model=model)


def test_atomic_group_rates_flags_and_parity_measures():
    frame = atomic_suite(
        {"r-arab": (3, 1), "r-asian": (1, 3), "r-african": (0, 2), "r-minority": (2, 2)}
    )
    table = group_rates(frame, PAIRS)
    assert set(table["kind"]) == {"GAB"} and set(table["scope"]) == {"race"}
    got = table.set_index("group")
    assert got["error_rate"].to_dict() == {
        "arab": 0.75,
        "asian": 0.25,
        "african": 0.0,
        "minority": 0.5,
    }
    assert got["decided"].to_dict() == {"arab": 4, "asian": 4, "african": 2, "minority": 4}
    mean = (0.75 + 0.25 + 0.0 + 0.5) / 4  # the unweighted mean of the group rates
    assert got["scope_mean"].eq(mean).all()
    assert got["above_mean"].to_dict() == {
        "arab": True,
        "asian": False,
        "african": False,
        "minority": True,
    }
    pooled = 6 / 14  # the scope's pooled error rate
    assert got["scope_rate"].eq(pooled).all()
    assert got.loc["arab", "parity_gap"] == pytest.approx(4 / 14 * abs(0.75 - pooled))
    assert got["fairness_violation"].tolist() == pytest.approx(
        [pooled] * 4
    )  # |0 - pooled| is the max
    assert got["race"].to_dict() == {g: g for g in got.index}


def test_target_or_source_side():
    frame = atomic_suite({"r-arab": (1, 0), "r-minority": (0, 1)})
    by_source = group_rates(frame, PAIRS, side="source").set_index("group")
    assert by_source["error_rate"].to_dict() == {"european": 1.0, "majority": 0.0}
    with pytest.raises(ValueError, match="side"):
        group_rates(frame, PAIRS, side="middle")


def random_intersectional(seed: int, model: str) -> pd.DataFrame:
    rng = random.Random(seed)
    suite = Suite("inter-race+gender")
    race_pairs = ["r-arab", "r-asian", "r-minority"]
    for d in range(150):
        doc = f"{model}-{d}"
        suite.doc(doc, TEXT, pred=(0,))
        race, gender = rng.choice(race_pairs), rng.choice(["g-female", "g-male"])
        parents = [
            suite.atomic(doc, "race", "British", f"R{d}", pair_id=race, pred=rng.choice(LABELS)),
            suite.atomic(doc, "gender", "people", f"G{d}", pair_id=gender, pred=rng.choice(LABELS)),
        ]
        status = rng.choice(["ok", "ok", "ok", "error"])
        suite.inter(
            doc, parents, valid=rng.random() < 0.7, status=status,
            pred=None if status == "error" else rng.choice(LABELS),
        )  # fmt: skip
    return suite.outcomes().to_pandas().assign(model=model)


def test_intersectional_groups_equal_plain_pandas_and_rates_counts():
    frame = pd.concat([random_intersectional(1, "bert"), random_intersectional(2, "llama")])
    table = group_rates(frame, PAIRS, by=["model"])
    assert set(table["kind"]) == {"GIB"} and set(table["scope"]) == {"race × gender"}
    assert len(table) == 2 * 3 * 2  # models x race targets x gender targets
    classes = mutant_classes(frame.reset_index(drop=True), PAIRS)
    plain = frame.reset_index(drop=True).join(classes)
    decided = plain[plain["valid"] & plain["biased"].notna()]
    want = decided.groupby(["model", "race", "gender"])["biased"].mean()
    via_rates = rates.add_rates(rates.counts(plain, by=["model", "race", "gender"]))
    for row in table.itertuples():
        assert row.group == f"{row.race} × {row.gender}"
        assert row.error_rate == pytest.approx(want[(row.model, row.race, row.gender)])
        match = via_rates[
            (via_rates["model"] == row.model) & (via_rates["race"] == row.race)
            & (via_rates["gender"] == row.gender)
        ]  # fmt: skip
        assert row.error_rate == pytest.approx(match["error_rate"].iloc[0])
        assert row.hidden == match["hidden"].iloc[0]
    for model, part in table.groupby("model"):
        assert part["scope_mean"].tolist() == pytest.approx([part["error_rate"].mean()] * len(part))
        assert (part["above_mean"] == (part["error_rate"] > part["error_rate"].mean())).all()
        rate = decided[decided["model"] == model]["biased"].mean()
        assert part["scope_rate"].tolist() == pytest.approx([rate] * len(part))


def test_pairing_families_split_race_as_table_4():
    families = class_families(PAIRS, "pairing")
    fine = "race[african/arab/asian/european]"
    assert families[("race", "arab")] == fine and families[("race", "european")] == fine
    assert families[("race", "minority")] == "race[majority/minority]"
    assert families[("gender", "male")] == "gender[female/male]"
    frame = atomic_suite({"r-arab": (1, 1), "r-minority": (1, 0)})
    table = group_rates(frame, PAIRS, families="pairing")
    assert sorted(table["scope"]) == [fine, "race[majority/minority]"]
    assert table["above_mean"].sum() == 0  # one group per scope: never above its own mean
    with pytest.raises(ValueError, match="families"):
        class_families(PAIRS, "colour")


def test_summary_counts_biased_groups_per_scope_like_table_4():
    atomic = atomic_suite({"r-arab": (3, 1), "r-asian": (1, 3), "r-african": (0, 2)})
    inter = random_intersectional(3, "m")
    table = group_rates(pd.concat([atomic, inter]), PAIRS)
    summary = group_summary(table, examples=2)
    assert summary["scope"].tolist() == ["race", "All (GAB)", "race × gender", "All (GIB)"]
    race = summary.iloc[0]
    assert (race["biased_groups"], race["groups"], race["examples"]) == (1, 3, "arab")
    gib = table[table["kind"] == "GIB"]
    assert summary.iloc[2]["biased_groups"] == gib["above_mean"].sum()
    assert summary.iloc[2]["groups"] == len(gib) == 6
    assert len(summary.iloc[2]["examples"].split(", ")) == min(2, gib["above_mean"].sum())


def test_unknown_pair_id_is_a_one_line_error():
    frame = atomic_suite({"r-unknown": (1, 0)})
    with pytest.raises(DataError, match="pair id r-unknown"):
        group_rates(frame, PAIRS)
