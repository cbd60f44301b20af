"""The paper's numbers beside this run's: every headline number of docs/design.md §7 and every cell
of Table 3 (``002``), with the run's value, its interval where the run's table has one, and
whether the paper's number lies inside it — so a reproducer sees at a glance what matches.

Built from the RQ tables' CSV files (each number is computed once, by its RQ; this module only
looks them up and pools counts) and from the grammar scores of the ``grammar`` stage (their
pooled score and interval by :func:`hinter.grammaticality.summary.pooled_scores`). A number
the run does not cover (a model or dataset it did not test, no N=3 suite, no grammar sample)
is shown as "not run". Registered as ``paper_vs_run`` (:data:`hinter.rq.outputs.COMPARISON`),
written to ``results/<run>/paper/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import io
from hinter.grammaticality.stage import SCORES
from hinter.grammaticality.summary import pooled_scores
from hinter.layout import PAPER
from hinter.render import Table, document, markdown_table, prose, write_table
from hinter.rq import intervals, outputs, paper
from hinter.rq.intervals import Bootstrap

NAME = "paper_vs_run"
# The RQ1 tables it reads (CSV), by name.
SOURCES = outputs.COMPARISON_SOURCES[1]
ALL, TOTAL = "All", "Total"
NOT_RUN = "not run"
COLUMNS = ["section", "quantity", "paper", "run", "run_lo", "run_hi", "unit", "within",
           "note"]  # fmt: skip


def _row(section, quantity, paper_value, run=None, lo=None, hi=None, unit="%", note=""):
    within = intervals.within(paper_value, lo, hi) if run is not None else None
    return {
        "section": section,
        "quantity": quantity,
        "paper": float(paper_value),
        "run": run,
        "run_lo": lo,
        "run_hi": hi,
        "unit": unit,
        "within": {True: "yes", False: "no", None: ""}[within],
        "note": note,
    }


def _lookup(frame: pd.DataFrame, **keys) -> pd.Series | None:
    sel = pd.Series(True, index=frame.index)
    for column, value in keys.items():
        sel &= frame[column].astype(str) == value
    hits = frame[sel]
    return None if hits.empty else hits.iloc[0]


def _rate_row(section, quantity, paper_value, frame, rate, note="", **keys):
    """A row for ``<rate>_pct`` (and its ``_lo_pct``/``_hi_pct``) of the row of ``keys``."""
    hit = _lookup(frame, **keys)
    if hit is None or pd.isna(hit[f"{rate}_pct"]):
        return _row(section, quantity, paper_value, note=note)
    lo, hi = hit.get(f"{rate}_lo_pct"), hit.get(f"{rate}_hi_pct")
    return _row(section, quantity, paper_value, float(hit[f"{rate}_pct"]),
                None if lo is None or pd.isna(lo) else float(lo),
                None if hi is None or pd.isna(hi) else float(hi), note=note)  # fmt: skip


def table3_rows(table3: pd.DataFrame) -> list[dict]:
    """Every cell of the paper's Table 3 (I and H per dataset x model, the "All" row from
    RQ1's pooled numbers) beside the run's cell with its interval."""
    p = paper.RQ1
    grid = {d: dict(cells) for d, cells in paper.TABLE3.items()}
    grid[ALL] = {
        **{m: (i, p["hidden_rate_by_model"][m])
           for m, i in p["intersectional_error_rate_by_model"].items()},
        TOTAL: (p["intersectional_error_rate"], p["hidden_rate"]),
    }  # fmt: skip
    rows = []
    for dataset, cells in grid.items():
        for model, cell in cells.items():
            if cell is None:  # N/A in the paper: not tested there either
                continue
            where = f"{dataset} × {model}"
            rows.append(_rate_row("Table 3", f"I, {where}", cell[0], table3, "error_rate",
                                  dataset=dataset, model=model))  # fmt: skip
            rows.append(_rate_row("Table 3", f"H, {where}", cell[1], table3, "hidden_rate",
                                  dataset=dataset, model=model))  # fmt: skip
    return rows


def _share_row(section, quantity, paper_value, distinct, kind, model=TOTAL):
    hit = _lookup(distinct, model=model, dataset=ALL, kind=kind)
    if hit is None or pd.isna(hit["share_pct"]):
        return _row(section, quantity, paper_value)
    row = _rate_row(section, quantity, paper_value, distinct, "share", model=model,
                    dataset=ALL, kind=kind)  # fmt: skip
    row["note"] = f"{int(hit['bias_inducing'])} of {int(hit['originals'])} originals"
    return row


def rq1_rows(tables: Mapping[str, pd.DataFrame]) -> list[dict]:
    """RQ1's headline numbers (§7): I, H, atomic error rates, distinct originals."""
    p, t3, atomic = paper.RQ1, tables["table3"], tables["atomic_rates"]
    distinct = tables["distinct_originals"]
    return [
        _rate_row("RQ1", "Intersectional error rate I, all models and datasets",
                  p["intersectional_error_rate"], t3, "error_rate", dataset=ALL, model=TOTAL),
        _rate_row("RQ1", "Hidden rate H, all models and datasets", p["hidden_rate"], t3,
                  "hidden_rate", dataset=ALL, model=TOTAL),
        _share_row("RQ1", "Originals with ≥ 1 intersectional bias",
                   p["distinct_intersectional_originals"], distinct, "intersectional"),
        _rate_row("RQ1", "Atomic error rate, all models", p["atomic_error_rate"], atomic,
                  "error_rate", dataset=ALL, model=TOTAL),
        _rate_row("RQ1", "Atomic error rate, gpt35", p["atomic_error_rate_gpt35"], atomic,
                  "error_rate", dataset=ALL, model="gpt35"),
        _share_row("RQ1", "Originals with ≥ 1 atomic bias", p["distinct_atomic_originals"],
                   distinct, "atomic"),
        _share_row("RQ1", "Originals with ≥ 1 atomic bias, gpt35",
                   p["distinct_atomic_originals_gpt35"], distinct, "atomic", model="gpt35"),
    ]  # fmt: skip


