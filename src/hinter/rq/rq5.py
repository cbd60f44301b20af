"""RQ5 scalability to three attributes (docs/design.md §3): paper Table 5 (atomic, 2- and
3-intersectional mutants: generated, valid, errors, hidden) and a Table-6-style example, under
``results/<run>/rq5/``.

Table 5 covers each (model, dataset) that has a suite of order 3 (paper: Llama 2 on IMDB), and
only the documents that suite covers: its ``max_documents`` limit (the first 10K reviews of the
dataset's tested order, :mod:`hinter.tested_order`) applies to the atomic and 2-intersectional
rows too, so the three rows describe the same originals.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import io, statistics, tables
from hinter.errors import DataError
from hinter.render import Table, document, markdown_table, write_table
from hinter.rq import intervals, outputs
from hinter.rq.definitions import caption, describe
from hinter.rq.examples import examples_table
from hinter.rq.ordering import in_order
from hinter.rq.outcomes import RATE_COLUMNS, OutcomeFile, by_model_and_dataset, read_outcomes

log = logging.getLogger(__name__)

TABLES = outputs.names(5, outputs.TABLE)
SETTINGS = {1: "Atomic", 2: "2-Intersectional", 3: "3-Intersectional"}
RATES = ("valid_share", "error_rate", "hidden_rate")


def setting(order: int) -> str:
    return SETTINGS.get(order, f"{order}-Intersectional")


def read_positions(paths: Sequence[str | Path]) -> dict[str, int]:
    """doc_id -> position of the tested documents of a dataset's shards."""
    out: dict[str, int] = {}
    for p in paths:
        t = io.read_parquet(p, tables.TESTED_DOCUMENTS, columns=["doc_id", "position"])
        out.update(zip(t["doc_id"].to_pylist(), t["position"].to_pylist(), strict=True))
    return out


def document_counts(
    files: Sequence[OutcomeFile],
    limits: Mapping[tuple[str, str], int | None],
    positions: Mapping[str, Mapping[str, int]],
) -> pd.DataFrame:
    """Per-document counts (:func:`hinter.statistics.document_counts`) by (model, dataset,
    order) of every (model, dataset) with a suite of order >= 3, limited to its documents."""
    parts = []
    for group in by_model_and_dataset(files):
        if max(f.order for f in group) < 3:
            continue
        model, dataset = group[0].model, group[0].dataset
        limit = limits.get((model, dataset))
        for f in group:
            frame = read_outcomes(f, RATE_COLUMNS)
            if limit is not None:
                where = positions.get(dataset, {})
                pos = frame["doc_id"].map(where)
                if pos.isna().any():
                    missing = frame.loc[pos.isna(), "doc_id"].iloc[0]
                    raise DataError(f"{f.path}: document {missing} is not among the tested")
                frame = frame[pos < limit]
            # one file at a time: only its per-document counts are kept
            parts.append(statistics.document_counts(frame, by=["model", "dataset", "order"]))
            log.info("%s: %d outcome rows (document limit %s)", f.path, len(frame), limit)
    return intervals.combine_document_counts(parts, ["model", "dataset", "order", "doc_id"])


