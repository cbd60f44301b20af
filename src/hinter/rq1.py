"""RQ1 effectiveness (DESIGN §3): paper Table 3, the data of Figs. 4–6, the truth table and
hidden-bias examples like Tables 1 and 4, as CSV and Markdown under ``results/<run>/rq1/``.

Every number is a pooled count from :mod:`hinter.rates`. Outcome files are read one at a time
(only the columns the rates need), so memory follows one (model, dataset, suite) at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hinter import io, rates, tables
from hinter.edits import Edit, as_edits
from hinter.errors import DataError
from hinter.oracle import PARENT_DISCARDED, patterns, suite_attributes
from hinter.report_tables import escape_markdown, markdown_table, percent, write_csv, write_markdown

log = logging.getLogger(__name__)

# Base names of the RQ1 outputs; each is written as <name>.csv and <name>.md.
TABLES = (
    "table3",
    "atomic_rates",
    "rates_by_suite",
    "distinct_originals",
    "truth_table",
    "correctness",
    "hidden_examples",
)
ALL = "All"
TOTAL = "Total"
NOT_TESTED = "N/A"
ORDINALS = ("I", "II", "III", "IV", "V")


def _prose(text: str) -> str:
    return " ".join(text.split())


# Captions of the Markdown tables (one paragraph each).
CAPTIONS = {
    name: _prose(text)
    for name, text in {
        "table3": f"""
            Each cell: intersectional error rate I (hidden rate H), in percent. I = bias-inducing
            valid intersectional mutants / valid intersectional mutants; H = hidden /
            bias-inducing valid intersectional mutants whose atomic parents are all valid.
            Totals pool the counts (not the rates). {NOT_TESTED} = not tested; – = nothing to
            divide.""",
        "atomic_rates": """
            Bias-inducing valid atomic mutants / valid atomic mutants, in percent (paper
            Fig. 5a); totals pool the counts.""",
        "rates_by_suite": """
            Generated = mutants of the suite; Valid = passed the dependency invariant; Errors =
            bias-inducing valid mutants (true positives); False positives = bias-inducing
            discarded mutants. Rates in percent.""",
        "distinct_originals": """
            Originals with at least one bias-inducing valid mutant / originals with at least one
            valid mutant, in percent (bias-inducing/tested), pooled over datasets; Total pools
            (model, original) pairs. Per-dataset counts are in the CSV.""",
        "truth_table": """
            Outcomes of valid intersectional mutants whose atomic parents are all valid, pooled
            over models and datasets: (mutant, parent 1, parent 2[, parent 3]) with E = error
            (bias) and B = benign, parents in the order of the suite name (race+gender: race,
            gender). Hidden bias = E,B,B. Percent of the cells' total; 'parent discarded'
            counts valid mutants with a discarded parent (outside the table).""",
        "artifact": """
            Hidden intersectional bias ({cell}): {hidden} of {base} bias-inducing mutants with
            valid parents ({rate}%). The original artifact's condition, read by Python as
            'atomic 1 benign and atomic 2 biased', counts {artifact} ({artifact_rate}%) instead
            (DESIGN §8); the tables use the correct definition.""",
        "correctness": """
            Outcomes against the gold labels of the originals and mutants of every bias error
            (intersectional) and hidden bias error, in percent of N (one per bias error). right =
            the predicted label set equals the gold set; no_answer = an empty prediction where
            the dataset gives the empty set no meaning; unknown = no gold labels.""",
        "hidden_examples": """
            Up to {k} hidden-bias examples per model and dataset (N={order}): the original, its
            atomic mutants (no bias, ✓) and the intersectional mutant (bias, X), with the
            model's predictions. Edited words are in **bold**; … marks omitted text.""",
    }.items()
}

# Columns of the outcome rows the tables need (labels are left on disk).
RATE_COLUMNS = [
    "doc_id",
    "suite",
    "order",
    "valid",
    "biased",
    "parents_valid",
    "parent_biased",
    "correct_original",
    "correct_mutant",
]

