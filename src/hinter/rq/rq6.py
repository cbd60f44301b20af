"""RQ6 sensitivity (docs/design.md §3): paper Fig. 11 (error and hidden rates over repeated runs and
alternative prompt templates) and Fig. 12 (error and hidden rates, and the model's accuracy,
against a confidence threshold), with their data, under ``results/<run>/rq6/``.

Both use the intersectional suites of the RQ's order (N=2). Fig. 11 compares each variant with
the default one by a paired bootstrap over the original documents both tested
(:func:`hinter.statistics.compare_rates`). Fig. 12 re-decides every pair under each threshold
from the confidences the outcomes keep, by the configured rule (:data:`hinter.rates.EXCLUDE`:
a pair below the threshold leaves the counts; :data:`hinter.rates.BENIGN`: it counts as
benign); the table carries both rules, the figure draws the configured one and the other dashed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import rates, statistics
from hinter.layout import DEFAULT_VARIANT, Variant
from hinter.render import Table, document, markdown_table, write_table
from hinter.rq import intervals, outputs
from hinter.rq.definitions import caption, describe
from hinter.rq.ordering import in_order
from hinter.rq.outcomes import RATE_COLUMNS, THRESHOLD_COLUMNS, OutcomeFile, read_outcomes

log = logging.getLogger(__name__)

TABLES = outputs.names(6, outputs.TABLE)
RATES = ("error_rate", "hidden_rate")
RUNS = "runs"
PROMPTS = "prompts"

ACCURACY_RATES = ("original_accuracy", "original_kept", "mutant_accuracy", "mutant_kept")
ACCURACY_COLUMNS = ["doc_id", "valid", "confidence_original", "confidence", "correct_original",
                    "correct_mutant"]  # fmt: skip


GREEDY, SAMPLED = "greedy", "sampled"  # sensitivity.runs_decoding
RUNS_NOTE = {
    GREEDY: "greedy decoding: a local model's repeated runs are identical by design",
    SAMPLED: "sampled, one seed per run; the greedy default run is not among them",
}


UNTESTED = "No model in this run is tested for sensitivity (config `sensitivity`).\n"


def _table(csv: pd.DataFrame, title: str, caption: str, sections: Sequence[str]) -> Table:
    """A table's CSV rows and its Markdown document of ``sections``."""
    return Table(csv, document(title, caption, "\n".join(sections)))


def group_of(variant: str, runs_decoding: str = GREEDY) -> list[str]:
    """The groups a variant belongs to: repeats in runs, templates in prompts; the default in
    both, except that sampled repeats (``runs_decoding: sampled``, the paper's "three
    additional runs") form the runs group without the greedy default."""
    v = Variant.from_name(variant)
    if v.is_default:
        return [PROMPTS] if runs_decoding == SAMPLED else [RUNS, PROMPTS]
    return [RUNS] if v.prompt == DEFAULT_VARIANT else [PROMPTS]


# ---------------------------------------------------------------------------------------------
# Fig. 11: runs and prompts


def variant_counts(files: Sequence[OutcomeFile], order: int = 2) -> pd.DataFrame:
    """Per-document counts by (model, dataset, variant) of the suites of ``order``."""
    parts = []
    for f in files:
        if f.order != order:
            continue
        frame = read_outcomes(f, RATE_COLUMNS).assign(variant=f.variant)
        parts.append(statistics.document_counts(frame, by=["model", "dataset", "variant"]))
    # the suites of one (model, dataset, variant) on one document are one unit
    return intervals.combine_document_counts(parts, ["model", "dataset", "variant", "doc_id"])


VERSUS = ("difference", "low", "high", "p_value", "significant")  # each variant vs default


