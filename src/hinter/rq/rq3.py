"""RQ3 the dependency invariant (docs/design.md §3): paper Figs. 7, 8b, 8c and their tables, under
``results/<run>/rq3/``.

- ``validity`` / Fig. 7 (RQ3.1): valid vs discarded mutants per dataset, all / intersectional /
  atomic. Counts are the validity summaries'; intervals come from the per-document counts of
  the validity shards (joined to the mutant shards for the documents), which must add up to the
  summaries;
- ``positives`` / Fig. 8b (RQ3.2): bias found among valid mutants (true positives) vs among
  discarded ones (false positives: found without the invariant), from the outcomes. Discarded
  mutants have outcomes only when the run predicted them (``invariant.keep_discarded``); when
  none were, the table says so instead of showing zeros;
- ``grammar_validity`` / Fig. 8c (RQ3.3): grammar scores of originals, valid and discarded
  mutants (:mod:`hinter.rq.scores`).

Every rate has a bootstrap interval over original documents (:mod:`hinter.statistics`, config
``statistics``); every comparison says whether its difference is significant.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from hinter import rates, statistics
from hinter.plan import RQ_ORDER
from hinter.plots import style
from hinter.render import Table, document, markdown_table, prose, write_table
from hinter.rq import outputs, paper, scores
from hinter.rq.definitions import caption
from hinter.rq.intervals import SHARES, Bootstrap, side_documents
from hinter.rq.intervals import cell as interval_cell
from hinter.rq.ordering import in_order
from hinter.rq.outcomes import RATE_COLUMNS, OutcomeFile, by_model_and_dataset, read_outcomes
from hinter.rq.outcomes import kind as kind_of
from hinter.rq.scores import ALL as ALL_OUTCOMES
from hinter.rq.scores import ScoreFile
from hinter.rq.validity import (
    ValidityShard,
    ValiditySummary,
    check_against_summaries,
    document_validity,
    read_summaries,
    suite_order,
)

log = logging.getLogger(__name__)

TABLES = outputs.names(3, outputs.TABLE)
ALL = "All"  # pooled datasets / tracks
TOTAL = "Total"  # pooled models
EVERY = "all"  # every mutation kind pooled
CLUSTER = ("dataset", "doc_id")
ORIGINAL, VALID, DISCARDED = "original", "valid mutant", "discarded mutant"
PAPER = paper.RQ3


VALIDITY_COLUMNS = [
    "dataset",
    "track",
    "mutation",
    "generated",
    "valid",
    "discarded",
    "discarded_pct",
    "low",
    "high",
    "documents",
    "vs_atomic_pct",
    "vs_atomic_low",
    "vs_atomic_high",
    "vs_atomic_p_value",
    "vs_atomic_significant",
    "vs_atomic_documents",  # the fewer documents of the two sides: a verdict needs MIN_DOCUMENTS
    "too_long",  # discarded by the sentence cap (the original artifact's), never parsed
]
_PCT = [
    f"{n}_pct{s}"
    for n in ("error_rate", "discarded_error_rate", "false_positive_share", "difference")
    for s in ("", "_low", "_high")
]
POSITIVE_COLUMNS = [
    "model",
    "dataset",
    "mutation",
    "generated",
    "decided",
    "true_positives",
    "discarded",
    "discarded_decided",
    "false_positives",
    "predicted_discarded",
    *_PCT,
    "significant",
    "documents",  # resampled documents: a verdict needs statistics.MIN_DOCUMENTS
]


def _empty(columns: Sequence[str], title: str, text: str) -> Table:
    return Table(pd.DataFrame(columns=list(columns)), document(title, "", f"{text}\n"))


def mutation_order(kinds) -> list[str]:
    return [EVERY, *scores.mutation_order([k for k in kinds if k != EVERY])]


# ---------------------------------------------------------------------------------------------
# Fig. 7: valid vs discarded mutants


def _views(frame: pd.DataFrame, counts: Sequence[str]) -> pd.DataFrame:
    """The rows at every pooling level: per (dataset, track), per dataset over tracks, over
    everything; each per mutation kind and with every kind pooled (``all``)."""
    parts = []
    for by_kind in (True, False):
        base = frame if by_kind else frame.assign(mutation=EVERY)
        for dataset_all, track_all in ((False, False), (False, True), (True, True)):
            view = base.assign(
                **({"dataset_label": ALL} if dataset_all else {"dataset_label": base["dataset"]}),
                **({"track": ALL} if track_all else {}),
            )
            parts.append(view)
    out = pd.concat(parts, ignore_index=True)
    keys = ["dataset_label", "track", "mutation", "dataset", "doc_id"]
    return out.groupby(keys, sort=True)[list(counts)].sum().reset_index()


def _kind_comparison(view: pd.DataFrame, boot: Bootstrap) -> pd.DataFrame:
    """Intersectional vs atomic discarded share per (dataset, track): the difference, its
    interval, p-value and significance (:func:`hinter.statistics.compare_rates`, paired by
    document), on the intersectional rows."""
    by = ["dataset_label", "track"]
    a = view[view["mutation"] == "intersectional"]
    b = view[view["mutation"] == "atomic"]
    columns = [
        *by,
        "mutation",
        "vs_atomic_pct",
        "vs_atomic_low",
        "vs_atomic_high",
        "vs_atomic_p_value",
        "vs_atomic_significant",
        "vs_atomic_documents",
    ]
    if a.empty or b.empty:
        return pd.DataFrame(columns=columns)
    c = statistics.compare_rates(a, b, by, CLUSTER, boot.resamples, boot.seed, boot.confidence)
    c = c[c["rate"] == "valid_share"]
    # the discarded share is 1 - the valid share: its difference is the valid one's negated
    return pd.DataFrame(
        {
            "dataset_label": c["dataset_label"],
            "track": c["track"],
            "mutation": "intersectional",
            "vs_atomic_pct": -100 * c["difference"],
            "vs_atomic_low": -100 * c["high"],
            "vs_atomic_high": -100 * c["low"],
            "vs_atomic_p_value": c["p_value"],
            "vs_atomic_significant": c["significant"].astype("boolean"),
            "vs_atomic_documents": side_documents(c),
        }
    )[columns]


def _too_long(totals: pd.DataFrame, summaries: pd.DataFrame) -> list[int]:
    """Per row of Fig. 7's table (dataset, track, mutation kind, pooled as ``All``/``all``),
    the mutants the sentence cap discarded, from the validity summaries' per-suite counts."""
    if "too_long" not in summaries.columns or summaries.empty:
        return [0] * len(totals)
    s = summaries.assign(mutation=[kind_of(suite_order(x), 2) for x in summaries["suite"]])
    out = []
    for d, tr, m in zip(totals["dataset_label"], totals["track"], totals["mutation"], strict=True):
        sel = (s["dataset"] == d) | (d == ALL)
        sel &= (s["track"] == tr) | (tr == ALL)
        sel &= (s["mutation"] == m) | (m == EVERY)
        out.append(int(s.loc[sel, "too_long"].sum()))
    return out