def grammar_rows(scores: pd.DataFrame, boot: Bootstrap) -> list[dict]:
    """RQ2: the pooled grammar score of the sampled originals vs the valid mutants, with the
    interval of :func:`~hinter.grammaticality.summary.pooled_scores` (over documents)."""
    h = paper.HEADLINES
    groups = {"original": "Grammar score of originals", "valid": "Grammar score of valid mutants"}
    if scores.empty:
        return [_row("RQ2", q, h[f"grammar_{k}"], note="no grammar sample")
                for k, q in (("originals", groups["original"]),
                             ("valid_mutants", groups["valid"]))]  # fmt: skip
    original = scores["kind"] == "original"
    valid = scores["valid"].astype("boolean").fillna(False).astype(bool)
    group = pd.Series(None, index=scores.index, dtype=object)
    group[original] = "original"
    group[~original & valid] = "valid"
    frame = scores.assign(group=group).dropna(subset=["group"])
    pooled = pooled_scores(frame, ["group"], ["dataset", "doc_id"], boot.resamples, boot.seed,
                           boot.confidence).set_index("group")  # fmt: skip
    rows = []
    for key, paper_key in (("original", "grammar_originals"), ("valid", "grammar_valid_mutants")):
        if key not in pooled.index:
            rows.append(_row("RQ2", groups[key], h[paper_key]))
            continue
        r = pooled.loc[key]
        note = f"{int(r['texts'])} texts, checker {', '.join(sorted(set(scores['checker'])))}"
        rows.append(_row("RQ2", groups[key], h[paper_key], float(r["score"]), float(r["low"]),
                         float(r["high"]), note=note))  # fmt: skip
    return rows