def variants(
    doc_counts: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    variant_names: Sequence[str],
    stats: Mapping[str, Any],
    order: int = 2,
    runs_decoding: str = GREEDY,
) -> Table:
    """Fig. 11's data: per (model, dataset, variant) the two rates with intervals, and each
    non-default variant's difference from the default with its p-value. ``runs_decoding``:
    how the repeated runs decoded (:func:`group_of`), said beside the runs' spread."""
    if runs_decoding not in RUNS_NOTE:
        raise ValueError(f"sensitivity.runs_decoding {runs_decoding!r}: use greedy or sampled")
    keys = ["model", "dataset", "variant"]
    grid = intervals.totals_intervals(
        doc_counts, statistics.RATE_INPUTS, statistics.rate_table, RATES, keys, **stats
    )
    grid = in_order(grid, {"model": models, "dataset": datasets, "variant": variant_names})
    records = []
    for _, r in grid.iterrows():
        record = {k: r[k] for k in keys}
        record["groups"] = ";".join(group_of(r["variant"], runs_decoding))
        for c in ("decided", "errors", "hidden_base", "hidden"):
            record[c] = int(r[c])
        for c in intervals.percent_columns(RATES):
            record[c] = r[c]
        sides = (doc_counts["model"] == r["model"]) & (doc_counts["dataset"] == r["dataset"])
        default = doc_counts[sides & (doc_counts["variant"] == DEFAULT_VARIANT)]
        mine = doc_counts[sides & (doc_counts["variant"] == r["variant"])]
        for rate in RATES:
            for c in VERSUS:
                record[f"{rate}_vs_default_{c}"] = None
        if r["variant"] != DEFAULT_VARIANT and len(default):
            compared = statistics.compare_rates(mine, default, **stats).set_index("rate")
            for rate in RATES:
                row = compared.loc[rate]
                record[f"{rate}_vs_default_difference"] = 100 * row["difference"]
                record[f"{rate}_vs_default_low"] = 100 * row["low"]
                record[f"{rate}_vs_default_high"] = 100 * row["high"]
                record[f"{rate}_vs_default_p_value"] = row["p_value"]
                record[f"{rate}_vs_default_significant"] = bool(row["significant"])
                record[f"_{rate}_sentence"] = intervals.comparison_sentence(
                    f"{r['variant']} vs default", rate, row
                )
        records.append(record)
    columns = [*keys, "groups", "decided", "errors", "hidden_base", "hidden"]
    columns += intervals.percent_columns(RATES)
    columns += [f"{rate}_vs_default_{c}" for rate in RATES for c in VERSUS]
    # the header even without a row: a run with no variants still gets a CSV its figure reads
    csv = pd.DataFrame([{k: r[k] for k in columns} for r in records], columns=columns)
    sections = []
    for (model, dataset), part in _by_run(records):
        md = pd.DataFrame(
            {
                "Variant": [r["variant"] for r in part],
                "Error rate": [
                    intervals.percent_cell(r, "error_rate") + _star(r, "error_rate") for r in part
                ],
                "Hidden rate": [
                    intervals.percent_cell(r, "hidden_rate") + _star(r, "hidden_rate") for r in part
                ],
                "Errors / decided": [f"{r['errors']}/{r['decided']}" for r in part],
                "Hidden / base": [f"{r['hidden']}/{r['hidden_base']}" for r in part],
            }
        )
        sections += [f"## {model} on {dataset}", "", markdown_table(md, right=list(md.columns[1:]))]
        notes = [r[f"_{rate}_sentence"] for r in part for rate in RATES if f"_{rate}_sentence" in r]
        for group in (RUNS, PROMPTS):
            members = [r for r in part if group in r["groups"].split(";")]
            alone = group == RUNS and runs_decoding == SAMPLED  # one sampled run: said too
            if len(members) > 1 or (alone and members):
                for rate in RATES:
                    values = pd.Series([r[f"{rate}_pct"] for r in members], dtype=float)
                    values = values.dropna()  # a variant with nothing to divide has no rate
                    if values.empty:
                        continue
                    variance = f"{values.var(ddof=1):.2f}" if len(values) > 1 else "–"
                    how = f"; {RUNS_NOTE[runs_decoding]}" if group == RUNS else ""
                    notes.append(
                        f"{group} ({', '.join(r['variant'] for r in members)}{how}), "
                        f"{rate.replace('_', ' ')}: {values.min():.2f}–{values.max():.2f}, "
                        f"mean {values.mean():.2f}, variance {variance}"
                    )
        sections.append("".join(f"- {n}\n" for n in notes))
    return _table(
        csv,
        "Fig. 11 data — error rates over runs and prompt templates",
        caption(6, "variants", _order_note(order), describe(stats)),
        sections or ["No model in this run has variants (config `sensitivity`).\n"],
    )