def too_long_sentence(summaries: pd.DataFrame, datasets: Sequence[str]) -> str:
    """How many discards the sentence cap decided (reason ``too_long``, never parsed): the cap
    is the original artifact's, Alg. 3 has none (review 2026-11-28 G2), so the share says how
    much of the discarded share is the cap's rather than the dependency comparison's."""
    if summaries.empty or "too_long" not in summaries.columns:
        return ""
    frame = summaries.assign(discarded=summaries["generated"] - summaries["valid"])
    per = frame.groupby("dataset")[["discarded", "too_long"]].sum()
    total = per.sum()
    if not total["discarded"]:
        return ""
    parts = [
        f"{style.name('datasets', d)} {int(per.loc[d, 'too_long'])} of "
        f"{int(per.loc[d, 'discarded'])}"
        for d in [*datasets, *sorted(set(per.index) - set(datasets))]
        if d in per.index and per.loc[d, "discarded"]
    ]
    share = 100 * total["too_long"] / total["discarded"]
    return (
        f"Discarded as too_long (a changed sentence over invariant.max_sentence_chars, the "
        f"original artifact's cap, not Alg. 3's; never parsed): {int(total['too_long']):,} of "
        f"{int(total['discarded']):,} discarded mutants ({share:.1f}%; {'; '.join(parts)})."
    )