# results/<run>/examples/<model>/<dataset>/<suite>.parquet — hidden-bias examples of one suite:
# one row per line of a paper-style example table (original, atomic I.., intersectional).
# text: a window of context around the edits, as Markdown with the edited words in **bold**.
EXAMPLES = pa.schema(
    [
        pa.field("model", pa.string()),
        pa.field("dataset", pa.string()),
        pa.field("suite", pa.string()),
        pa.field("doc_id", pa.string()),
        pa.field("mutant_id", pa.string()),  # the intersectional mutant of the example
        pa.field("line", pa.int8()),  # 0 original, 1..N atomic parents, N+1 intersectional
        pa.field("type", pa.string()),
        pa.field("attributes", pa.string()),
        pa.field("mutations", pa.string()),
        pa.field("text", pa.string()),
        pa.field("prediction", pa.string()),
        pa.field("bias", pa.string()),  # "-" original, "✓" benign, "X" bias
    ]
)


@dataclass(frozen=True)
class OutcomeFile:
    """One outcomes file and the (model, dataset, suite) it belongs to."""

    model: str
    dataset: str
    suite: str
    path: Path

    @property
    def order(self) -> int:
        return len(suite_attributes(self.suite))


def _kind(order: int, intersectional_order: int) -> str:
    if order == 1:
        return "atomic"
    return "intersectional" if order == intersectional_order else f"intersectional (N={order})"


@dataclass
class Collected:
    """Everything RQ1 counts, per (model, dataset, suite), before pooling."""

    counts: pd.DataFrame  # rates.counts per (model, dataset, suite, order)
    originals: pd.DataFrame  # originals / bias_inducing per (model, dataset, kind)
    truth: pd.DataFrame  # rates.truth_table per (model, dataset, suite)
    correctness: pd.DataFrame  # rates.correctness per (model, dataset, population)
    models: list[str]
    datasets: list[str]


def collect(files: Sequence[OutcomeFile], intersectional_order: int = 2) -> Collected:
    """Read the outcome files one by one and keep only their counts.

    Files are taken (model, dataset) by (model, dataset), so the per-original flags that
    distinct originals need (an original counts once over a kind's suites) only ever cover
    one model and dataset.
    """
    counts, originals, truth, correct = [], [], [], []
    models = list(dict.fromkeys(f.model for f in files))
    datasets = list(dict.fromkeys(f.dataset for f in files))
    groups: dict[tuple[str, str], list[OutcomeFile]] = {}
    for f in files:
        groups.setdefault((f.model, f.dataset), []).append(f)
    for group in groups.values():
        flags = []
        for f in group:
            frame = io.read_parquet(f.path, tables.OUTCOMES, columns=RATE_COLUMNS).to_pandas()
            frame.insert(0, "dataset", f.dataset)
            frame.insert(0, "model", f.model)
            frame["suite"] = f.suite
            frame["order"] = f.order
            key = ["model", "dataset", "suite", "order"]
            counts.append(rates.counts(frame, by=key) if len(frame) else _empty_counts(f))
            kind = _kind(f.order, intersectional_order)
            flags.append(rates.document_flags(frame, by=["model", "dataset"]).assign(kind=kind))
            if f.order >= 2 and len(frame):
                truth.append(rates.truth_table(frame, by=["model", "dataset", "suite"]))
            if f.order == intersectional_order:
                for population in ("errors", "hidden"):
                    c = rates.correctness(frame, by=["model", "dataset"], population=population)
                    correct.append(c.assign(population=population))
            log.info("%s: %d outcome rows", f.path, len(frame))
        combined = rates.combine_flags(flags, by=["model", "dataset", "kind"])
        originals.append(rates.distinct_originals(combined, ["model", "dataset", "kind"]))
    return Collected(
        counts=pd.concat(counts, ignore_index=True) if counts else _empty_counts(None),
        originals=_concat(
            originals, ["model", "dataset", "kind", "originals", "bias_inducing", "share"]
        ),
        truth=_concat(truth, ["model", "dataset", "suite", "order", "pattern", "count"]),
        correctness=_concat(
            correct, ["model", "dataset", "input", "outcome", "count", "population"]
        ),
        models=models,
        datasets=datasets,
    )


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def _empty_counts(f: OutcomeFile | None) -> pd.DataFrame:
    row: dict[str, Any] = dict.fromkeys(rates.COUNT_COLUMNS, 0)
    if f is None:
        return pd.DataFrame(columns=["model", "dataset", "suite", "order", *rates.COUNT_COLUMNS])
    return pd.DataFrame(
        [{"model": f.model, "dataset": f.dataset, "suite": f.suite, "order": f.order, **row}]
    )