def rq3_rows(by_suite: pd.DataFrame) -> list[dict]:
    """RQ3: the share of mutants discarded and the false vs true positives, pooled over every
    (model, dataset, suite) tested (the paper's totals)."""
    h = paper.HEADLINES
    total = by_suite[["mutants", "valid", "errors", "false_positives"]].sum()
    mutants, valid = int(total["mutants"]), int(total["valid"])
    fp, tp = int(total["false_positives"]), int(total["errors"])
    if mutants == 0:
        return [_row("RQ3", q, h[k], unit=u) for q, k, u in (
            ("Mutants discarded by the invariant", "discarded_share", "%"),
            ("False positives (bias-inducing discarded mutants)", "false_positives", "count"),
            ("True positives (bias-inducing valid mutants)", "true_positives", "count"),
        )]  # fmt: skip
    discarded = 100 * (mutants - valid) / mutants
    note = f"{mutants - valid:,} of {mutants:,} tested mutants, every model"
    return [
        _row("RQ3", "Mutants discarded by the invariant", h["discarded_share"], discarded,
             note=note),
        _row("RQ3", "False positives (bias-inducing discarded mutants)", h["false_positives"],
             fp, unit="count"),
        _row("RQ3", "True positives (bias-inducing valid mutants)", h["true_positives"], tp,
             unit="count"),
    ]  # fmt: skip


def rq5_rows(by_suite: pd.DataFrame) -> list[dict]:
    """RQ5: error and hidden rates per order over the (model, dataset) runs with an N=3 suite
    (the paper: Llama 2 on the first 10K IMDB reviews)."""
    h = paper.HEADLINES
    runs = by_suite.loc[by_suite["order"] == 3, ["model", "dataset"]].drop_duplicates()
    part = by_suite.merge(runs, on=["model", "dataset"])
    note = ", ".join(f"{m} on {d}" for m, d in runs.itertuples(index=False)) or NOT_RUN
    names = {1: "atomic", 2: "2-intersectional", 3: "3-intersectional"}
    rows = []
    for order, name in names.items():
        c = part[part["order"] == order][["decided", "errors", "hidden_base", "hidden"]].sum()
        for rate, num, den, paper_numbers in (
            ("error rate", "errors", "decided", h["rq5_error_rate"]),
            ("hidden rate", "hidden", "hidden_base", h["rq5_hidden_rate"]),
        ):
            if order not in paper_numbers:
                continue
            value = 100 * c[num] / c[den] if len(runs) and c[den] > 0 else None
            rows.append(_row("RQ5", f"{name.capitalize()} {rate}", paper_numbers[order], value,
                             note=note if value is not None else ""))  # fmt: skip
    return rows