def table5(
    doc_counts: pd.DataFrame,
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    paper: Mapping[str, Any],
    limits: Mapping[tuple[str, str], int | None],
) -> Table:
    """Paper Table 5 for each (model, dataset) with a suite of order 3, and the tests of the
    3- vs 2-intersectional (and 2-intersectional vs atomic) differences."""
    grid = intervals.totals_intervals(
        doc_counts,
        statistics.RATE_INPUTS,
        statistics.rate_table,
        RATES,
        ["model", "dataset", "order"],
        **stats,
    )
    keys = ["model", "dataset", "order"]
    documents = doc_counts.groupby(keys, sort=False)["doc_id"].nunique().rename("documents")
    grid = grid.merge(documents.reset_index(), on=keys, how="left")
    grid = in_order(grid, {"model": models, "dataset": datasets}, then=["order"])
    by_paper = paper.get("table5", {})
    records = []
    for _, r in grid.iterrows():
        p = by_paper.get(int(r["order"]), {})
        records.append(
            {
                "model": r["model"],
                "dataset": r["dataset"],
                "setting": setting(int(r["order"])),
                "attributes": int(r["order"]),
                "generated": int(r["generated"]),
                "valid": int(r["valid"]),
                **{c: r[c] for c in intervals.percent_columns(["valid_share"])},
                "decided": int(r["decided"]),
                "errors": int(r["errors"]),
                **{c: r[c] for c in intervals.percent_columns(["error_rate"])},
                "documents": int(r["documents"]),
                "hidden_base": int(r["hidden_base"]),
                "hidden": int(r["hidden"]) if r["order"] >= 2 else None,
                **{
                    c: (r[c] if r["order"] >= 2 else None)
                    for c in intervals.percent_columns(["hidden_rate"])
                },
                **{
                    f"paper_{k}": p.get(k)
                    for k in (
                        "generated",
                        "valid",
                        "valid_share",
                        "errors",
                        "error_rate",
                        "hidden",
                        "hidden_rate",
                    )
                },
            }
        )
    csv = pd.DataFrame(records)
    sections = []
    for (model, dataset), part in csv.groupby(["model", "dataset"], sort=False) if len(csv) else []:
        md = pd.DataFrame(
            {
                "Bias setting": part["setting"],
                "Attributes": part["attributes"].astype(str),
                "Generated": part["generated"].map(lambda v: f"{v:,}"),
                "Passed (rate)": [
                    f"{r['valid']:,} ({intervals.percent_cell(r, 'valid_share')})"
                    for r in part.to_dict("records")
                ],
                "Errors (rate)": [
                    f"{r['errors']:,} ({intervals.percent_cell(r, 'error_rate')})"
                    for r in part.to_dict("records")
                ],
                "Hidden (rate)": [
                    "/"
                    if r["attributes"] == 1
                    else f"{int(r['hidden']):,} ({intervals.percent_cell(r, 'hidden_rate')})"
                    for r in part.to_dict("records")
                ],
                "Paper": [_paper_cell(r) for r in part.to_dict("records")],
            }
        )
        limit = limits.get((model, dataset))
        title = f"## {model} on {dataset}" + (f" (first {limit:,} documents)" if limit else "")
        sections += [title, "", markdown_table(md, right=["Attributes", "Generated"])]
        sections.append(_comparisons(doc_counts, model, dataset, stats))
    if not sections:
        sections.append("No model and dataset in this run has a suite of three attributes.\n")
    limit_text = "Each suite's document limit is in its title." if any(limits.values()) else ""
    return Table(
        csv,
        document(
            "Table 5 — atomic, 2- and 3-intersectional bias",
            caption(5, "table5", limit_text, describe(stats)),
            "\n".join(sections),
        ),
    )


def _paper_cell(r: Mapping[str, Any]) -> str:
    """The paper's row: generated; passed (rate); errors (rate); hidden (rate)."""
    if pd.isna(r.get("paper_generated")):
        return ""
    text = (
        f"{int(r['paper_generated']):,}; passed {int(r['paper_valid']):,} "
        f"({r['paper_valid_share']:.2f}); errors {int(r['paper_errors']):,} "
        f"({r['paper_error_rate']:.2f})"
    )
    if not pd.isna(r.get("paper_hidden")):
        text += f"; hidden {int(r['paper_hidden']):,} ({r['paper_hidden_rate']:.2f})"
    return text


def _comparisons(doc_counts: pd.DataFrame, model: str, dataset: str, stats) -> str:
    """One sentence per comparison: the difference, its interval, p and significance."""
    part = doc_counts[(doc_counts["model"] == model) & (doc_counts["dataset"] == dataset)]
    lines = []
    for a, b, names in ((3, 2, ("error_rate", "hidden_rate")), (2, 1, ("error_rate",))):
        side_a, side_b = part[part["order"] == a], part[part["order"] == b]
        if side_a.empty or side_b.empty:
            continue
        result = statistics.compare_rates(side_a, side_b, **stats)
        for name in names:
            row = result[result["rate"] == name].iloc[0]
            lines.append(intervals.comparison_sentence(f"{setting(a)} vs {setting(b)}", name, row))
    return "\n".join(f"- {line}" for line in lines) + ("\n" if lines else "")


def build_tables(
    files: Sequence[OutcomeFile],
    example_files: Sequence[str | Path],
    *,
    models: Sequence[str],
    datasets: Sequence[str],
    stats: Mapping[str, Any],
    paper: Mapping[str, Any],
    limits: Mapping[tuple[str, str], int | None],
    positions: Mapping[str, Mapping[str, int]],
    examples: int = 5,
) -> dict[str, Table]:
    """Every RQ5 table (``TABLES``) by name."""
    doc_counts = document_counts(files, limits, positions)
    builders = {
        "table5": lambda: table5(doc_counts, models, datasets, stats, paper, limits),
        "table6": lambda: examples_table(
            example_files, models, datasets, examples, order=3, output=(5, "table6")
        ),
    }
    return {name: builders[name]() for name in TABLES}


def write_tables(files, example_files, out_dir: str | Path, **kwargs) -> list[Path]:
    """Write every RQ5 table to ``out_dir``; the paths written."""
    written: list[Path] = []
    for name, table in build_tables(files, example_files, **kwargs).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(5, name).extensions)
    return written