# ---------------------------------------------------------------------------------------------
# Table 3 and the atomic error rates: dataset x model, with pooled totals


def rate_grid(counts: pd.DataFrame, models: Sequence[str], datasets: Sequence[str]) -> pd.DataFrame:
    """Pooled counts and rates per (dataset, model), per dataset over models ("Total"), per
    model over datasets ("All") and overall; only combinations that were tested."""
    tested = counts[["model", "dataset"]].drop_duplicates()
    parts = [
        rates.pool(counts, ["dataset", "model"]),
        rates.pool(counts, ["dataset"]).assign(model=TOTAL),
        rates.pool(counts, ["model"]).assign(dataset=ALL),
        rates.pool(counts).assign(dataset=ALL, model=TOTAL),
    ]
    grid = pd.concat([p for p in parts if len(p)], ignore_index=True)
    grid = rates.add_rates(grid)
    tested_keys = set(tested.itertuples(index=False, name=None))
    keep = [
        m == TOTAL or d == ALL or (m, d) in tested_keys
        for m, d in zip(grid["model"], grid["dataset"], strict=True)
    ]
    grid = grid[keep]
    rank_d = {d: i for i, d in enumerate([*datasets, ALL])}
    rank_m = {m: i for i, m in enumerate([*models, TOTAL])}
    grid = grid.assign(_d=grid["dataset"].map(rank_d), _m=grid["model"].map(rank_m))
    return grid.sort_values(["_d", "_m"]).drop(columns=["_d", "_m"]).reset_index(drop=True)


def _grid_markdown(
    grid: pd.DataFrame, models: Sequence[str], datasets: Sequence[str], cell
) -> pd.DataFrame:
    by_key = {(r["dataset"], r["model"]): r for _, r in grid.iterrows()}
    rows = []
    for d in [*datasets, ALL]:
        row = {"Dataset": d}
        for m in [*models, TOTAL]:
            r = by_key.get((d, m))
            row[m] = NOT_TESTED if r is None else cell(r)
        rows.append(row)
    return pd.DataFrame(rows)


def _document(title: str, caption: str, body: str) -> str:
    """A table's Markdown file: its title, its caption (``CAPTIONS``) and the table."""
    return "\n".join([f"# {title}", "", CAPTIONS[caption], "", body])


def table3(collected: Collected, order: int = 2) -> tuple[pd.DataFrame, str]:
    """Paper Table 3: intersectional error rate I and hidden rate H, dataset x model."""
    counts = collected.counts[collected.counts["order"] == order]
    grid = rate_grid(counts, collected.models, collected.datasets)
    csv = pd.DataFrame(
        {
            "dataset": grid["dataset"],
            "model": grid["model"],
            "valid": grid["valid"],
            "decided": grid["decided"],
            "errors": grid["errors"],
            "error_rate_pct": 100 * grid["error_rate"],
            "hidden_base": grid["hidden_base"],
            "hidden": grid["hidden"],
            "hidden_rate_pct": 100 * grid["hidden_rate"],
        }
    )
    md = _grid_markdown(
        grid,
        collected.models,
        collected.datasets,
        lambda r: f"{percent(r['error_rate'])} ({percent(r['hidden_rate'])})",
    )
    return csv, _document(
        f"Table 3 — intersectional (N={order}) and hidden error rates",
        "table3",
        markdown_table(md, right=[*collected.models, TOTAL]),
    )


def atomic_rates(collected: Collected) -> tuple[pd.DataFrame, str]:
    """Atomic error rates (Fig. 5a), dataset x model, with pooled totals."""
    counts = collected.counts[collected.counts["order"] == 1]
    grid = rate_grid(counts, collected.models, collected.datasets)
    csv = pd.DataFrame(
        {
            "dataset": grid["dataset"],
            "model": grid["model"],
            "valid": grid["valid"],
            "decided": grid["decided"],
            "errors": grid["errors"],
            "error_rate_pct": 100 * grid["error_rate"],
        }
    )
    md = _grid_markdown(
        grid, collected.models, collected.datasets, lambda r: percent(r["error_rate"])
    )
    return csv, _document(
        "Atomic error rates", "atomic_rates", markdown_table(md, right=[*collected.models, TOTAL])
    )


