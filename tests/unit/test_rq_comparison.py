"""The paper-vs-run table: the paper's numbers beside hand-made RQ1 tables and grammar scores,
"within" decided by the run's interval, "not run" where the run has no number."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from rq_runs import make_rich_run

from hinter.config import load_yaml, validate_config
from hinter.rq import captions, comparison, paper, rq1
from hinter.rq.intervals import Bootstrap

BOOT = Bootstrap(resamples=500, seed=1)
OTHER = comparison.OTHER_MODELS
# what the rule passes: hinter.rq.captions.settings of a real config, renamed
SETTINGS = {
    **captions.settings(
        validate_config(load_yaml(Path(__file__).parents[2] / "config" / "demo.yaml"))
    ),
    "run": "handmade",
}


def rate_rows(rows: list[tuple]) -> pd.DataFrame:
    """A Table-3-like CSV frame: (dataset, model, I, I lo, I hi, H, H lo, H hi) in percent."""
    cols = ["dataset", "model", "error_rate_pct", "error_rate_lo_pct", "error_rate_hi_pct",
            "hidden_rate_pct", "hidden_rate_lo_pct", "hidden_rate_hi_pct"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def tables() -> dict[str, pd.DataFrame]:
    table3 = rate_rows(
        [
            ("imdb", "llama2", 3.0, 2.0, 4.0, 30.0, 20.0, 40.0),  # I: paper 3.52 inside
            ("All", "Total", 14.0, 13.0, 16.0, 10.0, 9.0, 11.0),  # H: paper 16.62 outside
        ]
    )
    atomic = rate_rows([("All", "Total", 9.0, 8.0, 9.2, None, None, None)])
    distinct = pd.DataFrame(
        [("Total", "All", "intersectional", 10, 4, 40.0, 35.0, 45.0)],
        columns=["model", "dataset", "kind", "originals", "bias_inducing", "share_pct",
                 "share_lo_pct", "share_hi_pct"],
    )  # fmt: skip
    counts = ["mutants", "valid", "decided", "errors", "false_positives", "hidden_base", "hidden"]
    by_suite = pd.DataFrame(
        [
            ("llama2", "imdb", 1, 400, 40, 40, 1, 30, 0, 0),
            ("llama2", "imdb", 2, 400, 10, 10, 3, 50, 3, 1),
            ("llama2", "imdb", 3, 200, 0, 0, 0, 20, 0, 0),
            ("bert", "imdb", 2, 1000, 50, 50, 0, 0, 0, 0),
        ],
        columns=["model", "dataset", "order", *counts],
    )
    # RQ3's own tables (N <= 2): Fig. 7 counts each dataset's mutants once per track; Fig. 8b's
    # Total pools the models that predicted their discarded mutants (bert here, not llama2)
    validity = pd.DataFrame(
        [
            ("imdb", "llm", "all", 800, 50, 750, 93.75, 92.0, 95.0),
            ("All", "All", "all", 1200, 100, 1100, 1100 / 12, 90.0, 93.0),
        ],
        columns=["dataset", "track", "mutation", "generated", "valid", "discarded",
                 "discarded_pct", "low", "high"],
    )  # fmt: skip
    fp_cols = [f"false_positive_share_pct{s}" for s in ("", "_low", "_high")]
    positives = pd.DataFrame(
        [
            ("bert", "ecthr_a", "all", 50, 70, True, 58.3, 50.0, 66.0),
            ("bert", "All", "all", 50, 70, True, 58.3, 50.0, 66.0),
            ("llama2", "All", "all", 4, 0, False, None, None, None),
            ("Total", "All", "all", 50, 70, True, 58.3, 50.0, 66.0),
        ],
        columns=["model", "dataset", "mutation", "true_positives", "false_positives",
                 "predicted_discarded", *fp_cols],
    )  # fmt: skip
    # RQ5's Table 5 (document-limited): not the full-dataset rates_by_suite rows above
    table5 = pd.DataFrame(
        [
            ("llama2", "imdb", 1, 20, 1, 5.0, 1.0, 9.0, 0, None, None, None, None),
            ("llama2", "imdb", 2, 10, 2, 20.0, 5.0, 40.0, 2, 1, 50.0, 10.0, 90.0),
            ("llama2", "imdb", 3, 0, 0, None, None, None, 0, 0, None, None, None),
        ],
        columns=["model", "dataset", "attributes", "decided", "errors", "error_rate_pct",
                 "error_rate_low_pct", "error_rate_high_pct", "hidden_base", "hidden",
                 "hidden_rate_pct", "hidden_rate_low_pct", "hidden_rate_high_pct"],
    )  # fmt: skip
    return {"table3": table3, "atomic_rates": atomic, "distinct_originals": distinct,
            "rates_by_suite": by_suite, "validity": validity, "positives": positives,
            "table5": table5}  # fmt: skip


def grammar_scores() -> pd.DataFrame:
    rows = [
        ("original", "d1", "d1", 2, None, 100, 20),  # originals: 100 * (1 - 30 / 200) = 85
        ("original", "d2", "d2", 2, None, 100, 10),
        ("original", "d2", "d2", 1, None, 100, 100),  # an atomic sample's original: not RQ2's
        ("mutant", "m1", "d1", 2, True, 50, 5),  # valid mutants: 100 * (1 - 5 / 100) = 95
        ("mutant", "m2", "d2", 2, True, 50, 0),
        ("mutant", "m3", "d2", 2, False, 50, 50),  # discarded: not in either group
        ("mutant", "m4", "d2", 1, True, 50, 50),  # atomic: not the paper's pair
    ]
    columns = ["kind", "text_id", "doc_id", "order", "valid", "words", "issues"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["valid"] = frame["valid"].astype("boolean")
    frame = frame.assign(
        score=100 * (1 - frame["issues"] / frame["words"]), checker="harper", model="m",
        dataset="imdb",
    )  # fmt: skip
    # the same sample drawn for a second model: each text counts once
    return pd.concat([frame, frame.assign(model="m2")], ignore_index=True)


def by_quantity(frame: pd.DataFrame) -> pd.DataFrame:
    assert frame["quantity"].is_unique
    return frame.set_index("quantity")


def test_every_number_is_beside_the_papers_with_its_interval_verdict():
    rows = by_quantity(comparison.comparison_rows(tables(), grammar_scores(), BOOT))
    # pooled cells of a run that is not the paper's models are shown, not judged (G6)
    i_all = rows.loc["Intersectional error rate I, all models and datasets"]
    assert (i_all["paper"], i_all["run"], i_all["within"]) == (14.61, 14.0, OTHER)
    h_all = rows.loc["Hidden rate H, all models and datasets"]
    assert (h_all["paper"], h_all["run"], h_all["within"]) == (16.62, 10.0, OTHER)
    assert rows.loc["Atomic error rate, all models", "within"] == OTHER
    share = rows.loc["Originals with ≥ 1 intersectional bias"]
    assert (share["run"], share["within"]) == (40.0, OTHER)
    assert share["note"].startswith("4 of 10 originals; pools none")
    assert pd.isna(rows.loc["Atomic error rate, gpt35", "run"])  # gpt35 not run

    # Table 3: every cell of the paper, N/A cells left out
    t3 = rows[rows["section"] == "Table 3"]
    # 6 dataset rows (with All) x 7 columns, IMDB's 4 N/A, All x Total = RQ1's rows (G5)
    assert len(t3) == 2 * (6 * 7 - 4 - 1)
    assert "I, All × Total" not in rows.index
    cell = rows.loc["I, imdb × llama2"]
    assert (cell["paper"], cell["run"], cell["within"]) == (3.52, 3.0, "yes")
    assert cell["run_lo"] == 2.0 and cell["run_hi"] == 4.0
    assert "I, imdb × bert" not in rows.index
    assert rows.loc["I, All × roberta", "paper"] == paper.RQ1[
        "intersectional_error_rate_by_model"]["roberta"]  # fmt: skip
    assert pd.isna(rows.loc["H, ecthr_a × gpt35", "run"])

    # RQ2: pooled scores of the intersectional sample's originals and valid mutants, each text
    # once, with intervals over documents; levels of another checker are not comparable, their
    # difference is (paper: 79.50 - 78.73 = 0.77 points)
    orig = rows.loc["Grammar score of originals, intersectional sample"]
    assert orig["run"] == pytest.approx(85.0) and orig["run_lo"] <= 85.0 <= orig["run_hi"]
    assert orig["within"] == "not comparable"
    assert orig["note"] == "2 distinct texts; checker harper, the paper's Grammarly"
    valid = rows.loc["Grammar score of valid 2-intersectional mutants"]
    assert valid["run"] == pytest.approx(95.0) and valid["within"] == "not comparable"
    diff = rows.loc["Grammar score difference, valid 2-intersectional mutants − originals"]
    assert diff["paper"] == pytest.approx(79.50 - 78.73)
    assert diff["run"] == pytest.approx(10.0) and diff["unit"] == "pp"
    assert diff["within"] in {"yes", "no"}
    # RQ3 (F1, F2): the discarded share from Fig. 7's pooled row (N <= 2, once per track),
    # not from rates_by_suite (every model, the N=3 suite); FP/TP from Fig. 8b's Total
    discarded = rows.loc["Mutants discarded by the invariant"]
    assert discarded["run"] == pytest.approx(1100 / 12)
    assert (discarded["run_lo"], discarded["run_hi"]) == (90.0, 93.0)
    assert discarded["note"] == "1,100 of 1,200 mutants (N ≤ 2), each counted once per track"
    fp = rows.loc["False positives (bias-inducing discarded mutants)"]
    assert (fp["run"], fp["note"]) == (70, "1 models (bert) on ecthr_a")
    assert rows.loc["True positives (bias-inducing valid mutants)", "run"] == 50
    assert rows.loc["False-positive share", "run"] == pytest.approx(58.3)
    # RQ5 (F3): Table 5's document-limited rows, not rates_by_suite's full-dataset ones
    assert rows.loc["Atomic error rate", "run"] == pytest.approx(5.0)
    assert rows.loc["2-intersectional error rate", "run"] == pytest.approx(20.0)
    assert rows.loc["2-intersectional error rate", "run_lo"] == pytest.approx(5.0)
    assert rows.loc["2-intersectional hidden rate", "run"] == pytest.approx(50.0)
    assert pd.isna(rows.loc["3-intersectional error rate", "run"])  # nothing valid
    assert rows.loc["2-intersectional error rate", "note"] == "llama2 on imdb"


def test_rq3_and_rq5_rows_are_not_run_without_their_tables():
    bare = {k: v for k, v in tables().items() if k not in ("validity", "positives", "table5")}
    rows = by_quantity(comparison.comparison_rows(bare, grammar_scores(), BOOT))
    for q in ("Mutants discarded by the invariant", "False-positive share",
              "False positives (bias-inducing discarded mutants)", "Atomic error rate",
              "2-intersectional hidden rate", "Grammar score of discarded mutants",
              "Grammar score difference, discarded mutants − originals"):  # fmt: skip
        assert pd.isna(rows.loc[q, "run"]), q


def test_discarded_mutants_grammar_beside_the_papers_78_44_vs_73_40():
    """RQ3.3's third comparison (002 l.402): discarded mutants against their originals, from
    Fig. 8c's table; another checker's levels are shown, only their difference is judged."""
    t = tables()
    t["grammar_validity"] = pd.DataFrame(
        [
            ("all", "original", 10, 90.0, 88.0, 92.0, None, None, None, None),
            ("all", "discarded mutant", 20, 86.0, 84.0, 88.0, "valid mutant all", -3.0, -5.0, -1.0),
            ("all", "discarded mutant", 20, 86.0, 84.0, 88.0, "original all", -4.0, -6.5, -1.5),
            ("atomic", "discarded mutant", 9, 80.0, 70.0, 90.0, "original all", -9.0, -12.0, -6.0),
        ],
        columns=["mutation", "input", "texts", "score_pct", "low", "high", "compared_with",
                 "difference", "difference_low", "difference_high"],
    )  # fmt: skip
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    diff = rows.loc["Grammar score difference, discarded mutants − originals"]
    assert diff["paper"] == pytest.approx(73.40 - 78.44)
    assert (diff["run"], diff["run_lo"], diff["run_hi"], diff["unit"]) == (-4.0, -6.5, -1.5, "pp")
    assert diff["within"] == "yes"  # -5.04 inside [-6.5, -1.5]
    for name, paper_value, run in (
        ("Grammar score of originals, discarded-mutant sample", 78.44, 90.0),
        ("Grammar score of discarded mutants", 73.40, 86.0),
    ):
        level = rows.loc[name]
        assert (level["paper"], level["run"]) == (paper_value, run)
        assert level["within"] == comparison.NOT_COMPARABLE and "checker harper" in level["note"]


def test_false_positives_not_run_when_no_model_predicted_discarded_mutants():
    t = tables()
    t["positives"] = t["positives"].assign(predicted_discarded=False)
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    fp = rows.loc["False positives (bias-inducing discarded mutants)"]
    assert pd.isna(fp["run"]) and fp["note"] == "discarded mutants not predicted"
    assert rows.loc["True positives (bias-inducing valid mutants)", "run"] == 50


def test_the_document_names_the_run_and_says_what_is_not_run():
    table = comparison.build(tables(), grammar_scores().iloc[:0], BOOT, SETTINGS,
                             ["config/demo.yaml"])  # fmt: skip
    md = table.markdown
    assert md.startswith("# Paper vs this run")
    assert "``handmade`` (config/demo.yaml)" in md and "B = 500 resamples" in md
    assert (
        "| RQ1 | Hidden rate H, all models and datasets | 16.62 | 10.00 \\[9.00, 11.00\\] | "
        "not comparable (other models) |" in md
    )
    assert "| RQ3 | False positives (bias-inducing discarded mutants) | 7,604,247 | 70 |" in md
    assert (
        "| RQ2 | Grammar score of originals, intersectional sample | 78.73 | not run |  "
        "| no grammar sample |" in md
    )
    assert "0 not comparable" in md
    n = len(table.data)
    assert f"{n} numbers compared" in md


def test_written_from_real_rq1_tables_and_rerun_identically(tmp_path):
    run = make_rich_run(tmp_path / "work")
    rq1_dir = tmp_path / "rq1"
    rq1.write_tables(run.outcome_files, run.example_files, rq1_dir, boot=BOOT)
    out = tmp_path / "paper"
    written = comparison.write(rq1_dir, [], out, BOOT, SETTINGS)
    assert sorted(p.name for p in written) == [f"paper_vs_run.{e}" for e in ("csv", "html", "md")]
    first = {p: p.read_bytes() for p in written}
    comparison.write(rq1_dir, [], out, BOOT, SETTINGS)
    assert {p: p.read_bytes() for p in written} == first
    data = pd.read_csv(out / "paper_vs_run.csv")
    t3 = pd.read_csv(rq1_dir / "table3.csv")
    total = t3[(t3["dataset"] == "All") & (t3["model"] == "Total")].iloc[0]
    row = data[data["quantity"] == "Intersectional error rate I, all models and datasets"].iloc[0]
    assert row["run"] == pytest.approx(total["error_rate_pct"], abs=1e-4)
    assert row["run_lo"] == pytest.approx(total["error_rate_lo_pct"], abs=1e-4)
    assert "<table>" in (out / "paper_vs_run.html").read_text()


def test_an_undefined_rate_is_not_counted_as_not_run():
    """F16: the run tested LEDGAR with gpt35 and found no errors: H is undefined there ("– (0
    errors)"), not "not run", and the summary counts it apart."""
    t = tables()
    t["table3"] = pd.concat(
        [t["table3"], rate_rows([("ledgar", "gpt35", 0.0, 0.0, 0.5, None, None, None)])],
        ignore_index=True,
    )
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    h = rows.loc["H, ledgar × gpt35"]
    assert pd.isna(h["run"]) and h["within"] == "undefined" and h["note"].startswith("0 errors")
    assert rows.loc["I, ledgar × gpt35", "within"] == "no"  # 7.04 is outside [0, 0.5]
    table = comparison.build(t, grammar_scores(), BOOT, SETTINGS)
    assert "– (0 errors)" in table.markdown
    undefined = int(rows["within"].eq("undefined").sum())  # H here, RQ5's N=3 rates (G13)
    assert undefined == 3 and f"{undefined} undefined in this run" in table.markdown
    not_run = int(rows["run"].isna().sum()) - undefined
    assert f"{not_run} not run." in table.markdown


