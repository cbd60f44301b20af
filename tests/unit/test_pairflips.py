"""Which dictionary pairs caused the flips (review 2026-11-28 P22), on planted outcomes."""

from __future__ import annotations

import pandas as pd

from hinter.pairflips import pair_flips

PAIRS = pd.DataFrame(
    {
        "pair_id": ["p1", "p2", "p3"],
        "attribute": ["gender", "race", "gender"],
        "source": ["women", "Czech", "he"],
        "target": ["mass shooting victims", "Oriental", "she"],
    }
)


def test_pairs_are_ranked_by_the_flips_of_their_valid_mutants():
    outcomes = pd.DataFrame(
        {
            "pair_ids": [["p1"], ["p1", "p2"], ["p1"], ["p3"], ["p3"], ["p2"]],
            "valid": [True, True, True, True, True, False],  # the last is discarded: not counted
            "biased": [True, True, False, False, False, True],
            "hidden": [False, True, False, False, False, True],
        }
    )
    table = pair_flips(outcomes, PAIRS)
    assert table["source"].tolist() == ["women", "Czech", "he"]
    women = table.iloc[0]
    assert (women["valid"], women["biased"], women["hidden"]) == (3, 2, 1)
    assert round(women["biased_pct"], 2) == 66.67
    czech = table.iloc[1]  # one valid mutant (of two pairs), biased and hidden
    assert (czech["valid"], czech["biased"], czech["hidden"]) == (1, 1, 1)
    assert table.iloc[2]["biased"] == 0
    assert pair_flips(outcomes, PAIRS, top=1)["source"].tolist() == ["women"]
    assert pair_flips(outcomes.assign(valid=False), PAIRS).empty
