"""The paper's numbers beside this run's: every headline number of docs/design.md §7 and every cell
of Table 3 (``002``), with the run's value, its interval where the run's table has one, and
whether the paper's number lies inside it — so a reproducer sees at a glance what matches.

Built from the RQ tables' CSV files (each number is computed once, by its RQ; this module only
looks them up and pools counts) and from the grammar scores of the ``grammar`` stage (their
pooled score and interval by :func:`hinter.grammar.summary.pooled_scores`). A number
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
from hinter.grammar.stage import SCORES
from hinter.grammar.summary import pooled_scores
from hinter.layout import PAPER
from hinter.render import Table, document, markdown_table, prose, write_table
from hinter.rq import definitions, intervals, outputs, paper
from hinter.rq.intervals import Bootstrap
from hinter.rq.scores import difference as score_difference
from hinter.statistics import MIN_DOCUMENTS

NAME = "paper_vs_run"
# The RQ tables it reads (CSV), by name.
SOURCES = tuple(n for names in outputs.COMPARISON_SOURCES.values() for n in names)
ALL, TOTAL = "All", "Total"
NOT_RUN = "not run"
COLUMNS = ["section", "quantity", "paper", "run", "run_lo", "run_hi", "unit", "within",
           "note"]  # fmt: skip


NOT_COMPARABLE = "not comparable"
# a pooled cell ("Total", "All") whose pool is not the paper's models and datasets (G6)
OTHER_MODELS = "not comparable (other models)"
# a rate over fewer original documents than MIN_DOCUMENTS: shown, marked, never judged (G7)
FEW_DOCUMENTS = f"too few documents (< {MIN_DOCUMENTS})"
# a rate of (or pooling) a model that gave every tested original one label set (G12)
CONSTANT = "constant model"
# a rate the run computed but found undefined (0 in its denominator)
UNDEFINED = "undefined"
UNDEFINED_NOTES = {
    "hidden_rate": "0 errors: no hidden rate",
    "error_rate": "no valid mutant with an outcome: no error rate",
}


def _row(section, quantity, paper_value, run=None, lo=None, hi=None, unit="%", note="",
         comparable=True, documents=None):  # fmt: skip
    """One compared number. ``comparable=False``: the run's number is another quantity than the
    paper's (e.g. another grammar checker's score), shown beside it but never judged "within".
    ``documents``: the original documents behind the run's interval; under
    :data:`MIN_DOCUMENTS` the interval means little, and the row is marked, not judged."""
    within = intervals.within(paper_value, lo, hi) if run is not None else None
    verdict = {True: "yes", False: "no", None: ""}[within]
    if run is not None and documents is not None and documents < MIN_DOCUMENTS and comparable:
        verdict = FEW_DOCUMENTS
        note = "; ".join(s for s in (note, f"{int(documents)} documents") if s)
    return {
        "section": section,
        "quantity": quantity,
        "paper": float(paper_value),
        "run": run,
        "run_lo": lo,
        "run_hi": hi,
        "unit": unit,
        "within": verdict if comparable or run is None else NOT_COMPARABLE,
        "note": note,
    }


def _lookup(frame: pd.DataFrame, **keys) -> pd.Series | None:
    sel = pd.Series(True, index=frame.index)
    for column, value in keys.items():
        sel &= frame[column].astype(str) == value
    hits = frame[sel]
    return None if hits.empty else hits.iloc[0]


def _rate_row(section, quantity, paper_value, frame, rate, note="", **keys):
    """A row for ``<rate>_pct`` (and its ``_lo_pct``/``_hi_pct``) of the row of ``keys``; a rate
    the run computed as undefined (nothing to divide by: no errors for H) is marked so, not
    counted as not run."""
    hit = _lookup(frame, **keys)
    if hit is None:
        return _row(section, quantity, paper_value, note=note)
    if pd.isna(hit[f"{rate}_pct"]):
        row = _row(section, quantity, paper_value, note=note or UNDEFINED_NOTES.get(rate, ""))
        row["within"] = UNDEFINED
        return row
    lo, hi = hit.get(f"{rate}_lo_pct"), hit.get(f"{rate}_hi_pct")
    row = _row(section, quantity, paper_value, float(hit[f"{rate}_pct"]),
               None if lo is None or pd.isna(lo) else float(lo),
               None if hi is None or pd.isna(hi) else float(hi), note=note,
               documents=_documents(hit))  # fmt: skip
    return _judge_constant(_judge_pool(row, frame, keys), hit)


def _judge_constant(row: dict, hit: pd.Series) -> dict:
    """A rate of a constant model (RQ1's ``constant`` column names it) is shown, marked and
    not judged (review 2026-11-28 G12): its 0% says nothing about bias. A row already left
    unjudged for another reason (other models, too few documents) keeps that reason; the
    note names the constant models either way."""
    models = hit.get("constant")
    if isinstance(models, str) and models:
        if row["within"] in ("yes", "no"):
            row["within"] = CONSTANT
        row["note"] = "; ".join(s for s in (row["note"], f"constant: {models}") if s)
    return row


def _documents(hit: pd.Series, column: str = "documents") -> int | None:
    value = hit.get(column)
    return None if value is None or pd.isna(value) else int(value)


def paper_pool(dataset: str, model: str) -> set[tuple[str, str]]:
    """The (dataset, model) cells the paper's Table 3 pools into its cell (dataset, model):
    "Total" pools the models tested on a dataset, "All" the datasets a model was tested on."""
    return {
        (d, m)
        for d, cells in paper.TABLE3.items()
        for m, cell in cells.items()
        if cell is not None and m != TOTAL
        and dataset in (ALL, d) and model in (TOTAL, m)
    }  # fmt: skip


def run_pool(frame: pd.DataFrame, dataset: str, model: str) -> set[tuple[str, str]]:
    """The (dataset, model) cells of the run's table that its pooled cell pools."""
    if not {"dataset", "model"} <= set(frame.columns):
        return set()
    return {
        (d, m)
        for d, m in zip(frame["dataset"].astype(str), frame["model"].astype(str), strict=True)
        if d != ALL and m != TOTAL and dataset in (ALL, d) and model in (TOTAL, m)
    }


def _judge_pool(row: dict, frame: pd.DataFrame, keys: Mapping[str, str]) -> dict:
    """A pooled cell ("Total" or "All") is judged only when the run pools the paper's cells
    (review 2026-11-28 G6): a pool of other models is another quantity."""
    dataset, model = keys.get("dataset"), keys.get("model")
    if dataset is None or model is None or (dataset != ALL and model != TOTAL):
        return row
    if row["run"] is None or pd.isna(row["run"]):
        return row
    ours, theirs = run_pool(frame, dataset, model), paper_pool(dataset, model)
    if ours == theirs:
        return row
    models = ", ".join(sorted({m for _, m in ours})) or "none"
    row["within"] = OTHER_MODELS
    note = f"pools {models} on {len({d for d, _ in ours})} dataset(s); the paper's cell pools "
    note += f"{len(theirs)} (dataset, model) cells"
    row["note"] = "; ".join(s for s in (row["note"], note) if s)
    return row


def table3_rows(table3: pd.DataFrame) -> list[dict]:
    """Every cell of the paper's Table 3 (I and H per dataset x model, the "All" row from
    RQ1's pooled numbers) beside the run's cell with its interval; All × Total is RQ1's first
    two rows and is not repeated (review 2026-11-28 G5)."""
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
            if (dataset, model) == (ALL, TOTAL):  # RQ1's first two rows (G5: counted once)
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
    with_documents = distinct.assign(documents=distinct["originals"])
    row = _rate_row(section, quantity, paper_value, with_documents, "share", model=model,
                    dataset=ALL, kind=kind)  # fmt: skip
    counts = f"{int(hit['bias_inducing'])} of {int(hit['originals'])} originals"
    row["note"] = counts if row["within"] in ("yes", "no") else f"{counts}; {row['note']}"
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
    """RQ2 as the paper reports it (002 l.354: intersectional mutation): the pooled grammar
    score of the valid 2-intersectional mutants and of their originals, each text once (a text
    sampled for several models or orders counts once), with intervals over documents
    (:func:`~hinter.grammar.summary.pooled_scores`); and their paired difference.

    The levels are another checker's (Harper or LanguageTool, not Grammarly): shown, marked not
    comparable. The difference (valid − original) is what the paper's finding is about and is
    judged against the paper's 79.50 − 78.73."""
    h = paper.HEADLINES
    names = {"original": "Grammar score of originals, intersectional sample",
             "valid": "Grammar score of valid 2-intersectional mutants"}  # fmt: skip
    diff_name = "Grammar score difference, valid 2-intersectional mutants − originals"
    paper_diff = h["grammar_valid_mutants"] - h["grammar_originals"]
    keys = {"original": "grammar_originals", "valid": "grammar_valid_mutants"}
    frame = _intersectional_sample(scores)
    if frame.empty:
        return [
            *(_row("RQ2", names[k], h[keys[k]], note="no grammar sample") for k in names),
            _row("RQ2", diff_name, paper_diff, unit="pp", note="no grammar sample"),
        ]
    checker = ", ".join(sorted(set(frame["checker"])))
    pooled = pooled_scores(frame, ["group"], ["dataset", "doc_id"], boot.resamples, boot.seed,
                           boot.confidence).set_index("group")  # fmt: skip
    rows = []
    for key in names:
        if key not in pooled.index:
            rows.append(_row("RQ2", names[key], h[keys[key]]))
            continue
        r = pooled.loc[key]
        note = f"{int(r['texts'])} distinct texts; checker {checker}, the paper's Grammarly"
        rows.append(_row("RQ2", names[key], h[keys[key]], float(r["score"]), float(r["low"]),
                         float(r["high"]), note=note, comparable=False))  # fmt: skip
    if {"original", "valid"} <= set(pooled.index):
        d = score_difference(frame, frame["group"] == "valid", frame["group"] == "original",
                             [], boot).iloc[0]  # fmt: skip
        rows.append(_row("RQ2", diff_name, paper_diff, float(d["difference"]), float(d["low"]),
                         float(d["high"]), unit="pp",
                         note=f"paired over documents; checker {checker}"))  # fmt: skip
    else:
        rows.append(_row("RQ2", diff_name, paper_diff, unit="pp"))
    return rows


def _intersectional_sample(scores: pd.DataFrame) -> pd.DataFrame:
    """The scored originals and valid mutants of order 2, each (dataset, text) once, with their
    ``group`` (original | valid)."""
    if scores.empty:
        return scores.assign(group=pd.Series(dtype=object))
    order2 = scores["order"].astype("Int64") == 2
    original = (scores["kind"] == "original") & order2
    valid = (scores["kind"] == "mutant") & order2
    valid &= scores["valid"].astype("boolean").fillna(False).astype(bool)
    group = pd.Series(None, index=scores.index, dtype=object)
    group[original] = "original"
    group[valid] = "valid"
    frame = scores.assign(group=group).dropna(subset=["group"])
    return frame.drop_duplicates(["dataset", "group", "text_id"]).reset_index(drop=True)


def _optional(tables: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    return tables.get(name, pd.DataFrame())


def _hit(frame: pd.DataFrame, **keys) -> pd.Series | None:
    return None if frame.empty else _lookup(frame, **keys)


def _pct_row(section, quantity, paper_value, hit, value, low, high, note=""):
    if hit is None or pd.isna(hit[value]):
        return _row(section, quantity, paper_value, note=note if hit is not None else "")
    return _row(section, quantity, paper_value, float(hit[value]), float(hit[low]),
                float(hit[high]), note=note, documents=_documents(hit))  # fmt: skip


# RQ3.2's pool in the paper (001 RQ3.2): the fine-tuned encoders on the legal datasets
RQ3_ENCODERS = ("legal-bert", "bert", "deberta", "roberta")
RQ3_DATASETS = ("ecthr_a", "scotus", "eurlex", "ledgar")


def rq3_rows(tables: Mapping[str, pd.DataFrame]) -> list[dict]:
    """RQ3 from RQ3's own tables (mutants of order N ≤ 2, as the paper's RQ3): the discarded
    share from Fig. 7's pooled row (each dataset's mutants counted once per track, not once per
    model), the false and true positives from Fig. 8b's Total (the models that predicted their
    discarded mutants: the paper's 16 fine-tuned encoders on the four legal datasets)."""
    h, p = paper.HEADLINES, paper.RQ3
    validity, positives = _optional(tables, "validity"), _optional(tables, "positives")
    v = _hit(validity, dataset=ALL, track=ALL, mutation="all")
    note = ""
    if v is not None:
        note = (f"{int(v['discarded']):,} of {int(v['generated']):,} mutants (N ≤ 2), "
                "each counted once per track")  # fmt: skip
    rows = [_pct_row("RQ3", "Mutants discarded by the invariant", h["discarded_share"], v,
                     "discarded_pct", "low", "high", note)]  # fmt: skip
    t = _hit(positives, model=TOTAL, dataset=ALL, mutation="all")
    predicted = t is not None and str(t["predicted_discarded"]) == "True"
    scope = ""
    if t is not None:
        per_model = positives[(positives["dataset"] == ALL) & (positives["mutation"] == "all")]
        models = [m for m, k in zip(per_model["model"], per_model["predicted_discarded"],
                                    strict=True) if m != TOTAL and str(k) == "True"]  # fmt: skip
        datasets = positives.loc[positives["model"].isin(models) & (positives["dataset"] != ALL),
                                 "dataset"].drop_duplicates()  # fmt: skip
        scope = (f"{len(models)} models ({', '.join(models)}) on {', '.join(datasets)}"
                 if predicted else "discarded mutants not predicted")  # fmt: skip
        paper_scope = set(RQ3_ENCODERS) == set(models) and set(RQ3_DATASETS) == set(datasets)
    if t is None:
        paper_scope = False
    fp = int(t["false_positives"]) if predicted else None
    tp = int(t["true_positives"]) if t is not None else None
    rows += [
        _row("RQ3", "False positives (bias-inducing discarded mutants)", h["false_positives"],
             fp, unit="count", note=scope),
        _row("RQ3", "True positives (bias-inducing valid mutants)", h["true_positives"], tp,
             unit="count", note=scope if t is not None else ""),
        _pct_row("RQ3", "False-positive share", p["false_positive_share"],
                 t if predicted else None, "false_positive_share_pct",
                 "false_positive_share_pct_low", "false_positive_share_pct_high", scope),
    ]  # fmt: skip
    if predicted and not paper_scope and rows[-1]["within"] in ("yes", "no"):
        rows[-1]["within"] = OTHER_MODELS  # G6: the paper's pool is its 16 encoders
        rows[-1]["note"] += "; the paper's pool: 4 fine-tuned encoders on the 4 legal datasets"
    return rows


def rq3_grammar_rows(tables: Mapping[str, pd.DataFrame], scores: pd.DataFrame) -> list[dict]:
    """RQ3.3 (002 l.402: "lower grammatical correctness scores than the original texts (78.44%
    vs. 73.40%)"), from Fig. 8c's table, every mutation kind pooled: the scores of the originals
    and of the discarded mutants, another checker's than the paper's Grammarly (shown, not
    comparable), and their paired difference, judged against the paper's 73.40 − 78.44."""
    p = paper.RQ3
    table = _optional(tables, "grammar_validity")
    checker = ", ".join(sorted(set(scores["checker"]))) if "checker" in scores else ""
    note = f"checker {checker}, the paper's Grammarly" if checker else ""
    rows = []
    for name, key, inputs in (
        ("Grammar score of originals, discarded-mutant sample", "original_score", "original"),
        ("Grammar score of discarded mutants", "discarded_score", "discarded mutant"),
    ):
        hit = _hit(table, mutation="all", input=inputs)
        if hit is None or pd.isna(hit["score_pct"]):
            rows.append(_row("RQ3", name, p[key]))
            continue
        rows.append(_row("RQ3", name, p[key], float(hit["score_pct"]), float(hit["low"]),
                         float(hit["high"]), note=f"{int(hit['texts'])} texts; {note}",
                         comparable=False))  # fmt: skip
    d = _hit(table, mutation="all", input="discarded mutant", compared_with="original all")
    diff_name = "Grammar score difference, discarded mutants − originals"
    paper_diff = p["discarded_score"] - p["original_score"]
    if d is None or pd.isna(d["difference"]):
        return [*rows, _row("RQ3", diff_name, paper_diff, unit="pp")]
    return [*rows, _row("RQ3", diff_name, paper_diff, float(d["difference"]),
                        float(d["difference_low"]), float(d["difference_high"]), unit="pp",
                        note=f"paired over documents; {note}")]  # fmt: skip


# Table 5's population: Llama 2 on IMDB (002 l.436)
RQ5_POOL = {("imdb", "llama2")}


def rq5_rows(tables: Mapping[str, pd.DataFrame]) -> list[dict]:
    """RQ5: error and hidden rates per order from RQ5's Table 5 (``rq5/table5.csv``), which
    limits every order to the same documents (the paper: the first 10K IMDB reviews, Llama 2);
    several (model, dataset) runs are pooled by their counts, and judged only when the pool is
    the paper's (Llama 2 on IMDB, G6). A rate with nothing to divide by is "undefined", not
    "not run" (G13)."""
    h = paper.HEADLINES
    table5 = _optional(tables, "table5")
    names = {1: "atomic", 2: "2-intersectional", 3: "3-intersectional"}
    rows = []
    for order, name in names.items():
        part = table5[table5["attributes"] == order] if "attributes" in table5 else table5
        pool = set(zip(part.get("dataset", []), part.get("model", []), strict=True))
        runs = ", ".join(f"{m} on {d}" for d, m in sorted(pool, key=str))
        for rate, num, den, paper_numbers in (
            ("error rate", "errors", "decided", h["rq5_error_rate"]),
            ("hidden rate", "hidden", "hidden_base", h["rq5_hidden_rate"]),
        ):
            if order not in paper_numbers:
                continue
            quantity = f"{name.capitalize()} {rate}"
            key = rate.replace(" ", "_")
            if part.empty:
                rows.append(_row("RQ5", quantity, paper_numbers[order]))
                continue
            if len(part) == 1 and pd.notna(part.iloc[0][f"{key}_pct"]):
                r = part.iloc[0]
                row = _row("RQ5", quantity, paper_numbers[order], float(r[f"{key}_pct"]),
                           float(r[f"{key}_low_pct"]), float(r[f"{key}_high_pct"]),
                           note=runs, documents=_documents(r))  # fmt: skip
            else:
                c = part[[num, den]].apply(pd.to_numeric, errors="coerce").sum()
                if not c[den] > 0:
                    row = _row("RQ5", quantity, paper_numbers[order],
                               note=f"{runs}; {UNDEFINED_NOTES[key]}")  # fmt: skip
                    row["within"] = UNDEFINED
                    rows.append(row)
                    continue
                row = _row("RQ5", quantity, paper_numbers[order], 100 * c[num] / c[den],
                           note=f"{runs}; pooled counts, no interval")  # fmt: skip
            if pool != RQ5_POOL:
                row["within"] = OTHER_MODELS
                row["note"] += "; the paper's Table 5 is Llama 2 on IMDB"
            rows.append(row)
    return rows


def comparison_rows(
    tables: Mapping[str, pd.DataFrame], grammar: pd.DataFrame, boot: Bootstrap
) -> pd.DataFrame:
    """Every compared number, one row each, in the order of the table."""
    rows = [
        *rq1_rows(tables),
        *grammar_rows(grammar, boot),
        *rq3_rows(tables),
        *rq3_grammar_rows(tables, grammar),
        *rq5_rows(tables),
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
    if r["within"] == UNDEFINED:
        return "– (0 errors)" if r["note"] == UNDEFINED_NOTES["hidden_rate"] else "–"
    if r["run"] is None or pd.isna(r["run"]):
        return NOT_RUN
    if r["unit"] == "count":
        return _number(r["run"], "count")
    return intervals.cell(r["run"], r["run_lo"], r["run_hi"], scale=1)


# After the definitions (workflow/report/paper/paper_vs_run.rst): the run's settings.
THIS_RUN = """This run: ``{run}`` ({config_files}); models {models}; datasets {datasets};
    attributes {attributes}; {mutation_mode} mutation (caps: {caps}); dependency invariant
    {invariant}."""


def _table3_grids(rows: pd.DataFrame) -> list[str]:
    """Table 3's cells as the paper lays them out: one grid for I, one for H, each cell
    ``paper → run [lo, hi]`` with ✓ / ✗ for the paper's number inside / outside the interval."""
    t3 = rows[rows["section"] == "Table 3"]
    sections = []
    for letter, name in (("I", "intersectional error rate I"), ("H", "hidden rate H")):
        cells: dict[str, dict[str, str]] = {}
        for r in t3[t3["quantity"].str.startswith(f"{letter}, ")].to_dict("records"):
            dataset, model = r["quantity"][3:].split(" × ")
            mark = {"yes": " ✓", "no": " ✗", OTHER_MODELS: " (other models)",
                    FEW_DOCUMENTS: f" (< {MIN_DOCUMENTS} docs)",
                    CONSTANT: " (constant)"}.get(r["within"], "")  # fmt: skip
            cells.setdefault(dataset, {})[model] = (
                f"{_number(r['paper'], '%')} → {_run_cell(r)}{mark}"
            )
        if ALL in cells:
            cells[ALL][TOTAL] = "see RQ1's first rows"
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
    not_comparable = rows["within"].eq(NOT_COMPARABLE).sum()
    other_models = rows["within"].eq(OTHER_MODELS).sum()
    few = rows["within"].eq(FEW_DOCUMENTS).sum()
    constant = rows["within"].eq(CONSTANT).sum()
    with_interval = rows["within"].isin(["yes", "no"]).sum()
    undefined = rows["within"].eq(UNDEFINED).sum()
    not_run = (rows["run"].isna() & rows["within"].ne(UNDEFINED)).sum()
    summary = (
        f"{len(rows)} numbers compared: {len(rows) - not_run - undefined} computed by this "
        f"run, {with_interval} judged against an interval, {inside} of them containing the "
        f"paper's number; {not_comparable} not comparable (another quantity than the paper's, "
        f"shown for reference); {other_models} pooled over other models than the paper's "
        f"(shown, not judged); {few} over fewer than {MIN_DOCUMENTS} documents (shown, not "
        f"judged); {constant} of a constant model (shown, not judged); {undefined} undefined "
        f"in this run (0 errors, or nothing valid); "
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
    this_run = THIS_RUN.format(
        **{**settings, "config_files": ", ".join(config_files) or "config"}
    )  # the run's config as the captions quote it (hinter.rq.captions)
    caption = prose(definitions.caption(PAPER, "paper_vs_run", boot.describe(), this_run))
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
    columns = ["kind", "text_id", "doc_id", "order", "valid", "words", "issues", "score",
               "checker"]  # fmt: skip
    parts = [
        io.read_parquet(path, SCORES, columns=columns).to_pandas().assign(model=m, dataset=d)
        for m, d, path in files
    ]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=[*columns, "model", "dataset"])
    return pd.concat(parts, ignore_index=True)


def read_tables(tables: str | Path | Mapping[str, str | Path]) -> dict[str, pd.DataFrame]:
    """The RQ tables the comparison reads (:data:`SOURCES`): a mapping name -> CSV path, or one
    folder holding them. A table of RQ3 or RQ5 that is absent leaves its rows "not run"."""
    if not isinstance(tables, Mapping):
        folder = Path(tables)
        tables = {n: folder / f"{n}.csv" for n in SOURCES if (folder / f"{n}.csv").exists()}
    missing = [n for n in outputs.COMPARISON_SOURCES[1] if n not in tables]
    if missing:
        raise FileNotFoundError(f"the comparison needs RQ1's {missing[0]}.csv")
    return {n: _read_csv(path) for n, path in tables.items()}


def _read_csv(path: str | Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:  # a table with no rows (e.g. Table 5 without N=3)
        return pd.DataFrame()


def write(
    tables: str | Path | Mapping[str, str | Path],
    grammar_files: Sequence[tuple[str, str, str | Path]],
    out_dir: str | Path,
    boot: Bootstrap,
    settings: Mapping[str, Any],
    config_files: Sequence[str] = (),
) -> list[Path]:
    """Read the RQ tables (a folder or name -> path, :func:`read_tables`) and the grammar
    scores; write the comparison's CSV, Markdown and HTML to ``out_dir``."""
    table = build(read_tables(tables), read_grammar(grammar_files), boot, settings, config_files)
    return write_table(table, Path(out_dir) / NAME, outputs.get(PAPER, NAME).extensions)