def full_pool(documents: int = 50) -> pd.DataFrame:
    """A Table-3 frame with every (dataset, model) cell of the paper, its pooled rows, and the
    documents behind each interval."""
    cells = [(d, m) for d, row in paper.TABLE3.items() for m, c in row.items()
             if c is not None and m != "Total"]  # fmt: skip
    pooled = [(d, "Total") for d in paper.TABLE3] + [(m and "All", m) for m in
              paper.RQ1["intersectional_error_rate_by_model"]] + [("All", "Total")]  # fmt: skip
    frame = rate_rows([(d, m, 14.0, 13.0, 16.0, 16.0, 15.0, 17.0) for d, m in cells + pooled])
    return frame.assign(documents=documents)


def test_pooled_cells_are_judged_only_over_the_papers_models_and_all_x_total_once():
    """G5, G6: with the paper's 26 (dataset, model) cells the pooled cells are judged; drop one
    model and every pool that held it becomes "other models", the rest stay judged; the grid
    shows All × Total once, as RQ1's rows."""
    t = tables()
    t["table3"], t["atomic_rates"] = full_pool(), full_pool()
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    assert rows.loc["Intersectional error rate I, all models and datasets", "within"] == "yes"
    assert rows.loc["Hidden rate H, all models and datasets", "within"] == "yes"
    assert rows.loc["I, imdb × Total", "within"] == "no"  # 5.43 outside [13, 16]
    partial = full_pool()
    partial = partial[partial["model"] != "gpt35"]
    t["table3"] = partial
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    assert rows.loc["Intersectional error rate I, all models and datasets", "within"] == OTHER
    assert rows.loc["I, imdb × Total", "within"] == OTHER  # the paper pools llama2 + gpt35
    assert "pools llama2 on 1 dataset(s)" in rows.loc["I, imdb × Total", "note"]
    assert rows.loc["I, All × llama2", "within"] == "no"  # llama2 pooled over all 5: judged
    md = comparison.build(t, grammar_scores(), BOOT, SETTINGS).markdown
    assert md.count("14.61 →") == 0 and "see RQ1's first rows" in md
    assert "| RQ1 | Intersectional error rate I, all models and datasets | 14.61 |" in md