def _order_note(order: int) -> str:
    return f"Intersectional mutants of order N={order}."


def _star(r: Mapping[str, Any], rate: str) -> str:
    return " *" if r.get(f"{rate}_vs_default_significant") else ""


def _by_run(records: list[dict]) -> list[tuple[tuple[str, str], list[dict]]]:
    runs: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        runs.setdefault((r["model"], r["dataset"]), []).append(r)
    return list(runs.items())


# ---------------------------------------------------------------------------------------------
# Fig. 12: confidence thresholds


def threshold_counts(
    files: Sequence[OutcomeFile], thresholds: Sequence[float], order: int = 2
) -> pd.DataFrame:
    """Per-document counts by (model, dataset, rule, threshold) of the suites of ``order``,
    one file at a time."""
    parts = []
    for f in files:
        if f.order != order:
            continue
        frame = read_outcomes(f, RATE_COLUMNS + THRESHOLD_COLUMNS)
        for rule in rates.THRESHOLD_RULES:
            for t in thresholds:
                counts = statistics.document_counts(
                    frame, by=["model", "dataset"], threshold=float(t), rule=rule
                )
                parts.append(counts.assign(rule=rule, threshold=float(t)))
        log.info("%s: %d outcome rows", f.path, len(frame))
    keys = ["model", "dataset", "rule", "threshold", "doc_id"]
    return intervals.combine_document_counts(parts, keys)


def thresholds_table(
    doc_counts: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    rule: str,
    stats: Mapping[str, Any],
    order: int = 2,
) -> Table:
    """Fig. 12's data: per (model, dataset, rule, threshold) the counts and the two rates."""
    keys = ["model", "dataset", "rule", "threshold"]
    grid = intervals.totals_intervals(
        doc_counts, statistics.RATE_INPUTS, statistics.rate_table, RATES, keys, **stats
    )
    other = [r for r in rates.THRESHOLD_RULES if r != rule]
    grid = in_order(
        grid, {"model": models, "dataset": datasets, "rule": [rule, *other]}, then=["threshold"]
    )
    csv = grid[
        [
            *keys,
            "decided",
            "errors",
            *intervals.percent_columns(["error_rate"]),
            "hidden_base",
            "hidden",
            *intervals.percent_columns(["hidden_rate"]),
        ]
    ].copy()
    csv["threshold_pct"] = 100 * csv["threshold"]
    csv = csv.drop(columns="threshold")
    csv.insert(3, "threshold_pct", csv.pop("threshold_pct"))
    sections = []
    mine = csv[csv["rule"] == rule]
    for (model, dataset), part in (
        mine.groupby(["model", "dataset"], sort=False) if len(mine) else []
    ):
        rows = part.to_dict("records")
        md = pd.DataFrame(
            {
                "Threshold (%)": [f"{r['threshold_pct']:g}" for r in rows],
                "Decided": [str(r["decided"]) for r in rows],
                "Error rate": [intervals.percent_cell(r, "error_rate") for r in rows],
                "Hidden / base": [f"{r['hidden']}/{r['hidden_base']}" for r in rows],
                "Hidden rate": [intervals.percent_cell(r, "hidden_rate") for r in rows],
            }
        )
        sections += [
            f"## {model} on {dataset} (rule {rule})",
            "",
            markdown_table(md, right=list(md.columns)),
        ]
    return _table(
        csv,
        "Fig. 12 data — error and hidden rates against a confidence threshold",
        caption(
            6,
            "thresholds",
            _order_note(order),
            f"This run's rule: {rule} (sensitivity.threshold_rule).",
            describe(stats),
        ),
        sections or [UNTESTED],
    )