def validity(
    docs: pd.DataFrame, summaries: pd.DataFrame, datasets: Sequence[str], boot: Bootstrap
) -> Table:
    """Fig. 7's data: generated, valid and discarded mutants and the discarded share, with its
    interval, per (dataset, track) and pooled, per mutation kind and all kinds."""
    check_against_summaries(docs, summaries)
    if docs.empty:
        return _empty(VALIDITY_COLUMNS, "Fig. 7 — valid vs discarded mutants", "No mutants.")
    frame = docs.assign(mutation=[kind_of(suite_order(s), 2) for s in docs["suite"]])
    frame = (
        frame.groupby(["track", "dataset", "mutation", "doc_id"], sort=True)[["generated", "valid"]]
        .sum()
        .reset_index()
    )
    view = _views(frame, ["generated", "valid"])
    for column in statistics.RATE_INPUTS:
        if column not in view.columns:
            view[column] = 0
    by = ["dataset_label", "track", "mutation"]
    intervals = statistics.bootstrap_rates(
        view, by, CLUSTER, boot.resamples, boot.seed, boot.confidence
    )
    intervals = intervals[intervals["rate"] == "valid_share"].set_index(by)
    totals = (
        view.groupby(by, sort=True)
        .agg(
            generated=("generated", "sum"),
            valid=("valid", "sum"),
            documents=("doc_id", "size"),
        )
        .reset_index()
    )
    totals["discarded"] = totals["generated"] - totals["valid"]
    share = rates.add_rates(
        totals.assign(errors=0, decided=0, hidden=0, hidden_base=0, hidden_artifact=0)
    )["valid_share"]
    found = intervals.reindex(pd.MultiIndex.from_frame(totals[by]))
    totals["discarded_pct"] = 100 * (1 - share)
    totals["low"] = 100 * (1 - found["high"].to_numpy())
    totals["high"] = 100 * (1 - found["low"].to_numpy())
    totals = totals.merge(_kind_comparison(view, boot), on=by, how="left")
    totals["too_long"] = _too_long(totals, summaries)
    totals = totals.rename(columns={"dataset_label": "dataset"})
    tracks = sorted(set(frame["track"]))
    totals = in_order(
        totals,
        {
            "dataset": [*datasets, ALL],
            "track": [*tracks, ALL],
            "mutation": mutation_order(totals["mutation"]),
        },
    )
    csv = totals[VALIDITY_COLUMNS]
    shown = csv[csv["track"] == ALL]
    md = pd.DataFrame(
        {
            "Dataset": [style.name("datasets", d) for d in shown["dataset"]],
            "Mutation": shown["mutation"],
            "Generated": shown["generated"].astype(str),
            "Valid": shown["valid"].astype(str),
            "Discarded": shown["discarded"].astype(str),
            "Discarded (%)": [
                interval_cell(v, lo, hi, scale=1, missing="")
                for v, lo, hi in zip(
                    shown["discarded_pct"], shown["low"], shown["high"], strict=True
                )
            ],
            "vs atomic": [
                interval_cell(v, lo, hi, scale=1, signed=True, missing="")
                for v, lo, hi in zip(
                    shown["vs_atomic_pct"],
                    shown["vs_atomic_low"],
                    shown["vs_atomic_high"],
                    strict=True,
                )
            ],
            "Significant": scores.significances(
                shown["vs_atomic_significant"], shown["vs_atomic_documents"]
            ),
        }
    )
    text = caption(
        3,
        "validity",
        boot.describe(),
        too_long_sentence(summaries, datasets),
        f"""Paper: {PAPER["discarded_share"]:.2f}% of all mutants discarded
        ({PAPER["discarded_of_generated"]}); probably shaped by the original artifact's
        invariant inputs (docs/reconciliation.md).""",
    )
    body = markdown_table(
        md, right=["Generated", "Valid", "Discarded", "Discarded (%)", "vs atomic"]
    )
    return Table(csv, document("Fig. 7 — valid vs discarded mutants", prose(text), body))


# ---------------------------------------------------------------------------------------------
# Fig. 8b: true vs false positives


def document_positives(files: Sequence[OutcomeFile]) -> pd.DataFrame:
    """Per (model, dataset, mutation kind, doc_id): every count of :mod:`hinter.rates`, read one
    (model, dataset) at a time."""
    parts = []
    for group in by_model_and_dataset(files):
        frames = [read_outcomes(f, RATE_COLUMNS) for f in group]
        frame = pd.concat(frames, ignore_index=True)
        frame["mutation"] = [kind_of(int(o), 2) for o in frame["order"]]
        parts.append(statistics.document_counts(frame, by=["model", "dataset", "mutation"]))
        log.info("%s/%s: %d outcome rows", group[0].model, group[0].dataset, len(frame))
    if not parts:
        return pd.DataFrame(columns=["model", "dataset", "mutation", "doc_id", *statistics.COLUMNS])
    return pd.concat(parts, ignore_index=True)


