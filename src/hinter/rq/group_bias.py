"""Group-level bias: error rates per attribute class and per intersectional class combination.

MUTAINT (``000``, Table 4) reads its mutants as members of demographic *groups*: a mutant
that swaps ``British -> Pakistani`` speaks of the class ``arab``; one that also swaps
``man -> woman`` of ``arab x female``. A group's error rate is the share of its valid
mutants (with a known outcome) that induce a bias. A group is biased when its rate is above
the mean rate of the groups of its scope, ``O(g_k) > sum_i O(g_i) / n`` (``000`` §3): *group
atomic bias* (GAB) for classes of one attribute, *group intersectional bias* (GIB) for class
combinations. Beside it, the intersectional-fairness measures of Lalor et al. (``003`` §3.3)
with the bias-inducing outcome as the "positive" prediction: a group's statistical-parity gap
``p(g) * |rate(g) - rate(scope)|`` (``003`` eq. 2) and the scope's maximum gap
``max_g |rate(g) - rate(scope)|`` (column ``fairness_violation``). The latter is *not* Lalor's
fairness violation (``003`` eq. 3, a gap of true positive rates): no ground truth exists for
bias, so it is Lalor's FV with the bias rate in place of the TPR, i.e. the scope's maximum
statistical-parity gap.

- a mutant's class for an attribute is the ``target_class`` (or ``source_class``) of its pair
  of that attribute (``pair_ids`` of the outcomes, ``pairs.parquet`` of the dictionary);
- a *scope* is an attribute (atomic suites) or an attribute combination (intersectional);
  with ``families="pairing"`` an attribute's classes are split further into the families that
  its class pairings connect (race: fine-grained ``african ... european`` apart from coarse
  ``majority/minority/mixed``, as Table 4's R1 and R2);
- Fairlearn's :class:`~fairlearn.metrics.MetricFrame` does the grouping: it sums every count
  of :func:`hinter.rates.indicators` per group and per scope, and
  :func:`hinter.rates.add_rates` turns the sums into rates.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from fairlearn.metrics import MetricFrame

from hinter import rates, statistics
from hinter.errors import DataError

SIDES = ("target", "source")
FAMILIES = ("attribute", "pairing")
GROUP_SEPARATOR = " × "
# Counts summed per group: those hinter.rates.add_rates reads (MetricFrame's cost grows with
# groups x metrics, so only these).
_COUNTS = ("generated", "valid", "decided", "errors", "hidden_base", "hidden", "hidden_artifact")


def class_families(pairs: pd.DataFrame, families: str = "attribute") -> dict[tuple[str, str], str]:
    """(attribute, class) -> family name.

    ``attribute``: the attribute itself. ``pairing``: the classes connected by the pairs'
    (source_class, target_class) edges, named ``attribute[class/class/...]``.
    """
    if families not in FAMILIES:
        raise ValueError(f"families must be one of {', '.join(FAMILIES)}, not {families!r}")
    out: dict[tuple[str, str], str] = {}
    for attribute, part in pairs.groupby("attribute", sort=True):
        classes = sorted(set(part["source_class"]) | set(part["target_class"]))
        if families == "attribute":
            out.update({(attribute, c): attribute for c in classes})
            continue
        parent = {c: c for c in classes}

        def root(c: str, parent: dict = parent) -> str:
            while parent[c] != c:
                parent[c] = parent[parent[c]]
                c = parent[c]
            return c

        for s, t in zip(part["source_class"], part["target_class"], strict=True):
            parent[root(s)] = root(t)
        members: dict[str, list[str]] = {}
        for c in classes:
            members.setdefault(root(c), []).append(c)
        for group in members.values():
            name = f"{attribute}[{'/'.join(sorted(group))}]"
            out.update({(attribute, c): name for c in group})
    return out


def mutant_classes(
    outcomes: pd.DataFrame, pairs: pd.DataFrame, side: str = "target"
) -> pd.DataFrame:
    """One column per attribute: the class each outcome row's pair gives it (None if absent).

    Aligned with ``outcomes``' index; a pair id missing from ``pairs`` is a DataError.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    column = f"{side}_class"
    class_of = dict(zip(pairs["pair_id"], pairs[column], strict=True))
    pair_ids = pa.array(outcomes["pair_ids"], type=pa.list_(pa.string()), from_pandas=True)
    attributes = pa.array(outcomes["attributes"], type=pa.list_(pa.string()), from_pandas=True)
    if not pc.all(
        pc.equal(pc.list_value_length(pair_ids), pc.list_value_length(attributes))
    ).as_py():
        raise DataError("outcome rows whose pair_ids and attributes differ in length")
    long = pd.DataFrame(
        {
            "row": pc.list_parent_indices(pair_ids).to_numpy(zero_copy_only=False),
            "attribute": pc.list_flatten(attributes).to_numpy(zero_copy_only=False),
            "pair_id": pc.list_flatten(pair_ids).to_numpy(zero_copy_only=False),
        }
    )
    unknown = sorted(set(long["pair_id"]) - set(class_of))
    if unknown:
        raise DataError(f"pair id {unknown[0]} of the outcomes is not in the dictionary's pairs")
    long["class"] = long["pair_id"].map(class_of)
    wide = long.pivot(index="row", columns="attribute", values="class")
    wide = wide.reindex(np.arange(len(outcomes)))
    wide.index = outcomes.index
    wide.columns.name = None
    return wide.astype(object).where(wide.notna(), None)