def accuracy_counts(
    files: Sequence[OutcomeFile], thresholds: Sequence[float], order: int = 2
) -> pd.DataFrame:
    """Per-document counts of Fig. 12 (c), (d) (:func:`hinter.rates.accuracy_counts`) by
    (model, dataset, threshold) over the suites of ``order``, one file at a time."""
    parts = []
    for f in files:
        if f.order != order:
            continue
        frame = read_outcomes(f, ACCURACY_COLUMNS)
        for t in thresholds:
            counts = rates.accuracy_counts(frame, by=["model", "dataset", "doc_id"], threshold=t)
            parts.append(counts.assign(threshold=float(t)))
        log.info("%s: %d outcome rows (accuracy)", f.path, len(frame))
    keys = ["model", "dataset", "threshold", "doc_id"]
    if not parts:
        return pd.DataFrame(columns=[*keys, *rates.ACCURACY_COUNTS])
    grouped = pd.concat(parts, ignore_index=True).groupby(keys, sort=True)
    # a document's original is the same in every suite: counted once, its mutants add up
    originals = [c for c in rates.ACCURACY_COUNTS if c.startswith("originals")]
    mutants = [c for c in rates.ACCURACY_COUNTS if c.startswith("mutants")]
    combined = grouped[originals].max().join(grouped[mutants].sum())
    return combined.reset_index()[[*keys, *rates.ACCURACY_COUNTS]]


def accuracy_table(
    doc_counts: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    order: int = 2,
) -> Table:
    """Fig. 12 (c), (d) data: per (model, dataset, threshold) the accuracy on the originals and
    on the valid mutants among the predictions kept, and the share kept."""
    keys = ["model", "dataset", "threshold"]
    grid = intervals.totals_intervals(
        doc_counts, rates.ACCURACY_COUNTS, rates.add_accuracy_rates, ACCURACY_RATES, keys, **stats
    )
    grid = in_order(grid, {"model": models, "dataset": datasets}, then=["threshold"])
    csv = grid[[*keys, *rates.ACCURACY_COUNTS, *intervals.percent_columns(ACCURACY_RATES)]].copy()
    csv.insert(2, "threshold_pct", 100 * csv.pop("threshold").astype(float))
    sections = []
    for (model, dataset), part in csv.groupby(["model", "dataset"], sort=False) if len(csv) else []:
        rows = part.to_dict("records")
        md = pd.DataFrame(
            {
                "Threshold (%)": [f"{r['threshold_pct']:g}" for r in rows],
                "Originals kept": [f"{r['originals_kept']}/{r['originals']}" for r in rows],
                "Accuracy on originals": [
                    intervals.percent_cell(r, "original_accuracy") for r in rows
                ],
                "Mutants kept": [f"{r['mutants_kept']}/{r['mutants']}" for r in rows],
                "Accuracy on mutants": [intervals.percent_cell(r, "mutant_accuracy") for r in rows],
            }
        )
        sections += [f"## {model} on {dataset}", "", markdown_table(md, right=list(md.columns))]
    return _table(
        csv,
        "Fig. 12 data — accuracy against a confidence threshold",
        caption(6, "accuracy", _order_note(order), describe(stats)),
        sections or [UNTESTED],
    )


# ---------------------------------------------------------------------------------------------
# Writing


def write_tables(
    variant_files: Sequence[OutcomeFile],
    threshold_files: Sequence[OutcomeFile],
    out_dir: str | Path,
    *,
    models: Sequence[str],
    datasets: Sequence[str],
    variant_names: Sequence[str],
    thresholds: Sequence[float],
    rule: str,
    stats: Mapping[str, Any],
    order: int = 2,
    runs_decoding: str = GREEDY,
) -> list[Path]:
    """Write every RQ6 table to ``out_dir``; the paths written."""
    if rule not in rates.THRESHOLD_RULES:
        raise ValueError(
            f"sensitivity.threshold_rule {rule!r}: use one of {', '.join(rates.THRESHOLD_RULES)}"
        )
    builders = {
        "variants": lambda: variants(
            variant_counts(variant_files, order),
            models,
            datasets,
            variant_names,
            stats,
            order,
            runs_decoding,
        ),
        "thresholds": lambda: thresholds_table(
            threshold_counts(threshold_files, thresholds, order),
            models,
            datasets,
            rule,
            stats,
            order,
        ),
        "accuracy": lambda: accuracy_table(
            accuracy_counts(threshold_files, thresholds, order), models, datasets, stats, order
        ),
    }
    written: list[Path] = []
    for name in TABLES:
        written += write_table(
            builders[name](), Path(out_dir) / name, outputs.get(6, name).extensions
        )
    return written