def rates_by_suite(collected: Collected) -> tuple[pd.DataFrame, str]:
    """Every count and rate per (model, dataset, suite), including the artifact's hidden count."""
    c = rates.add_rates(collected.counts)
    model_rank = {m: i for i, m in enumerate(collected.models)}
    data_rank = {d: i for i, d in enumerate(collected.datasets)}
    c = c.assign(_m=c["model"].map(model_rank), _d=c["dataset"].map(data_rank))
    c = (
        c.sort_values(["_m", "_d", "order", "suite"])
        .drop(columns=["_m", "_d"])
        .reset_index(drop=True)
    )
    csv = c[["model", "dataset", "suite", "order", *rates.COUNT_COLUMNS]].copy()
    for name in ("error_rate", "hidden_rate", "hidden_rate_artifact", "valid_share"):
        csv[f"{name}_pct"] = 100 * c[name]
    md = pd.DataFrame(
        {
            "Model": c["model"],
            "Dataset": c["dataset"],
            "Suite": c["suite"],
            "Generated": c["generated"].astype(str),
            "Valid": c["valid"].astype(str),
            "Errors": c["errors"].astype(str),
            "Error rate": c["error_rate"].map(percent),
            "Hidden": c["hidden"].astype(str),
            "Hidden rate": c["hidden_rate"].map(percent),
            "False positives": c["false_positives"].astype(str),
        }
    )
    return csv, _document(
        "Counts and rates per suite",
        "rates_by_suite",
        markdown_table(md, right=list(md.columns[3:])),
    )


def distinct_originals(collected: Collected) -> tuple[pd.DataFrame, str]:
    """Share of originals with >= 1 bias-inducing valid mutant (Figs. 4b, 5b), per model and
    dataset, pooled over datasets ("All") and over models ("Total" counts (model, original))."""
    per_run = collected.originals

    def pooled(by: list[str]) -> pd.DataFrame:
        if per_run.empty:
            return per_run
        out = per_run.groupby(by, sort=True)[["originals", "bias_inducing"]].sum().reset_index()
        out["share"] = (out["bias_inducing"] / out["originals"].astype(float)).where(
            out["originals"] > 0
        )
        return out

    table = _concat(
        [
            per_run,
            pooled(["model", "kind"]).assign(dataset=ALL),
            pooled(["kind"]).assign(model=TOTAL, dataset=ALL),
        ],
        ["model", "dataset", "kind", "originals", "bias_inducing", "share"],
    )
    model_rank = {m: i for i, m in enumerate([*collected.models, TOTAL])}
    data_rank = {d: i for i, d in enumerate([*collected.datasets, ALL])}
    table = table.assign(_m=table["model"].map(model_rank), _d=table["dataset"].map(data_rank))
    table = table.sort_values(["_m", "_d", "kind"]).reset_index(drop=True)
    csv = table[["model", "dataset", "kind", "originals", "bias_inducing"]].assign(
        share_pct=100 * table["share"]
    )
    kinds = sorted(table["kind"].unique(), key=lambda k: (k != "intersectional", k != "atomic", k))
    pooled = table[table["dataset"] == ALL]
    rows = []
    for m in [*collected.models, TOTAL]:
        row = {"Model": m}
        for k in kinds:
            hit = pooled[(pooled["model"] == m) & (pooled["kind"] == k)]
            row[k] = "–" if hit.empty else _share_cell(hit.iloc[0])
        rows.append(row)
    return csv, _document(
        "Distinct bias-inducing originals",
        "distinct_originals",
        markdown_table(pd.DataFrame(rows), right=kinds),
    )


def _share_cell(row: pd.Series) -> str:
    return f"{percent(row['share'])} ({row['bias_inducing']}/{row['originals']})"


