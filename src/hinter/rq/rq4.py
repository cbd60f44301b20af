"""RQ4 atomic vs intersectional bias (docs/design.md §3): paper Figs. 9 and 10 and their data, under
``results/<run>/rq4/``.

- Fig. 9a: bias-inducing valid intersectional mutants (with valid atomic parents) with / without
  a bias-inducing atomic parent — "without" is the hidden bias of docs/design.md §2; the original
  artifact's condition ("atomic 1 benign and atomic 2 biased", docs/design.md §8) is kept beside it
  as a labelled compatibility row and figure;
- Fig. 9b: bias-inducing valid atomic mutants with / without a bias-inducing valid
  intersectional mutant built from the same pair (a "child");
- Fig. 10: bias-inducing originals of each attribute pair as a Venn diagram of three sets
  (atomic A, atomic B, intersectional A×B); for N=3 an UpSet plot of four sets.

Counts come from :mod:`hinter.rates`, read one (model, dataset) at a time; every share gets a
bootstrap interval over original documents (:mod:`hinter.rq.intervals`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from hinter import rates
from hinter.oracle import suite_attributes
from hinter.render import Table, document, markdown_table, prose, write_table
from hinter.rq import intervals, outputs, paper
from hinter.rq.definitions import caption, describe
from hinter.rq.ordering import in_order
from hinter.rq.outcomes import RATE_COLUMNS, OutcomeFile, by_model_and_dataset, read_outcomes

log = logging.getLogger(__name__)

TABLES = outputs.names(4, outputs.TABLE)
ALL = "All"
TOTAL = "Total"
# Fig. 9 pooled over the models the paper's counts cover (paper.RQ4["scope_models"])
PAPER_SCOPE = "Paper scope"
COLUMNS = [*RATE_COLUMNS, "mutant_id", "parent_ids", "parent_valid"]
# Fig. 9's per-document counts and shares.
COUNTERPART_INPUTS = ("hidden_base", "hidden", "hidden_artifact", "atomic_errors", "with_child",
                      "with_any_child")  # fmt: skip
COUNTERPART_RATES = ("inter_without_atomic", "inter_without_atomic_artifact", "atomic_with_child",
                     "atomic_with_child_all")  # fmt: skip
DEFINITION = "definition"
ARTIFACT = "artifact"
# Fig. 9b over every bias-inducing atomic mutant, also those that parent no valid
# intersectional mutant (the paper's denominator is the parents only: DEFINITION)
EVERY_ATOMIC = "every atomic"

# After the counterparts' definitions (workflow/report/rq4/counterparts.rst): the paper's counts.
PAPER_NOTE = prose(
    f"""Paper: {paper.RQ4["inter_without_atomic_counts"]} intersectional bias-inducing mutants
    ({paper.RQ4["inter_without_atomic"]:.2f}%) without an atomic counterpart, by the artifact's
    condition; {paper.RQ4["atomic_with_child"]:.2f}% of atomic bias-inducing mutants with an
    intersectional one."""
)


# ---------------------------------------------------------------------------------------------
# Counting: one (model, dataset) at a time


def _group_counts(group: Sequence[OutcomeFile], order: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-document Fig. 9 counts, per-document suite memberships) of one (model, dataset).

    Each file is read once and reduced at once (memory follows one file): the intersectional
    suites of ``order`` first, for their counts and the ids of the atomic mutants with a
    bias-inducing child, then the atomic suites, which look those ids up."""
    keys = ["model", "dataset", "doc_id"]
    ordered = [f for f in group if f.order == order] + [f for f in group if f.order != order]
    inter_counts, atomic_counts, flags, parents = [], [], [], []
    with_biased: set[str] = set()
    with_any: set[str] = set()
    atomic_ids: set[str] = set()
    for f in ordered:
        frame = read_outcomes(f, COLUMNS)
        if f.order == order:
            inter_counts.append(rates.counts(frame, by=keys)[[*keys, *COUNTERPART_INPUTS[:3]]])
            biased, any_ = rates.biased_children(frame)
            with_biased |= biased
            with_any |= any_
            parents.append(_biased_parents(frame))
        elif f.order == 1:
            atomic_counts.append(rates.atomic_children(frame, (with_biased, with_any), by=keys))
            atomic_ids.update(frame["mutant_id"])
        if len(frame):
            part = rates.document_flags(frame, by=["model", "dataset"])
            kept = part.loc[
                part["tested"] | part["bias_inducing"], [*keys, "tested", "bias_inducing"]
            ]
            flags.append(kept.assign(suite=f.suite))
        log.info("%s: %d outcome rows", f.path, len(frame))
    extra = _parent_only(parents, atomic_ids, (with_biased, with_any))
    if len(extra):  # G11: a capped run's atomic parents kept in intersectional files only
        atomic_counts.append(extra.groupby(keys, sort=True)[list(rates.CHILD_COLUMNS)].sum()
                             .reset_index())  # fmt: skip
        flags.append(extra[[*keys, "suite"]].assign(tested=True, bias_inducing=True))
    parts = [_sum(inter_counts, keys), _sum(atomic_counts, keys)]
    docs = _merge([p for p in parts if p is not None], keys, COUNTERPART_INPUTS)
    members = (
        pd.concat(flags, ignore_index=True)
        if flags
        else pd.DataFrame(columns=[*keys, "tested", "bias_inducing", "suite"])
    )
    return docs, members