POSITIVE_INPUTS = ("errors", "decided", "false_positives", "discarded_decided")


def _positive_rates(totals: pd.DataFrame) -> pd.DataFrame:
    r = rates.add_invariant_rates(
        rates.add_rates(
            totals.assign(generated=0, valid=0, hidden=0, hidden_base=0, hidden_artifact=0)
        )
    )
    return pd.DataFrame(
        {
            "error_rate": r["error_rate"],
            "discarded_error_rate": r["discarded_error_rate"],
            "false_positive_share": r["false_positive_share"],
            "difference": r["discarded_error_rate"] - r["error_rate"],
        }
    )


def pooled_models(docs: pd.DataFrame, discarded_models: Sequence[str] | None) -> list[str]:
    """The models Fig. 8b's Total pools: those that predicted their discarded mutants (the
    paper's RQ3.2 totals are over its fine-tuned encoders only, 001 l.426), given by the config
    (:func:`hinter.plan.discarded_models`) or, without it, those with a discarded mutant of
    known outcome; every model when none did (true positives only)."""
    models = list(dict.fromkeys(docs["model"]))
    if discarded_models is None:
        found = docs.groupby("model")["discarded_decided"].sum()
        discarded_models = [m for m in models if found.get(m, 0) > 0]
    pooled = [m for m in models if m in set(discarded_models)]
    return pooled or models


POSITIVE_KEYS = ["model_label", "dataset_label", "mutation"]
POSITIVE_COUNTS = ["generated", "discarded", *POSITIVE_INPUTS]
POSITIVE_RATES = ["error_rate", "discarded_error_rate", "false_positive_share", "difference"]


def _positive_view(docs: pd.DataFrame, pooled: Sequence[str]) -> pd.DataFrame:
    """Per-document counts at every pooling level: per (model, dataset), per model over
    datasets, the ``pooled`` models over everything; per mutation kind and every kind pooled."""
    parts = []
    for by_kind in (True, False):
        base = docs if by_kind else docs.assign(mutation=EVERY)
        in_total = base[base["model"].isin(pooled)]
        parts += [
            base.assign(model_label=base["model"], dataset_label=base["dataset"]),
            base.assign(model_label=base["model"], dataset_label=ALL),
            in_total.assign(model_label=TOTAL, dataset_label=ALL),
        ]
    view = pd.concat(parts, ignore_index=True)
    keys = [*POSITIVE_KEYS, *CLUSTER]
    return view.groupby(keys, sort=True)[POSITIVE_COUNTS].sum().reset_index()


def _positive_totals(view: pd.DataFrame, boot: Bootstrap) -> pd.DataFrame:
    """The view's counts summed per row, with their rates and intervals (fractions)."""
    keys = POSITIVE_KEYS
    boxes = statistics.bootstrap(
        view, POSITIVE_INPUTS, _positive_rates, keys, CLUSTER,
        boot.resamples, boot.seed, boot.confidence, SHARES,
    )  # fmt: skip
    wide = boxes.pivot(index=keys, columns="rate", values=["low", "high"])
    totals = view.groupby(keys, sort=True)[POSITIVE_COUNTS].sum().reset_index()
    totals = pd.concat([totals, _positive_rates(totals)], axis=1)
    idx = pd.MultiIndex.from_frame(totals[keys])
    for name in POSITIVE_RATES:
        for end in ("low", "high"):
            totals[f"{name}_{end}"] = wide[(end, name)].reindex(idx).to_numpy()
    # discarded mutants without any outcome were not predicted (invariant.keep_discarded:
    # false): their bias is unknown, not absent
    unknown = (totals["discarded"] > 0) & (totals["discarded_decided"] == 0)
    for name in POSITIVE_RATES[1:]:
        for suffix in ("", "_low", "_high"):
            totals.loc[unknown, f"{name}{suffix}"] = np.nan
    totals["documents"] = boxes.drop_duplicates(keys).set_index(keys)["documents"][idx].to_numpy()
    enough = totals["documents"] >= statistics.MIN_DOCUMENTS  # one document: a point interval
    significant = enough & ((totals["difference_low"] > 0) | (totals["difference_high"] < 0))
    totals["significant"] = significant.astype("boolean").mask(totals["difference"].isna())
    totals["predicted_discarded"] = ~unknown
    return totals