def truth_table(collected: Collected) -> tuple[pd.DataFrame, str]:
    """Truth-table cells pooled over models and datasets, per suite and per order, with the
    original artifact's hidden count beside the correct one (DESIGN §8)."""
    truth = collected.truth
    per_suite = (
        truth.groupby(["order", "suite", "pattern"], sort=False)["count"].sum().reset_index()
    )
    per_order = truth.groupby(["order", "pattern"], sort=False)["count"].sum().reset_index()
    per_order["suite"] = TOTAL
    long = pd.concat([per_suite, per_order], ignore_index=True)
    records = []
    sections = [
        "# Truth table",
        "",
        CAPTIONS["truth_table"],
        "",
    ]
    counts = collected.counts
    for order in sorted(long["order"].unique()):
        part = long[long["order"] == order]
        suites = [s for s in dict.fromkeys(part["suite"]) if s != TOTAL] + [TOTAL]
        cells = [*patterns(int(order)), PARENT_DISCARDED]
        found = {(r.suite, r.pattern): int(r.count) for r in part.itertuples()}
        totals = {s: sum(found.get((s, c), 0) for c in patterns(int(order))) for s in suites}

        def share(suite: str, cell: str, found=found, totals=totals) -> float:
            n = found.get((suite, cell), 0)
            return n / totals[suite] if totals[suite] and cell != PARENT_DISCARDED else float("nan")

        for s in suites:
            for cell in cells:
                n = found.get((s, cell), 0)
                records.append(
                    {
                        "order": int(order),
                        "suite": s,
                        "pattern": cell,
                        "count": n,
                        "share_pct": 100 * share(s, cell),
                    }
                )
        md_rows = [
            {
                "Cell": cell,
                **{
                    s: str(found.get((s, cell), 0))
                    + ("" if cell == PARENT_DISCARDED else f" ({percent(share(s, cell))})")
                    for s in suites
                },
            }
            for cell in cells
        ]
        sections += [f"## N = {order}", "", markdown_table(pd.DataFrame(md_rows), right=suites)]
        c = rates.add_rates(rates.pool(counts[counts["order"] == order]))
        if len(c):
            r = c.iloc[0]
            sections.append(
                CAPTIONS["artifact"].format(
                    cell=",".join(["E"] + ["B"] * int(order)),
                    hidden=int(r["hidden"]),
                    base=int(r["hidden_base"]),
                    rate=percent(r["hidden_rate"]),
                    artifact=int(r["hidden_artifact"]),
                    artifact_rate=percent(r["hidden_rate_artifact"]),
                )
                + "\n"
            )
    if len(long) == 0:
        sections.append("No intersectional outcomes.\n")
    csv = pd.DataFrame(records, columns=["order", "suite", "pattern", "count", "share_pct"])
    return csv, "\n".join(sections)


def correctness(collected: Collected) -> tuple[pd.DataFrame, str]:
    """Right / wrong / no-answer outcomes of bias-inducing originals vs mutants (Fig. 6), for
    intersectional and hidden bias errors, per model and pooled."""
    c = collected.correctness
    per_model = (
        c.groupby(["population", "model", "input", "outcome"], sort=False)["count"]
        .sum()
        .reset_index()
    )
    pooled = c.groupby(["population", "input", "outcome"], sort=False)["count"].sum().reset_index()
    pooled["model"] = TOTAL
    long = pd.concat([per_model, pooled], ignore_index=True)
    long["n"] = long.groupby(["population", "model", "input"])["count"].transform("sum")
    long["share_pct"] = (100 * long["count"] / long["n"].astype(float)).where(long["n"] > 0)
    model_rank = {m: i for i, m in enumerate([*collected.models, TOTAL])}
    pop_rank = {"errors": 0, "hidden": 1}
    in_rank = {"original": 0, "mutant": 1}
    out_rank = {o: i for i, o in enumerate(rates.CORRECTNESS_OUTCOMES)}
    long = long.assign(
        _p=long["population"].map(pop_rank),
        _m=long["model"].map(model_rank),
        _i=long["input"].map(in_rank),
        _o=long["outcome"].map(out_rank),
    ).sort_values(["_p", "_m", "_i", "_o"])
    csv = long[["population", "model", "input", "outcome", "count", "share_pct"]].reset_index(
        drop=True
    )
    csv["population"] = csv["population"].map({"errors": "intersectional", "hidden": "hidden"})
    md_rows = []
    for (pop, model, inp), part in csv.groupby(["population", "model", "input"], sort=False):
        shares = dict(zip(part["outcome"], part["share_pct"], strict=True))
        row = {"Bias": pop, "Model": model, "Input": inp, "N": str(int(part["count"].sum()))}
        for o in rates.CORRECTNESS_OUTCOMES:
            v = shares.get(o)
            row[o] = percent(None if v is None else v / 100)
        md_rows.append(row)
    return csv, _document(
        "Correctness of bias-inducing inputs",
        "correctness",
        markdown_table(pd.DataFrame(md_rows), right=["N", *rates.CORRECTNESS_OUTCOMES])
        if md_rows
        else "No bias errors.\n",
    )


