"""Which dictionary pairs caused the flips of a run: one row per pair (review 2026-11-28 P22).

A reviewer who meets ``women → mass shooting victims`` among the hidden-bias evidence wants to
know how much of the result rests on that pair, and to drop it. :func:`pair_flips` counts, per
pair, the valid mutants that used it, how many of them flipped the prediction (biased) and how
many were hidden intersectional biases; :func:`table` reads a finished ``hinter test`` folder.
A mutant of several pairs counts once for each. Pairs are dropped by copying the dictionary
folder, deleting their rows and passing ``--dictionary`` (README "Testing your own model").
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["attribute", "source", "target", "valid", "biased", "biased_pct", "hidden", "pair_id"]


def pair_flips(outcomes: pd.DataFrame, pairs: pd.DataFrame, top: int | None = 20) -> pd.DataFrame:
    """Valid, biased and hidden mutants per pair, the pairs behind most flips first.

    ``outcomes``: the oracle's rows (``hinter.tables.OUTCOMES``: ``pair_ids``, ``valid``,
    ``biased``, ``hidden``); ``pairs``: the compiled dictionary (``pair_id``, ``attribute``,
    ``source``, ``target``). Only pairs of at least one valid mutant are listed.
    """
    valid = outcomes[outcomes["valid"].fillna(False).astype(bool)]
    if valid.empty:
        return pd.DataFrame(columns=COLUMNS)
    used = valid[["pair_ids", "biased", "hidden"]].explode("pair_ids")
    used = used.dropna(subset=["pair_ids"]).rename(columns={"pair_ids": "pair_id"})
    used["biased"] = used["biased"].fillna(False).astype(bool)
    used["hidden"] = used["hidden"].fillna(False).astype(bool)
    counts = used.groupby("pair_id").agg(
        valid=("biased", "size"), biased=("biased", "sum"), hidden=("hidden", "sum")
    )
    names = pairs.set_index("pair_id")[["attribute", "source", "target"]]
    frame = counts.join(names, how="left").reset_index()
    frame["biased_pct"] = 100.0 * frame["biased"] / frame["valid"]
    frame = frame.sort_values(
        ["biased", "hidden", "valid", "attribute", "source", "target"],
        ascending=[False, False, False, True, True, True],
        kind="stable",
    )
    frame = frame[COLUMNS].reset_index(drop=True)
    return frame if top is None else frame.head(top)


def table(out: str | Path, model: str | None = None, top: int | None = 20) -> pd.DataFrame:
    """:func:`pair_flips` of a finished ``hinter test`` output folder (its first model, or
    ``model``), from its outcome files and compiled dictionary."""
    from hinter.inputs import DATASET
    from hinter.layout import RunLayout

    layout = RunLayout(str(out))
    models = Path(layout.outcomes("_", DATASET, "_")).parents[3]  # outcomes/<model>/<variant>/…
    name = model or sorted(p.name for p in models.iterdir() if p.is_dir())[0]
    folder = Path(layout.outcomes(name, DATASET, "_")).parent
    columns = ["pair_ids", "valid", "biased", "hidden"]
    parts = [pd.read_parquet(f, columns=columns) for f in sorted(folder.glob("*.parquet"))]
    outcomes = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
    pairs = pd.read_parquet(layout.dictionary("pairs.parquet"))
    return pair_flips(outcomes, pairs, top)