def _total(y_true, y_pred, values) -> float:
    """A MetricFrame metric: the sum of a per-row count over the group."""
    return float(np.sum(values))


def group_rates(
    outcomes: pd.DataFrame,
    pairs: pd.DataFrame,
    by: Sequence[str] = (),
    side: str = "target",
    families: str = "attribute",
    threshold: float | None = None,
) -> pd.DataFrame:
    """Error rates of every group, with the GAB/GIB flag and the group-fairness measures.

    ``outcomes`` are rows of :data:`hinter.tables.OUTCOMES` (any mix of suites, with ``by``
    columns such as model or dataset: each ``by`` group is a separate table); ``pairs`` the
    dictionary's pairs (``pair_id``, ``attribute``, ``source_class``, ``target_class``).
    Returns one row per (``by``, scope, group) with at least one decided mutant:
    ``kind`` (GAB | GIB), ``scope``, ``attributes`` (the mutants' attributes, joined as
    ``race+gender``), ``group``, one class column per attribute (None where the scope lacks
    it), the counts ``generated, valid, decided, errors, hidden_base, hidden,
    hidden_artifact`` and ``error_rate``, ``hidden_rate`` (:func:`hinter.rates.add_rates`),
    ``scope_rate`` (the scope's pooled error rate), ``scope_mean`` (the unweighted mean of
    its groups' rates), ``above_mean`` (the GAB/GIB flag), ``parity_gap`` and the scope's
    ``fairness_violation`` (its maximum statistical-parity gap: Lalor's FV with the bias rate in
    place of the TPR).
    """
    frame = outcomes.reset_index(drop=True)
    by = list(by)
    classes = mutant_classes(frame, pairs, side)
    clash = sorted(set(by) & set(classes.columns))
    if clash:
        raise ValueError(f"grouping column {clash[0]!r} is also an attribute name")
    family_of = class_families(pairs, families)
    ind = rates.indicators(frame, threshold)[list(_COUNTS)]
    # Identical rows (same keys, same counts) are merged into one with a multiplicity: MetricFrame
    # handles every row in Python, so it gets thousands of distinct rows instead of millions.
    keys = pd.concat(
        [frame[by], frame["attributes"].map("+".join).rename("_attributes"), classes.fillna("")],
        axis=1,
    )
    compact = (
        pd.concat([keys, ind], axis=1)
        .groupby([*keys.columns, *ind.columns], sort=True, dropna=False)
        .size()
        .reset_index(name="_rows")
    )
    counts = compact[list(_COUNTS)].mul(compact["_rows"], axis=0)
    records = []
    for joined in sorted(set(compact["_attributes"]), key=lambda a: (a.count("+"), a)):
        attributes = joined.split("+")
        rows = compact.index[compact["_attributes"] == joined]
        features = compact.loc[rows, attributes]
        scope_family = pd.Series(
            [
                tuple(family_of[(a, c)] for a, c in zip(attributes, row, strict=True))
                for row in features.itertuples(index=False, name=None)
            ],
            index=features.index,
        )
        for family, part in features.groupby(scope_family, sort=True):
            sel = part.index
            records.append(_scope_table(compact.loc[sel], counts.loc[sel], part, by, family))
    columns = _columns(by, sorted(set(classes.columns)))
    if not records:
        return pd.DataFrame(columns=columns)
    out = pd.concat(records, ignore_index=True)
    for attribute in sorted(set(classes.columns)):
        if attribute not in out.columns:
            out[attribute] = None
    return (
        out[columns]
        .sort_values([*by, "kind", "scope", "group"], kind="stable")
        .reset_index(drop=True)
    )


