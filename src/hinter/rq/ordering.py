"""Row order of the RQ tables: keys in a given order (models and datasets as configured, the
pooled "Total"/"All" rows last), not alphabetical. One function for every table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd


def in_order(
    frame: pd.DataFrame, ranks: Mapping[str, Sequence], then: Sequence[str] = ()
) -> pd.DataFrame:
    """``frame`` sorted by the position of each ``ranks`` column's value in its sequence (in
    the mapping's order; values not listed come after the listed ones), then by the ``then``
    columns' own values; a stable sort, with a fresh index."""
    keys = {}
    for i, (column, order) in enumerate(ranks.items()):
        position = {value: j for j, value in enumerate(order)}
        keys[f"__rank{i}"] = frame[column].map(position).fillna(len(position))
    by = [*keys, *then]
    if not by or frame.empty:
        return frame.reset_index(drop=True)
    ordered = frame.assign(**keys).sort_values(by, kind="stable")
    return ordered.drop(columns=list(keys)).reset_index(drop=True)


def kinds_in_order(kinds: Sequence[str]) -> list[str]:
    """Mutant kinds as the tables show them: intersectional, atomic, then higher orders."""
    return sorted(set(kinds), key=lambda k: (k != "intersectional", k != "atomic", k))