# ---------------------------------------------------------------------------------------------
# Hidden-bias examples (paper Tables 1 and 4)


def _windows(text: str, spans: Iterable[tuple[int, int]], context: int) -> list[tuple[int, int]]:
    """Merged windows of ``context`` characters around each span, widened to whole words."""
    out: list[list[int]] = []
    n = len(text)
    for s, e in sorted(spans):
        ws, we = max(0, s - context), min(n, e + context)
        for _ in range(20):
            if ws > 0 and not text[ws - 1].isspace():
                ws -= 1
        for _ in range(20):
            if we < n and not text[we].isspace():
                we += 1
        if out and ws <= out[-1][1]:
            out[-1][1] = max(out[-1][1], we)
        else:
            out.append([ws, we])
    return [(a, b) for a, b in out]


def highlight(
    text: str, edits: Sequence[Edit], marks: Sequence[tuple[int, int]], context: int
) -> str:
    """Markdown of ``text`` with ``edits`` applied, showing only windows around ``marks`` (spans of
    the original); applied replacements, and marks without an edit, are in **bold**."""
    windows = _windows(text, marks, context)
    by_start = {e.start: e for e in edits}
    bold_only = {(s, e) for s, e in marks if s not in by_start}
    pieces = []
    for ws, we in windows:
        parts = []
        cursor = ws
        for s, e in sorted({*((x.start, x.end) for x in edits), *bold_only}):
            if s < ws or e > we:
                continue
            parts.append(escape_markdown(text[cursor:s]))
            if s in by_start:
                replacement = by_start[s].replacement
                parts.append(f"**{escape_markdown(replacement)}**" if replacement else "")
            else:
                parts.append(f"**{escape_markdown(text[s:e])}**")
            cursor = e
        parts.append(escape_markdown(text[cursor:we]))
        pieces.append("".join(parts).strip())
    if not windows:
        return ""
    head = "… " if windows[0][0] > 0 else ""
    tail = " …" if windows[-1][1] < len(text) else ""
    return head + " … ".join(pieces) + tail


def label_text(labels: Sequence[int] | None, meta: Mapping[str, Any]) -> str:
    """Label names of a prediction (meta.json display names); the empty set is the dataset's
    empty label ("none") or "no answer"."""
    if labels is None:
        return "?"
    if len(labels) == 0:
        return meta.get("empty_label_name") or "no answer"
    names = meta.get("display_names") or meta.get("label_names") or []
    return "; ".join(names[i] if 0 <= i < len(names) else str(i) for i in sorted(set(labels)))


def _mutation_text(text: str, edits: Sequence[Edit]) -> str:
    return "; ".join(f"{text[e.start : e.end]} → {e.replacement}" for e in edits)


def select_hidden(outcomes: pd.DataFrame, k: int) -> pd.DataFrame:
    """The k hidden mutants with the smallest ids (content hashes: a stable pseudo-random pick)."""
    chosen = outcomes[outcomes["hidden"].fillna(False).astype(bool)]
    return chosen.sort_values("mutant_id").head(k)