def test_rates_over_too_few_documents_are_marked_and_not_judged():
    """G7: an interval over fewer than MIN_DOCUMENTS documents is shown with its count, never
    counted as agreeing or disagreeing with the paper."""
    t = tables()
    few = full_pool(documents=comparison.MIN_DOCUMENTS - 1)
    t["table3"], t["atomic_rates"] = few, full_pool()
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    i_all = rows.loc["Intersectional error rate I, all models and datasets"]
    assert i_all["within"] == comparison.FEW_DOCUMENTS and i_all["run"] == 14.0
    assert f"{comparison.MIN_DOCUMENTS - 1} documents" in i_all["note"]
    assert rows.loc["Atomic error rate, all models", "within"] == "no"  # 50 documents: judged
    md = comparison.build(t, grammar_scores(), BOOT, SETTINGS).markdown
    n = int(rows["within"].eq(comparison.FEW_DOCUMENTS).sum())
    assert n > 2 and f"{n} over fewer than {comparison.MIN_DOCUMENTS} documents" in md


def test_rq5_undefined_rates_are_undefined_and_other_models_not_judged():
    """G13: RQ5's pooled rates with nothing to divide by are "undefined", not "not run"; G6:
    Table 5 is Llama 2 on IMDB, a pool of other models is shown, not judged."""
    t = tables()
    t5 = t["table5"]
    t["table5"] = pd.concat([t5, t5.assign(model="minilm")], ignore_index=True)
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    hidden3 = rows.loc["3-intersectional hidden rate"]
    assert hidden3["within"] == "undefined" and pd.isna(hidden3["run"])
    err2 = rows.loc["2-intersectional error rate"]
    assert err2["run"] == pytest.approx(20.0) and err2["within"] == OTHER
    assert "Llama 2 on IMDB" in err2["note"]


