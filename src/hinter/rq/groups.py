"""Group-level bias (issue 13 item 8; MUTAINT ``000`` Table 4, Lalor et al. ``003``): error
rates per attribute class (GAB) and per intersectional class combination (GIB), per model and
dataset and pooled, with bootstrap intervals, groups above their scope's mean flagged (when
their errors come from :data:`hinter.statistics.MIN_DOCUMENTS` documents); and a
heatmap of the intersectional groups. Written by rule ``rq1_groups`` as RQ1 outputs
(subcategory "Group bias").

The grouping is :mod:`hinter.rq.group_bias` (Fairlearn's ``MetricFrame``): a mutant belongs to the
classes its pairs swap *to* (``target_class``) — ``British -> Pakistani`` speaks of the class of
``Pakistani`` — and classes are split into the families their pairings connect, as Table 4's
fine-grained (R1) and coarse (R2) race groups. Only valid mutants count, so only they are read:
one (model, dataset) at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from hinter import io, statistics, tables
from hinter.plots import style
from hinter.render import Table, document, markdown_table, percent, write_table
from hinter.rq import definitions, group_bias, outputs
from hinter.rq.intervals import Bootstrap, cell
from hinter.rq.ordering import in_order
from hinter.rq.outcomes import OutcomeFile, by_model_and_dataset
from hinter.statistics import MIN_DOCUMENTS

log = logging.getLogger(__name__)

PART = "groups"
TABLES = outputs.names(1, outputs.TABLE, PART)
SIDE = "target"  # a mutant's group: the classes it swaps to
FAMILIES = "pairing"  # split an attribute's classes into the families its pairs connect
ALL = "All"
TOTAL = "Total"
SEP = group_bias.GROUP_SEPARATOR
COLUMNS = [
    "doc_id",
    "order",
    "attributes",
    "pair_ids",
    "valid",
    "biased",
    "parents_valid",
    "parent_biased",
]
KEYS = ["model", "dataset", "kind", "scope", "attributes", "group"]
# A biased group needs its errors from several documents: one error (or one document's) above
# a small mean is no evidence (issue 31, G7). The table's caption says it.
FLAG_RULE = (
    f"A group is flagged (Above mean: yes; counted in X/Y) only when its rate is above its "
    f"scope's mean and its bias-inducing mutants come from at least {MIN_DOCUMENTS} original "
    f"documents (CSV error_documents); above the mean on fewer it reads "
    f'"{statistics.TOO_FEW}" and is not counted.'
)


def read_valid(files: Sequence[OutcomeFile]) -> pd.DataFrame:
    """The valid mutants of some outcome files (the columns the groups need), streamed batch
    by batch: discarded mutants (most of them, in the paper) are never held in memory."""
    parts = []
    for f in files:
        for t in io.iter_batches(f.path, COLUMNS, schema=tables.OUTCOMES):
            parts.append(t.filter(pc.fill_null(t["valid"], False)))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pa.concat_tables(parts).to_pandas()


def collect(files: Sequence[OutcomeFile], pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (model, dataset): the groups' table (:func:`hinter.rq.group_bias.group_rates`) and their
    per-document counts (for the intervals), one (model, dataset) read at a time."""
    rated, docs = [], []
    for group in by_model_and_dataset(files):
        model, dataset = group[0].model, group[0].dataset
        frame = read_valid(group)
        if frame.empty:
            continue
        t = group_bias.group_rates(frame, pairs, side=SIDE, families=FAMILIES)
        rated.append(t.assign(model=model, dataset=dataset))
        d = group_bias.group_document_counts(frame, pairs, side=SIDE)
        docs.append(d.assign(model=model, dataset=dataset))
        log.info("%s/%s: %d valid mutants, %d groups", model, dataset, len(frame), len(t))
    table = pd.concat(rated, ignore_index=True) if rated else pd.DataFrame()
    counts = pd.concat(docs, ignore_index=True) if docs else pd.DataFrame()
    return table, counts


def with_intervals(table: pd.DataFrame, docs: pd.DataFrame, boot: Bootstrap) -> pd.DataFrame:
    """Per (model, dataset) groups and the groups pooled over every model and dataset
    ("Total"/"All"), each with the interval of its error rate (a bootstrap over original
    documents; pooled: over (dataset, document), every model's mutants of a document together)
    and ``error_documents``, the original documents its bias-inducing mutants come from. A
    group stays flagged (``above_mean``) only when they are at least
    :data:`hinter.statistics.MIN_DOCUMENTS` (:data:`FLAG_RULE`)."""
    pooled = group_bias.pool_groups(table.drop(columns=["model", "dataset"]))
    pooled = pooled.assign(model=TOTAL, dataset=ALL)
    frames = []
    for part, by, cluster in (
        (table, ["model", "dataset"], ("doc_id",)),
        (pooled, [], ("dataset", "doc_id")),
    ):
        keys = [*by, "attributes", "group"]
        boot_rows = statistics.bootstrap_rates(
            docs, keys, cluster, boot.resamples, boot.seed, boot.confidence
        )
        boot_rows = boot_rows[boot_rows["rate"] == "error_rate"][[*keys, "low", "high"]]
        hit = docs[docs["errors"] > 0].drop_duplicates([*keys, *cluster])
        found = hit.groupby(keys, sort=True).size().rename("error_documents").reset_index()
        merged = part.merge(boot_rows, on=keys, how="left", validate="one_to_one")
        frames.append(merged.merge(found, on=keys, how="left", validate="one_to_one"))
    full = pd.concat(frames, ignore_index=True)
    full["error_documents"] = full["error_documents"].fillna(0).astype("int64")
    full["above_mean"] = full["above_mean"] & (full["error_documents"] >= MIN_DOCUMENTS)
    return full