def comparison_rows(
    tables: Mapping[str, pd.DataFrame], grammar: pd.DataFrame, boot: Bootstrap
) -> pd.DataFrame:
    """Every compared number, one row each, in the order of the table."""
    by_suite = tables["rates_by_suite"]
    rows = [
        *rq1_rows(tables),
        *grammar_rows(grammar, boot),
        *rq3_rows(by_suite),
        *rq5_rows(by_suite),
        *table3_rows(tables["table3"]),
    ]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("paper", "run", "run_lo", "run_hi"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    return frame


def _number(value, unit: str) -> str:
    if value is None or pd.isna(value):
        return NOT_RUN
    return f"{int(value):,}" if unit == "count" else f"{value:.2f}"


def _run_cell(r: Mapping[str, Any]) -> str:
    if r["run"] is None or pd.isna(r["run"]):
        return NOT_RUN
    if r["unit"] == "count":
        return _number(r["run"], "count")
    return intervals.cell(r["run"], r["run_lo"], r["run_hi"], scale=1)


CAPTION = """
    Each number the paper reports (``002``: Table 3 and the headline numbers of RQ1–RQ5)
    beside the value this run computed, in percent unless a count. [lo, hi]: the run's
    interval where its table has one ({intervals}); "Within" says whether the paper's number
    lies inside it. "{not_run}": the run did not test that model, dataset or suite. This run:
    ``{run}`` ({config_files}); models {models}; datasets {datasets}; attributes
    {attributes}; {mutation_mode} mutation (caps: {caps}); dependency invariant {invariant}.
    The paper tested 6 models on 5 full datasets; RQ5 on the first 10K IMDB reviews."""


def _table3_grids(rows: pd.DataFrame) -> list[str]:
    """Table 3's cells as the paper lays them out: one grid for I, one for H, each cell
    ``paper → run [lo, hi]`` with ✓ / ✗ for the paper's number inside / outside the interval."""
    t3 = rows[rows["section"] == "Table 3"]
    sections = []
    for letter, name in (("I", "intersectional error rate I"), ("H", "hidden rate H")):
        cells: dict[str, dict[str, str]] = {}
        for r in t3[t3["quantity"].str.startswith(f"{letter}, ")].to_dict("records"):
            dataset, model = r["quantity"][3:].split(" × ")
            mark = {"yes": " ✓", "no": " ✗"}.get(r["within"], "")
            cells.setdefault(dataset, {})[model] = (
                f"{_number(r['paper'], '%')} → {_run_cell(r)}{mark}"
            )
        models = list(dict.fromkeys(m for row in cells.values() for m in row))
        grid = pd.DataFrame(
            [{"Dataset": d, **{m: row.get(m, "N/A") for m in models}} for d, row in cells.items()]
        )
        sections += [f"## Table 3: {name} (paper → this run)", "",
                     markdown_table(grid, right=models)]  # fmt: skip
    return sections


def build(
    tables: Mapping[str, pd.DataFrame],
    grammar: pd.DataFrame,
    boot: Bootstrap,
    settings: Mapping[str, Any],
    config_files: Sequence[str] = (),
) -> Table:
    """The comparison table: its CSV rows and its Markdown document."""
    rows = comparison_rows(tables, grammar, boot)
    inside = rows["within"].eq("yes").sum()
    with_interval = rows["within"].ne("").sum()
    not_run = rows["run"].isna().sum()
    summary = (
        f"{len(rows)} numbers compared: {len(rows) - not_run} computed by this run, "
        f"{with_interval} with an interval, {inside} of them containing the paper's number; "
        f"{not_run} not run."
    )
    md = pd.DataFrame(
        {
            "Section": rows["section"],
            "Quantity": rows["quantity"],
            "Paper": [_number(v, u) for v, u in zip(rows["paper"], rows["unit"], strict=True)],
            "This run": [_run_cell(r) for r in rows.to_dict("records")],
            "Within": rows["within"],
            "Note": rows["note"],
        }
    )
    caption = prose(
        CAPTION.format(
            **{
                **settings,  # the run's config as the captions quote it (hinter.rq.captions)
                "intervals": boot.describe().rstrip("."),
                "not_run": NOT_RUN,
                "config_files": ", ".join(config_files) or "config",
            }
        )
    )
    headline = md[rows["section"] != "Table 3"]
    body = "\n".join(
        [
            summary,
            "",
            "## Headline numbers",
            "",
            markdown_table(headline, right=["Paper", "This run"]),
            *_table3_grids(rows),
        ]
    )
    return Table(rows, document("Paper vs this run", caption, body))


def read_grammar(files: Sequence[tuple[str, str, str | Path]]) -> pd.DataFrame:
    """The grammar scores of (model, dataset, path) files, with their model and dataset."""
    columns = ["kind", "doc_id", "valid", "words", "issues", "score", "checker"]
    parts = [
        io.read_parquet(path, SCORES, columns=columns).to_pandas().assign(model=m, dataset=d)
        for m, d, path in files
    ]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=[*columns, "model", "dataset"])
    return pd.concat(parts, ignore_index=True)


def write(
    tables_dir: str | Path,
    grammar_files: Sequence[tuple[str, str, str | Path]],
    out_dir: str | Path,
    boot: Bootstrap,
    settings: Mapping[str, Any],
    config_files: Sequence[str] = (),
) -> list[Path]:
    """Read the RQ1 tables in ``tables_dir`` and the grammar scores; write the comparison's
    CSV, Markdown and HTML to ``out_dir``."""
    tables = {
        n: pd.read_csv(Path(tables_dir) / f"{n}.csv", keep_default_na=False, na_values=[""])
        for n in SOURCES
    }
    table = build(tables, read_grammar(grammar_files), boot, settings, config_files)
    return write_table(table, Path(out_dir) / NAME, outputs.get(PAPER, NAME).extensions)