def test_a_constant_models_rates_are_shown_marked_and_not_judged():
    """G12: RQ1's ``constant`` column names gpt35 (every tested original got one label set):
    each row of a cell that holds it is shown, marked "constant model" and never judged; the
    other models' cells are judged as before."""
    t = tables()
    frame = full_pool()
    # the paper tested gpt35 on every dataset: its cells and every pool hold it
    frame["constant"] = ["gpt35" if m in ("gpt35", "Total") else None for m in frame["model"]]
    t["table3"], t["atomic_rates"] = frame, full_pool()
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    gpt = rows.loc["I, imdb × gpt35"]
    assert gpt["within"] == comparison.CONSTANT and gpt["run"] == 14.0
    assert "constant: gpt35" in gpt["note"]
    assert rows.loc["H, All × gpt35", "within"] == comparison.CONSTANT
    assert rows.loc["I, imdb × llama2", "within"] == "no"  # 3.52 outside [13, 16]: judged
    assert rows.loc["Atomic error rate, all models", "within"] == "no"  # no constant column
    md = comparison.build(t, grammar_scores(), BOOT, SETTINGS).markdown
    n = int(rows["within"].eq(comparison.CONSTANT).sum())
    assert n >= 4 and f"{n} of a constant model (shown, not judged)" in md
    assert "(constant)" in md