def _columns(by: list[str], attributes: list[str]) -> list[str]:
    return [
        *by,
        "kind",
        "scope",
        "attributes",
        "group",
        *attributes,
        *_COUNTS,
        "error_rate",
        "hidden_rate",
        "scope_rate",
        "scope_mean",
        "above_mean",
        "parity_gap",
        "fairness_violation",
    ]


def _scope_table(
    frame: pd.DataFrame,
    ind: pd.DataFrame,
    features: pd.DataFrame,
    by: list[str],
    family: tuple[str, ...],
) -> pd.DataFrame:
    """The groups of one scope (one attribute combination and family), via MetricFrame."""
    attributes = list(features.columns)
    y = ind["errors"].to_numpy()
    mf = MetricFrame(
        metrics={c: _total for c in _COUNTS},
        y_true=y,
        y_pred=y,
        sensitive_features=features.astype(str),
        control_features=frame[by] if by else None,
        sample_params={c: {"values": ind[c].to_numpy()} for c in _COUNTS},
    )
    groups = mf.by_group.dropna(how="all").reset_index()
    groups = groups[groups["decided"] > 0]
    overall = mf.overall if by else pd.DataFrame([mf.overall])
    overall = overall.reset_index(drop=not by)
    groups[list(_COUNTS)] = groups[list(_COUNTS)].astype(np.int64)
    groups = _flag(groups, overall.astype({c: np.int64 for c in _COUNTS}), by)
    groups["kind"] = "GAB" if len(attributes) == 1 else "GIB"
    groups["scope"] = GROUP_SEPARATOR.join(family)
    groups["attributes"] = "+".join(attributes)
    groups["group"] = [
        GROUP_SEPARATOR.join(row) for row in groups[attributes].itertuples(index=False, name=None)
    ]
    return groups