def _positives_markdown(shown: pd.DataFrame) -> pd.DataFrame:
    """The Markdown view of the rows pooled over datasets."""

    def cell(row, name: str) -> str:
        if not row["predicted_discarded"] and name != "error_rate":
            return "not predicted"
        return interval_cell(
            row[f"{name}_pct"],
            row[f"{name}_pct_low"],
            row[f"{name}_pct_high"],
            scale=1,
            signed=name == "difference",
            missing="",
        )

    rows = [r for _, r in shown.iterrows()]
    predicted = shown["predicted_discarded"]
    return pd.DataFrame(
        {
            "Model": [style.name("models", m) for m in shown["model"]],
            "Mutation": shown["mutation"],
            "True positives": shown["true_positives"].astype(str),
            "False positives": [
                str(fp) if p else "not predicted"
                for fp, p in zip(shown["false_positives"], predicted, strict=True)
            ],
            "FP share (%)": [cell(r, "false_positive_share") for r in rows],
            "Error rate, valid (%)": [cell(r, "error_rate") for r in rows],
            "Error rate, discarded (%)": [cell(r, "discarded_error_rate") for r in rows],
            "Difference": [cell(r, "difference") for r in rows],
            "Significant": [
                scores.significance(s, n) if p else ""
                for s, n, p in zip(shown["significant"], shown["documents"], predicted, strict=True)
            ],
        }
    )


def positives(
    docs: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    boot: Bootstrap,
    discarded_models: Sequence[str] | None = None,
) -> Table:
    """Fig. 8b's data: true positives (bias-inducing valid mutants) and false positives
    (bias-inducing discarded ones) per model, dataset and mutation kind, pooled over datasets
    and over the models that predicted their discarded mutants (:func:`pooled_models`), with
    the error rates of valid and discarded mutants, their difference, and the share of false
    positives, each with an interval."""
    if docs.empty:
        return _empty(POSITIVE_COLUMNS, "Fig. 8b — true vs false positives", "No outcomes.")
    pooled = pooled_models(docs, discarded_models)
    totals = _positive_totals(_positive_view(docs, pooled), boot).rename(
        columns={"model_label": "model", "dataset_label": "dataset", "errors": "true_positives"}
    )
    totals = in_order(
        totals,
        {
            "model": [*models, TOTAL],
            "dataset": [*datasets, ALL],
            "mutation": mutation_order(totals["mutation"]),
        },
    )
    for name in POSITIVE_RATES:
        for suffix in ("", "_low", "_high"):
            totals[f"{name}{suffix}"] = 100 * totals[f"{name}{suffix}"]
    csv = totals.rename(
        columns={f"{n}{s}": f"{n}_pct{s}" for n in POSITIVE_RATES for s in ("", "_low", "_high")}
    )[POSITIVE_COLUMNS]
    total_scope = (
        " (the models that predicted their discarded mutants)"
        if len(pooled) < len(set(docs["model"]))
        else ""
    )
    text = caption(
        3,
        "positives",
        boot.describe(),
        f"""{TOTAL} pools {", ".join(pooled)}{total_scope}, mutants of order N ≤ {RQ_ORDER}.
        Paper: {PAPER["false_positives"]} false vs {PAPER["true_positives"]} true positives
        ({PAPER["false_positive_share"]:.2f}% false), over its 16 fine-tuned encoders on the
        four legal datasets.""",
    )
    note = ""
    if len(csv) > 0 and not csv["predicted_discarded"].any():
        note = (
            prose(
                """**Discarded mutants were not predicted** in this run
            (invariant.keep_discarded: false), so false positives cannot be counted: only the
            true positives are shown. Rerun with invariant.keep_discarded: true to measure
            them."""
            )
            + "\n\n"
        )
    md = _positives_markdown(csv[csv["dataset"] == ALL])
    body = note + (
        markdown_table(md, right=list(md.columns[2:-1])) if len(md) else "No outcomes.\n"
    )
    return Table(csv, document("Fig. 8b — true vs false positives", prose(text), body))


# ---------------------------------------------------------------------------------------------
# Fig. 8c: grammar scores of valid vs discarded mutants