def _biased_parents(frame: pd.DataFrame) -> pd.DataFrame:
    """The valid, bias-inducing atomic parents of an intersectional outcome table, one row per
    (document, parent id), with the atomic suite each belongs to (the parents follow the suite
    name's attribute order)."""
    columns = ["model", "dataset", "doc_id", "mutant_id", "suite"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    long = frame[["model", "dataset", "doc_id", "suite", "parent_ids", "parent_valid",
                  "parent_biased"]].reset_index(drop=True)  # fmt: skip
    long = long[long["parent_ids"].map(lambda ids: ids is not None and len(ids) > 0)]
    if long.empty:
        return pd.DataFrame(columns=columns)
    long = long.assign(position=long["parent_ids"].map(lambda ids: list(range(len(ids)))))
    long = long.explode(["parent_ids", "parent_valid", "parent_biased", "position"])
    keep = (long["parent_valid"] == True) & (long["parent_biased"] == True)  # noqa: E712
    long = long[keep]
    attribute = [
        suite_attributes(s)[int(k)] for s, k in zip(long["suite"], long["position"], strict=True)
    ]
    return pd.DataFrame(
        {
            "model": long["model"].to_numpy(),
            "dataset": long["dataset"].to_numpy(),
            "doc_id": long["doc_id"].to_numpy(),
            "mutant_id": long["parent_ids"].astype(str).to_numpy(),
            "suite": [f"atomic-{a}" for a in attribute],
        }
    )


def _parent_only(
    parents: list[pd.DataFrame], atomic_ids: set[str], children: tuple[set[str], set[str]]
) -> pd.DataFrame:
    """Fig. 9b's counts of the bias-inducing atomic parents that no atomic suite's file holds
    (a run capped per document keeps a sample of each atomic suite, and an intersectional
    mutant's parents beside it): each parent once, as :func:`hinter.rates.atomic_children`
    counts an atomic row (review 2026-11-28 G11)."""
    found = [p for p in parents if len(p)]
    if not found:
        return pd.DataFrame()
    frame = pd.concat(found, ignore_index=True).drop_duplicates("mutant_id")
    frame = frame[~frame["mutant_id"].isin(atomic_ids)]
    with_biased, with_any = children
    return frame.assign(
        atomic_errors=1,
        with_child=frame["mutant_id"].isin(with_biased).astype(np.int64),
        with_any_child=frame["mutant_id"].isin(with_any).astype(np.int64),
    )


def _sum(parts: list[pd.DataFrame], keys: list[str]) -> pd.DataFrame | None:
    """Counts of several files of one (model, dataset) added up per document."""
    if not parts:
        return None
    return pd.concat(parts, ignore_index=True).groupby(keys, sort=True).sum().reset_index()


def _merge(parts: list[pd.DataFrame], keys: list[str], columns: Sequence[str]) -> pd.DataFrame:
    if not parts:
        return pd.DataFrame(columns=[*keys, *columns])
    out = parts[0]
    for part in parts[1:]:
        out = out.merge(part, on=keys, how="outer")
    for c in columns:
        out[c] = out[c].fillna(0).astype(np.int64) if c in out else 0
    return out[[*keys, *columns]]


def collect(files: Sequence[OutcomeFile], order: int = 2) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-document Fig. 9 counts and document flags (model, dataset, doc_id, tested,
    bias_inducing, suite)
    over every (model, dataset) of ``files``."""
    docs, members = [], []
    for group in by_model_and_dataset(files):
        d, m = _group_counts(group, order)
        docs.append(d)
        members.append(m)
    keys = ["model", "dataset", "doc_id"]
    return (
        pd.concat(docs, ignore_index=True) if docs else _merge([], keys, COUNTERPART_INPUTS),
        pd.concat(members, ignore_index=True)
        if members
        else pd.DataFrame(columns=[*keys, "tested", "bias_inducing", "suite"]),
    )


def _pooled(
    doc_counts: pd.DataFrame, inputs, statistic, rates_, stats, scope: Sequence[str] = ()
) -> pd.DataFrame:
    """Per (model, dataset), per model over datasets, over everything (All / Total) and, when
    ``scope`` names models of the run, over those models (All / Paper scope)."""
    in_scope = doc_counts[doc_counts["model"].isin(list(scope))]
    parts = [
        intervals.totals_intervals(
            doc_counts, inputs, statistic, rates_, ["model", "dataset"], **stats
        ),
        intervals.totals_intervals(
            doc_counts, inputs, statistic, rates_, ["model"], ("dataset", "doc_id"), **stats
        ).assign(dataset=ALL),
        intervals.totals_intervals(
            doc_counts.assign(model=TOTAL, dataset=ALL),
            inputs,
            statistic,
            rates_,
            ["model", "dataset"],
            ("doc_id_all",),
            **stats,
        ),
    ]
    if len(in_scope):
        parts.append(
            intervals.totals_intervals(
                in_scope.assign(model=PAPER_SCOPE, dataset=ALL),
                inputs,
                statistic,
                rates_,
                ["model", "dataset"],
                ("doc_id_all",),
                **stats,
            )
        )
    kept = [p for p in parts if len(p)]
    # nothing to pool (e.g. no bias-inducing mutant in a small run): an empty table, not an error
    return pd.concat(kept, ignore_index=True) if kept else parts[0]


# ---------------------------------------------------------------------------------------------
# Fig. 9's data


def counterparts(
    doc_counts: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    order: int = 2,
    scope: Sequence[str] = paper.RQ4["scope_models"],
) -> Table:
    """Fig. 9's counts and shares per (model, dataset), per model and pooled (all models, and
    the paper's scope: the models of ``scope`` the run tested), in long form:
    population (intersectional / atomic), condition (definition / artifact), bias-inducing,
    with / without a counterpart, and the share without (intersectional) or with (atomic)."""
    frame = doc_counts.assign(doc_id_all=doc_counts["dataset"] + "\x00" + doc_counts["doc_id"])
    grid = _pooled(
        frame, COUNTERPART_INPUTS, rates.add_counterpart_rates, COUNTERPART_RATES, stats, scope
    )
    grid = in_order(grid, {"model": [*models, TOTAL, PAPER_SCOPE], "dataset": [*datasets, ALL]})
    records = []
    for _, r in grid.iterrows():
        key = {"model": r["model"], "dataset": r["dataset"]}
        for population, condition, total, without, rate in (
            ("intersectional", DEFINITION, "hidden_base", "hidden", "inter_without_atomic"),
            (
                "intersectional",
                ARTIFACT,
                "hidden_base",
                "hidden_artifact",
                "inter_without_atomic_artifact",
            ),
            ("atomic", DEFINITION, "with_any_child", None, "atomic_with_child"),
            ("atomic", EVERY_ATOMIC, "atomic_errors", None, "atomic_with_child_all"),
        ):
            n = int(r[total])
            if population == "atomic":
                with_, without_n = int(r["with_child"]), n - int(r["with_child"])
            else:
                without_n, with_ = int(r[without]), n - int(r[without])
            records.append(
                {
                    **key,
                    "population": population,
                    "condition": condition,
                    "bias_inducing": n,
                    "with_counterpart": with_,
                    "without_counterpart": without_n,
                    "share": "without" if population == "intersectional" else "with",
                    "share_pct": r[f"{rate}_pct"],
                    "share_low_pct": r[f"{rate}_low_pct"],
                    "share_high_pct": r[f"{rate}_high_pct"],
                }
            )
    csv = pd.DataFrame(records)
    md = pd.DataFrame(
        {
            "Model": csv["model"],
            "Dataset": csv["dataset"],
            "Bias-inducing mutants": [
                ("(a) intersectional" if p == "intersectional" else "(b) atomic")
                + (" — artifact's condition" if c == ARTIFACT else "")
                + (" — every one, also without a valid child" if c == EVERY_ATOMIC else "")
                for p, c in zip(csv["population"], csv["condition"], strict=True)
            ],
            "N": csv["bias_inducing"].astype(str),
            "With counterpart": csv["with_counterpart"].astype(str),
            "Without counterpart": csv["without_counterpart"].astype(str),
            "Share (%)": [
                f"{s}: " + intervals.percent_cell(r, "share")
                for s, r in zip(csv["share"], records, strict=True)
            ],
        }
    )
    return Table(
        csv,
        document(
            "Fig. 9 data — atomic vs intersectional bias-inducing mutants",
            caption(
                4,
                "counterparts",
                f"Intersectional mutants of order N={order}.",
                describe(stats),
                PAPER_NOTE,
            ),
            markdown_table(md, right=["N", "With counterpart", "Without counterpart"]),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Fig. 10's data


def suite_sets(suite: str) -> list[str]:
    """The sets of a suite's Venn diagram: its attributes' atomic suites, then the suite."""
    return [f"atomic-{a}" for a in suite_attributes(suite)] + [suite]


def region_name(sets: Sequence[str], key: str) -> str:
    """A readable region name: "atomic-race & inter-race+gender", or "… only"."""
    chosen = [s for s, bit in zip(sets, key, strict=True) if bit == "1"]
    return " & ".join(chosen) + (" only" if len(chosen) == 1 else "")


VENN_COLUMNS = ["suite", "order", "sets", "model", "dataset", "region", "name", "originals",
                "union", "share_pct", "share_low_pct", "share_high_pct"]  # fmt: skip
VENN_KEYS = ["model", "dataset", "doc_id"]


def _suite_members(members: pd.DataFrame, suite: str, sets: Sequence[str]) -> pd.DataFrame:
    """The bias-inducing originals of the diagram's sets, in the runs that test ``suite``; for
    a higher order (tested on a limited set of documents, e.g. RQ5's first 10K) only the
    originals it tested."""
    own = members[members["suite"] == suite]
    runs = set(zip(own["model"], own["dataset"], strict=True))
    mine = members[members["suite"].isin(sets) & members["bias_inducing"].astype(bool)]
    in_run = [(m, d) in runs for m, d in zip(mine["model"], mine["dataset"], strict=True)]
    mine = mine[np.array(in_run, dtype=bool)]  # (an empty list would select no columns)
    if len(sets) > 3:
        tested = set(own.loc[own["tested"].astype(bool), VENN_KEYS].itertuples(index=False))
        keep = [t in tested for t in mine[VENN_KEYS].itertuples(index=False)]
        mine = mine[np.array(keep, dtype=bool)]
    return mine


def _region_records(
    mine: pd.DataFrame,
    suite: str,
    sets: Sequence[str],
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """One record per (model, dataset, pooled) and non-empty region of ``suite``'s diagram."""
    table = (
        mine.assign(member=True)
        .pivot_table(index=VENN_KEYS, columns="suite", values="member", aggfunc="any")
        .reindex(columns=sets)
        .notna()  # a (original, suite) cell exists only where the suite found it biased
        .reset_index()
    )
    regions = rates.set_regions(table, sets)
    region_keys = [c for c in regions.columns if c != "union"]
    doc_counts = pd.concat([table[VENN_KEYS], regions], axis=1)
    doc_counts["doc_id_all"] = doc_counts["dataset"] + "\x00" + doc_counts["doc_id"]

    def shares(totals: pd.DataFrame) -> pd.DataFrame:
        union = totals["union"].astype(float)
        return pd.DataFrame(
            {k: (totals[k].astype(float) / union).where(union > 0) for k in region_keys}
        )

    floor = {**stats, "ratios": {k: (k, "union") for k in region_keys}}  # a region's share
    grid = _pooled(doc_counts, [*region_keys, "union"], shares, region_keys, floor)
    grid = in_order(grid, {"model": [*models, TOTAL], "dataset": [*datasets, ALL]})
    return [
        {
            "suite": suite,
            "order": len(sets) - 1,
            "sets": ";".join(sets),
            "model": r["model"],
            "dataset": r["dataset"],
            "region": k,
            "name": region_name(sets, k),
            "originals": int(r[k]),
            "union": int(r["union"]),
            "share_pct": r[f"{k}_pct"],
            "share_low_pct": r[f"{k}_low_pct"],
            "share_high_pct": r[f"{k}_high_pct"],
        }
        for _, r in grid.iterrows()
        for k in region_keys
    ]


def _no_bias_record(suite: str, sets: Sequence[str], members: pd.DataFrame) -> list[dict]:
    """A suite of order 3 or more that the run tested but that found no bias-inducing
    original: one pooled row with 0 originals, so the UpSet figure can tell it from a run
    without such a suite (review 2026-11-28 G15). Fig. 10's pair suites need none."""
    if len(sets) <= 3 or not (members["suite"] == suite).any():
        return []
    return [
        {
            "suite": suite,
            "order": len(sets) - 1,
            "sets": ";".join(sets),
            "model": TOTAL,
            "dataset": ALL,
            "region": "",
            "name": "no bias-inducing original",
            "originals": 0,
            "union": 0,
            "share_pct": None,
            "share_low_pct": None,
            "share_high_pct": None,
        }
    ]


def _venn_section(suite: str, total: Sequence[Mapping[str, Any]]) -> list[str]:
    """The Markdown section of ``suite``: its regions, every model and dataset pooled."""
    heading = [f"## {suite} (all models and datasets)", ""]
    if not total:  # no suite of the diagram found a bias (a small run): no region to count
        return [*heading, "No bias-inducing original in any of its sets.", ""]
    md = pd.DataFrame(
        {
            "Region": [x["name"] for x in total],
            "Originals": [str(x["originals"]) for x in total],
            "Share of the union (%)": [intervals.percent_cell(x, "share") for x in total],
        }
    )
    return [*heading, markdown_table(md, right=["Originals"])]


def venn(
    members: pd.DataFrame,
    suites: Sequence[str],
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
) -> Table:
    """Fig. 10's region counts (and the N=3 UpSet plot's): per intersectional suite, per
    (model, dataset) and pooled, every non-empty region's originals and share of the union."""
    sections = [
        "# Fig. 10 data — bias-inducing originals, atomic vs intersectional",
        "",
        caption(4, "venn", describe(stats)),
        "",
    ]
    records: list[dict[str, Any]] = []
    for suite in suites:
        sets = suite_sets(suite)
        mine = _suite_members(members, suite, sets)
        found = [] if mine.empty else _region_records(mine, suite, sets, models, datasets, stats)
        records += found or _no_bias_record(suite, sets, members)
        sections += _venn_section(suite, [x for x in found if x["model"] == TOTAL])
    if not suites:
        sections.append("No intersectional suite in this run.\n")
    return Table(pd.DataFrame(records, columns=VENN_COLUMNS), "\n".join(sections))


# ---------------------------------------------------------------------------------------------
# Writing


def build_tables(
    files: Sequence[OutcomeFile],
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    order: int = 2,
) -> dict[str, Table]:
    """Every RQ4 table (``TABLES``) by name."""
    doc_counts, members = collect(files, order)
    suites = sorted({f.suite for f in files if f.order >= 2}, key=lambda s: (len(s.split("+")), s))
    builders = {
        "counterparts": lambda: counterparts(doc_counts, models, datasets, stats, order),
        "venn": lambda: venn(members, suites, models, datasets, stats),
    }
    return {name: builders[name]() for name in TABLES}


def write_tables(
    files: Sequence[OutcomeFile],
    out_dir: str | Path,
    *,
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    order: int = 2,
) -> list[Path]:
    """Write every RQ4 table to ``out_dir``; the paths written."""
    written: list[Path] = []
    for name, table in build_tables(files, models, datasets, stats, order).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(4, name).extensions)
    return written