def render_examples(
    chosen: pd.DataFrame,
    mutants: pa.Table,
    texts: Mapping[str, str],
    meta: Mapping[str, Any],
    *,
    model: str = "",
    dataset: str = "",
    context: int = 60,
) -> pa.Table:
    """Example-table lines (``EXAMPLES``) of the chosen outcome rows: the original, each atomic
    parent and the intersectional mutant, with predictions and the edits in bold."""
    rows_by_id = {r["mutant_id"]: r for r in mutants.to_pylist()}
    lines = []
    for r in chosen.to_dict("records"):
        doc, mid, suite = r["doc_id"], r["mutant_id"], r["suite"]
        if doc not in texts:
            raise DataError(f"example {mid}: text of document {doc} not found")
        text = texts[doc]
        try:
            m_row = rows_by_id[mid]
            parents = [rows_by_id[p] for p in r["parent_ids"]]
        except KeyError as exc:
            raise DataError(
                f"example {mid}: mutant {exc.args[0]} not found in the suite's mutants"
            ) from None
        m_edits = sorted(as_edits(m_row["edits"]))
        p_edits = [sorted(as_edits(p["edits"])) for p in parents]
        marks = sorted(
            {(e.start, e.end) for e in m_edits} | {(e.start, e.end) for es in p_edits for e in es}
        )
        attrs = [p["attributes"][0] for p in parents]
        base = {"model": model, "dataset": dataset, "suite": suite, "doc_id": doc, "mutant_id": mid}
        lines.append(
            {
                **base,
                "line": 0,
                "type": "Original",
                "attributes": "-",
                "mutations": "-",
                "text": highlight(text, [], marks, context),
                "prediction": label_text(r["labels_original"], meta),
                "bias": "-",
            }
        )
        for j, (attr, edits) in enumerate(zip(attrs, p_edits, strict=True)):
            lines.append(
                {
                    **base,
                    "line": j + 1,
                    "type": f"Atomic {ORDINALS[j]}",
                    "attributes": attr.capitalize(),
                    "mutations": _mutation_text(text, edits),
                    "text": highlight(text, edits, marks, context),
                    "prediction": label_text(_at(r["parent_labels"], j), meta),
                    "bias": "X" if _at(r["parent_biased"], j) else "✓",
                }
            )
        lines.append(
            {
                **base,
                "line": len(parents) + 1,
                "type": "Intersectional",
                "attributes": " & ".join(a.capitalize() for a in attrs),
                "mutations": _mutation_text(text, m_edits),
                "text": highlight(text, m_edits, marks, context),
                "prediction": label_text(r["labels_mutant"], meta),
                "bias": "X" if r["biased"] else "✓",
            }
        )
    return pa.Table.from_pylist(lines, schema=EXAMPLES)


def _at(values, j):
    return None if values is None else values[j]


def _read_matching(
    path: str | Path, schema: pa.Schema, key: str, wanted: Iterable[str], columns=None
) -> pa.Table:
    """Rows of a Parquet file whose ``key`` is wanted, read batch by batch."""
    columns = list(columns or schema.names)
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found")
    value_set = pa.array(sorted(set(wanted)), type=pa.string())
    try:
        pf = pq.ParquetFile(path)
        parts = [
            t.filter(pc.is_in(t[key], value_set=value_set))
            for t in (pa.Table.from_batches([b]) for b in pf.iter_batches(columns=columns))
        ]
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(
            f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})"
        ) from None
    wanted_schema = pa.schema([schema.field(c) for c in columns])
    if not parts:
        return wanted_schema.empty_table()
    return io.conform(pa.concat_tables(parts), wanted_schema, where=str(path))


def write_hidden_examples(
    *,
    model: str,
    dataset: str,
    suite: str,
    outcomes: str | Path,
    mutants: Sequence[str | Path],
    docs: Sequence[str | Path],
    meta: Mapping[str, Any] | str | Path,
    output: str | Path,
    k: int = 5,
    context: int = 60,
) -> int:
    """Render up to ``k`` hidden-bias examples of one suite to ``output`` (``EXAMPLES``);
    only the chosen mutants and their documents are read from the shard files."""
    if not isinstance(meta, Mapping):
        meta = io.read_json(meta)
    columns = [
        "mutant_id", "doc_id", "suite", "parent_ids", "biased", "parent_biased", "hidden",
        "labels_original", "labels_mutant", "parent_labels",
    ]  # fmt: skip
    frame = io.read_parquet(outcomes, tables.OUTCOMES, columns=columns).to_pandas()
    chosen = select_hidden(frame, k)
    wanted = set(chosen["mutant_id"]) | {p for ps in chosen["parent_ids"] for p in ps}
    doc_ids = set(chosen["doc_id"])
    mutant_rows, texts = [], {}
    if wanted:
        mutant_rows = [_read_matching(p, tables.MUTANTS, "mutant_id", wanted) for p in mutants]
        for p in docs:
            t = _read_matching(
                p, tables.TESTED_DOCUMENTS, "doc_id", doc_ids, columns=["doc_id", "text"]
            )
            texts.update(zip(t["doc_id"].to_pylist(), t["text"].to_pylist(), strict=True))
    table = render_examples(
        chosen,
        pa.concat_tables(mutant_rows) if mutant_rows else tables.MUTANTS.empty_table(),
        texts,
        meta,
        model=model,
        dataset=dataset,
        context=context,
    )
    io.write_parquet(table, output, EXAMPLES)
    return len(chosen)