def grammar_validity(frame: pd.DataFrame, boot: Bootstrap) -> Table:
    """Fig. 8c's data: pooled grammar scores of originals, valid and discarded mutants per
    mutation kind and all kinds pooled; valid mutants compared with their originals, discarded
    ones with the valid ones and with the originals."""
    if len(frame):
        originals = frame[frame["kind"] == "original"]
        # every kind pooled: an original sampled for two orders is one text, counted once
        pooled_originals = originals.drop_duplicates(["model", "dataset", "doc_id"])
        mutants = frame[frame["kind"] == "mutant"]
        frame = pd.concat(
            [frame, pooled_originals.assign(mutation=EVERY), mutants.assign(mutation=EVERY)],
            ignore_index=True,
        )
    is_mutant = frame["kind"] == "mutant"
    valid = frame["valid"].astype("boolean").fillna(False).astype(bool)
    groups = {
        (ORIGINAL, ALL_OUTCOMES): frame["kind"] == "original",
        (VALID, ALL_OUTCOMES): is_mutant & valid,
        (DISCARDED, ALL_OUTCOMES): is_mutant & ~valid & frame["valid"].notna(),
    }
    table = scores.score_rows(frame, groups, boot)
    # the paper's three comparisons (002 RQ3.3); a discarded mutant has a row for each of its two
    pairs = [
        ((VALID, ALL_OUTCOMES), (ORIGINAL, ALL_OUTCOMES)),
        ((DISCARDED, ALL_OUTCOMES), (VALID, ALL_OUTCOMES)),
        ((DISCARDED, ALL_OUTCOMES), (ORIGINAL, ALL_OUTCOMES)),
    ]
    diffs = scores.compare(frame, groups, pairs, boot)
    text = caption(
        3,
        "grammar_validity",
        boot.describe(),
        f"""Paper (Grammarly): valid {PAPER["valid_score"]:.2f}% vs originals
        {PAPER["valid_original_score"]:.2f}%, discarded {PAPER["discarded_score"]:.2f}% vs
        originals {PAPER["original_score"]:.2f}%.""",
    )
    title = "Fig. 8c — grammar scores of valid vs discarded mutants"
    out = scores.score_table(table, diffs, boot, (ORIGINAL, VALID, DISCARDED), title, prose(text))
    if len(out.data):  # "all" first, as Fig. 7 and 8b
        data = in_order(out.data, {"mutation": mutation_order(out.data["mutation"])})
        out = Table(data, out.markdown)
    return out


# ---------------------------------------------------------------------------------------------
# Writing the tables


def _rq3_orders(score_files: Sequence[ScoreFile]) -> pd.DataFrame:
    """The scored texts of order N ≤ :data:`RQ_ORDER`: RQ3.3's pooled ``all`` rows must not
    mix in RQ5's three-attribute suite (review 2026-11-28 G14)."""
    frame = scores.read_scores(score_files)
    return frame[frame["order"].astype(int) <= RQ_ORDER].reset_index(drop=True)


def build_tables(
    *,
    shards: Sequence[ValidityShard],
    summaries: Sequence[ValiditySummary],
    outcome_files: Sequence[OutcomeFile],
    score_files: Sequence[ScoreFile],
    datasets: Sequence[str],
    boot: Bootstrap,
    discarded_models: Sequence[str] | None = None,
) -> dict[str, Table]:
    """Every RQ3 table. RQ3 covers the mutants of order N ≤ :data:`RQ_ORDER` (002 RQ3: "all
    mutants", 129M/132M, the conference version's suites): RQ5's higher-order suites are
    reported by RQ5 and left out here."""
    shards = [s for s in shards if suite_order(s.suite) <= RQ_ORDER]
    outcome_files = [f for f in outcome_files if f.order <= RQ_ORDER]
    models = list(dict.fromkeys(f.model for f in outcome_files))
    builders = {
        "validity": lambda: validity(
            document_validity(shards), read_summaries(summaries), datasets, boot
        ),
        "positives": lambda: positives(
            document_positives(outcome_files), models, datasets, boot, discarded_models
        ),
        "grammar_validity": lambda: grammar_validity(_rq3_orders(score_files), boot),
    }
    return {name: builders[name]() for name in TABLES}


def write_tables(out_dir: str | Path, **inputs) -> list[Path]:
    """Write every RQ3 table to ``out_dir`` (keyword inputs of :func:`build_tables`)."""
    written: list[Path] = []
    for name, table in build_tables(**inputs).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(3, name).extensions)
    return written