def _flag(groups: pd.DataFrame, overall: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Rates, the scope's pooled rate and mean, the GAB/GIB flag and the fairness measures of
    the groups of one scope (``overall``: the scope's counts, one row per ``by`` group)."""
    groups = rates.add_rates(groups)
    overall = rates.add_rates(overall)
    scope_rate = overall[[*by, "error_rate", "decided"]].rename(
        columns={"error_rate": "scope_rate", "decided": "scope_decided"}
    )
    if by:
        groups = groups.merge(scope_rate, on=by, how="left")
    else:
        groups = groups.assign(**scope_rate.iloc[0].to_dict())
    key = by if by else None
    mean = (
        groups.groupby(key)["error_rate"].transform("mean") if key else groups["error_rate"].mean()
    )
    groups["scope_mean"] = mean
    groups["above_mean"] = groups["error_rate"] > groups["scope_mean"]
    gap = (groups["error_rate"] - groups["scope_rate"]).abs()
    groups["parity_gap"] = groups["decided"] / groups["scope_decided"] * gap
    groups["fairness_violation"] = (
        gap.groupby([groups[k] for k in by]).transform("max") if by else gap.max()
    )
    return groups.drop(columns=["scope_decided"])


def class_columns(table: pd.DataFrame, by: Sequence[str] = ()) -> list[str]:
    """The class columns (one per attribute) of a :func:`group_rates` table grouped by ``by``:
    every column that is neither a grouping key nor one of the measures."""
    return [c for c in table.columns if c not in _columns(list(by), [])]


def pool_groups(table: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """:func:`group_rates` tables of separate parts (e.g. one per model and dataset) pooled:
    the groups' counts summed over everything not in ``by``, then rated and flagged as
    :func:`group_rates` does (a scope's counts are the sums of its groups')."""
    by = list(by)
    attributes = class_columns(table, by)
    keys = [*by, "kind", "scope", "attributes", "group"]
    firsts = table.groupby(keys, sort=True, dropna=False)[attributes].first()
    counts = table.groupby(keys, sort=True, dropna=False)[list(_COUNTS)].sum()
    groups = pd.concat([firsts, counts], axis=1).reset_index()
    records = []
    for _, part in groups.groupby([*by, "kind", "scope"], sort=True, dropna=False):
        part = part[part["decided"] > 0]
        if part.empty:
            continue
        overall = (
            part.groupby(by, sort=True)[list(_COUNTS)].sum().reset_index()
            if by
            else (pd.DataFrame([part[list(_COUNTS)].sum()]))
        )
        records.append(_flag(part.reset_index(drop=True), overall, by))
    columns = _columns(by, attributes)
    if not records:
        return pd.DataFrame(columns=columns)
    out = pd.concat(records, ignore_index=True)
    return (
        out[columns]
        .sort_values([*by, "kind", "scope", "group"], kind="stable")
        .reset_index(drop=True)
    )


def group_summary(
    table: pd.DataFrame, by: Sequence[str] = (), examples: int | None = None
) -> pd.DataFrame:
    """MUTAINT Table 4: per scope, the mean rate, the biased groups over all groups and the
    biased groups themselves (highest rate first; ``examples`` caps the list). Ends with one
    "All (GAB)" and one "All (GIB)" row per ``by`` group."""
    by = list(by)
    records = []
    for key, part in table.groupby([*by, "kind", "scope"], sort=True):
        flagged = part[part["above_mean"]].sort_values(
            ["error_rate", "group"], ascending=[False, True]
        )
        names = flagged["group"].tolist()[: examples if examples is not None else None]
        records.append(
            (
                *key,
                float(part["scope_mean"].iloc[0]),
                len(flagged),
                len(part),
                ", ".join(names),
            )
        )
    out = pd.DataFrame(
        records, columns=[*by, "kind", "scope", "mean_rate", "biased_groups", "groups", "examples"]
    )
    totals = out.groupby([*by, "kind"], sort=True)[["biased_groups", "groups"]].sum().reset_index()
    totals["scope"] = "All (" + totals["kind"] + ")"
    totals["mean_rate"] = np.nan
    totals["examples"] = ""
    return (
        pd.concat([out, totals[out.columns]], ignore_index=True)
        .sort_values(
            [*by, "kind", "scope"],
            key=lambda s: s.str.startswith("All") if s.name == "scope" else s,
            kind="stable",
        )
        .reset_index(drop=True)
    )


def group_document_counts(
    outcomes: pd.DataFrame,
    pairs: pd.DataFrame,
    by: Sequence[str] = (),
    side: str = "target",
    threshold: float | None = None,
) -> pd.DataFrame:
    """Per (``by``, ``attributes``, ``group``, doc_id): every count of
    :func:`hinter.statistics.document_counts` — the input of the groups' bootstrap. Counts of
    separate parts (models, datasets) can be concatenated and resampled together."""
    frame = outcomes.reset_index(drop=True)
    classes = mutant_classes(frame, pairs, side)
    attributes = frame["attributes"].map(lambda a: "+".join(a))
    group = [
        GROUP_SEPARATOR.join(row[a] for a in attrs.split("+"))
        for attrs, row in zip(attributes, classes.to_dict("records"), strict=True)
    ]
    keys = [*by, "attributes", "group"]
    frame = frame.drop(columns=["attributes"]).assign(attributes=attributes, group=group)
    return statistics.document_counts(frame, by=keys, threshold=threshold)