def group_table(
    files: Sequence[OutcomeFile],
    pairs: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    boot: Bootstrap,
) -> Table:
    """The ``group_bias`` table: every group's error rate with its interval and flag, per model
    and dataset and pooled; its Markdown shows Table 4 (biased groups per scope) pooled and per
    model and dataset, and the pooled groups."""
    table, docs = collect(files, pairs)
    title = "Group-level bias — error rates per attribute class and class combination"
    caption = definitions.caption(1, "group_bias", boot.describe(), FLAG_RULE)
    if table.empty:
        csv = pd.DataFrame(columns=_csv_columns([]))
        return Table(csv, document(title, caption, "No valid mutants with a known outcome.\n"))
    full = with_intervals(table, docs, boot)
    attributes = sorted(group_bias.class_columns(table, ["model", "dataset"]))
    full = in_order(
        full,
        {"model": [*models, TOTAL], "dataset": [*datasets, ALL], "kind": ["GAB", "GIB"]},
        then=["scope", "group"],
    )
    csv = full.rename(
        columns={
            "error_rate": "error_rate_pct",
            "scope_mean": "scope_mean_pct",
            "scope_rate": "scope_rate_pct",
        }
    )
    for c in ("error_rate_pct", "scope_mean_pct", "scope_rate_pct", "low", "high"):
        csv[c] = 100 * csv[c]
    csv = csv[_csv_columns(attributes)]

    summary = group_bias.group_summary(full, ["model", "dataset"], examples=8)
    summary = in_order(summary, {"model": [TOTAL, *models], "dataset": [ALL, *datasets]})
    pooled_summary = summary[summary["model"] == TOTAL]
    per_run = summary[summary["model"] != TOTAL]
    sections = [
        "## All models and datasets (MUTAINT Table 4)\n",
        markdown_table(_summary_md(pooled_summary), right=["Avg. (%)", "X/Y"]),
        "## Groups, all models and datasets\n",
        markdown_table(
            _groups_md(csv[csv["model"] == TOTAL]),
            right=["Mutants", "Errors", "Error rate (%)", "Parity gap"],
        ),
        "## Per model and dataset\n",
        markdown_table(_summary_md(per_run, with_run=True), right=["Avg. (%)", "X/Y"]),
    ]
    return Table(csv, document(title, caption, "\n".join(sections)))


def _csv_columns(attributes: Sequence[str]) -> list[str]:
    return [
        *KEYS,
        *attributes,
        "decided",
        "errors",
        "error_documents",
        "error_rate_pct",
        "low",
        "high",
        "scope_rate_pct",
        "scope_mean_pct",
        "above_mean",
        "parity_gap",
        "fairness_violation",
    ]


def _summary_md(summary: pd.DataFrame, with_run: bool = False) -> pd.DataFrame:
    out = {}
    if with_run:
        out["Model"] = [style.name("models", m) for m in summary["model"]]
        out["Dataset"] = [style.name("datasets", d) for d in summary["dataset"]]
    out.update(
        {
            "Kind": summary["kind"],
            "Scope": summary["scope"],
            "Avg. (%)": summary["mean_rate"].map(percent),
            "X/Y": [
                f"{b}/{g}" for b, g in zip(summary["biased_groups"], summary["groups"], strict=True)
            ],
            "Biased groups (highest rate first)": summary["examples"],
        }
    )
    return pd.DataFrame(out)


def _groups_md(rows: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Kind": rows["kind"],
            "Scope": rows["scope"],
            "Group": rows["group"],
            "Mutants": rows["decided"].astype(str),
            "Errors": rows["errors"].astype(str),
            "Error rate (%)": [
                cell(v, lo, hi, scale=1, missing="")
                for v, lo, hi in zip(rows["error_rate_pct"], rows["low"], rows["high"], strict=True)
            ],
            "Above mean": [
                "yes" if flag else statistics.TOO_FEW if rate > mean else "no"
                for flag, rate, mean in zip(
                    rows["above_mean"], rows["error_rate_pct"], rows["scope_mean_pct"], strict=True
                )
            ],
            "Parity gap": rows["parity_gap"].map(lambda v: f"{v:.4f}"),
        }
    )


def build_tables(files, pairs, models, datasets, boot) -> dict[str, Table]:
    builders = {"group_bias": lambda: group_table(files, pairs, models, datasets, boot)}
    return {name: builders[name]() for name in TABLES}


def write_tables(
    files: Sequence[OutcomeFile],
    pairs_path: str | Path,
    out_dir: str | Path,
    *,
    datasets: Sequence[str],
    boot: Bootstrap,
) -> list[Path]:
    """Write the group tables to ``out_dir``; the paths."""
    pairs = io.read_parquet(
        pairs_path, columns=["pair_id", "attribute", "source_class", "target_class"]
    ).to_pandas()
    models = list(dict.fromkeys(f.model for f in files))
    present = [d for d in datasets if d in {f.dataset for f in files}]
    written: list[Path] = []
    for name, table in build_tables(files, pairs, models, present, boot).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(1, name).extensions)
    return written