def test_rq1_names_the_constant_models_each_row_pools(tmp_path):
    """The column the comparison reads, from RQ1's real tables: the small run's models give
    every original one label set, so every cell and pool names them."""
    run = make_rich_run(tmp_path / "work")
    collected = rq1.collect(run.outcome_files)
    assert ("bert", "scotus") in collected.constant
    t3 = rq1.table3(collected, boot=Bootstrap(resamples=20)).data.set_index(["dataset", "model"])
    assert t3.loc[("scotus", "bert"), "constant"] == "bert"
    pooled = set(t3.loc[("All", "Total"), "constant"].split("; "))
    assert pooled == {m for m, _ in collected.constant}
    collected.constant = []
    t3 = rq1.table3(collected, boot=Bootstrap(resamples=20)).data
    assert (t3["constant"] == "").all()


def test_a_pooled_cell_over_other_models_keeps_that_reason_when_it_holds_a_constant_model():
    """Precedence: a pool of other models than the paper's stays "not comparable (other
    models)" (G6) when it also holds a constant model; the note still names it (G12)."""
    t = tables()
    partial = full_pool()
    partial = partial[partial["model"] != "gpt35"]
    partial = partial.assign(
        constant=["llama2" if m in ("llama2", "Total") else None for m in partial["model"]]
    )
    t["table3"], t["atomic_rates"] = partial, full_pool()
    rows = by_quantity(comparison.comparison_rows(t, grammar_scores(), BOOT))
    pooled = rows.loc["Intersectional error rate I, all models and datasets"]
    assert pooled["within"] == OTHER and "constant: llama2" in pooled["note"]
    assert rows.loc["I, imdb × llama2", "within"] == comparison.CONSTANT  # judged otherwise