def hidden_examples(
    example_files: Sequence[str | Path], collected: Collected, k: int, order: int = 2
) -> tuple[pd.DataFrame, str]:
    """The first ``k`` examples (by mutant id) per (model, dataset) over the suites of ``order``."""
    parts = [io.read_parquet(p, EXAMPLES).to_pandas() for p in example_files]
    frame = pd.concat(parts, ignore_index=True) if parts else EXAMPLES.empty_table().to_pandas()
    frame = frame.loc[[len(suite_attributes(s)) == order for s in frame["suite"]]]
    model_rank = {m: i for i, m in enumerate(collected.models)}
    data_rank = {d: i for i, d in enumerate(collected.datasets)}
    keep = []
    for (_, _), part in frame.groupby(["model", "dataset"], sort=False):
        ids = sorted(part["mutant_id"].unique())[:k]
        keep.append(part[part["mutant_id"].isin(ids)])
    frame = pd.concat(keep, ignore_index=True) if keep else frame
    frame = frame.assign(
        _m=frame["model"].map(model_rank).fillna(len(model_rank)),
        _d=frame["dataset"].map(data_rank).fillna(len(data_rank)),
    )
    frame = frame.sort_values(["_m", "_d", "model", "dataset", "mutant_id", "line"])
    frame = frame.drop(columns=["_m", "_d"]).reset_index(drop=True)
    sections = [
        "# Hidden intersectional bias examples",
        "",
        CAPTIONS["hidden_examples"].format(k=k, order=order),
        "",
    ]
    for (model, dataset), part in frame.groupby(["model", "dataset"], sort=False):
        md = pd.DataFrame(
            {
                "ID": [
                    d if line == 0 else ""
                    for d, line in zip(part["doc_id"], part["line"], strict=True)
                ],
                "Sensitive attributes": part["attributes"],
                "Mutations": part["mutations"],
                "Type": part["type"],
                "Text": part["text"],
                "Prediction": part["prediction"],
                "Bias": part["bias"],
            }
        )
        sections += [f"## {model} on {dataset}", "", markdown_table(md, raw=["Text"])]
    if frame.empty:
        sections.append("No hidden intersectional bias was found.\n")
    return frame, "\n".join(sections)


# ---------------------------------------------------------------------------------------------


def write_rq1(
    outcome_files: Sequence[OutcomeFile],
    example_files: Sequence[str | Path],
    out_dir: str | Path,
    *,
    datasets: Sequence[str] | None = None,
    examples: int = 5,
    order: int = 2,
) -> list[Path]:
    """Write every RQ1 table (``TABLES``, each as .csv and .md) to ``out_dir``; return the paths."""
    out_dir = Path(out_dir)
    collected = collect(outcome_files, intersectional_order=order)
    if datasets is not None:
        collected.datasets = [d for d in datasets if d in collected.datasets]
    written: list[Path] = []
    builders = {
        "table3": lambda: table3(collected, order),
        "atomic_rates": lambda: atomic_rates(collected),
        "rates_by_suite": lambda: rates_by_suite(collected),
        "distinct_originals": lambda: distinct_originals(collected),
        "truth_table": lambda: truth_table(collected),
        "correctness": lambda: correctness(collected),
        "hidden_examples": lambda: hidden_examples(example_files, collected, examples, order),
    }
    for name in TABLES:
        csv, md = builders[name]()
        written.append(write_csv(csv, out_dir / f"{name}.csv"))
        written.append(write_markdown([md], out_dir / f"{name}.md"))
    return written
