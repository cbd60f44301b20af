"""RQ1 tables from a hand-made run directory: Table 3 equals the rates module, totals pool
counts, examples show the edits in bold, and a rerun is byte-identical."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from oracle_cases import TEXT, Suite, add_case
from rq_runs import META, Run, make_run, write_shards

from hinter import io, oracle, rates, statistics
from hinter.edits import Edit
from hinter.layout import RunLayout
from hinter.plots import rq1 as rq1_plots
from hinter.rq import examples as rq_examples
from hinter.rq import outputs, rq1
from hinter.rq.outcomes import OutcomeFile


def test_rq1_tables_match_the_rates_module_and_rerun_identically(tmp_path):
    run = make_run(tmp_path)
    files, examples = run.outcome_files, run.example_files
    out = tmp_path / "rq1"
    written = rq1.write_tables(files, examples, out, datasets=["scotus", "imdb"], examples=5)
    assert sorted(p.name for p in written) == sorted(
        f"{n}.{e}" for n in rq1.TABLES for e in ("csv", "md", "html")
    )
    first = {p.name: p.read_bytes() for p in written}
    rq1.write_tables(files, examples, out, datasets=["scotus", "imdb"], examples=5)
    assert {p.name: p.read_bytes() for p in written} == first

    t3 = pd.read_csv(out / "table3.csv")
    frames = []
    for f in files:
        if f.order == 2:
            frame = io.read_parquet(f.path).to_pandas()
            frames.append(frame.assign(model=f.model, dataset=f.dataset))
    allrows = pd.concat(frames)
    direct = rates.add_rates(rates.counts(allrows, by=["model", "dataset"]))
    for r in direct.itertuples():
        row = t3[(t3["model"] == r.model) & (t3["dataset"] == r.dataset)].iloc[0]
        assert row["error_rate_pct"] == pytest.approx(100 * r.error_rate)
        assert row["hidden_rate_pct"] == pytest.approx(100 * r.hidden_rate)
    total = t3[(t3["model"] == "Total") & (t3["dataset"] == "All")].iloc[0]
    # 8 intersectional mutants, 6 bias-inducing, 4 of them hidden (E,B,B)
    assert (total["decided"], total["errors"], total["hidden_base"], total["hidden"]) == (
        8,
        6,
        6,
        4,
    )
    llama_imdb = t3[(t3["model"] == "llama") & (t3["dataset"] == "imdb")].iloc[0]
    assert llama_imdb["hidden_rate_pct"] == pytest.approx(100 * 2 / 3)
    assert t3[(t3["model"] == "llama") & (t3["dataset"] == "scotus")].empty  # not tested

    md = (out / "table3.md").read_text()
    assert "| scotus | 66.67 \\[0.00, 100.00\\] (50.00 \\[0.00, 100.00\\]) | N/A |" in md
    # 3 of 5: the bootstrap's low end (20.00) widened to the exact interval's (14.66), G7
    assert "| All | 60.00 \\[14.66, 100.00\\] (66.67 \\[0.00, 100.00\\]) |" in md
    assert "B = 2000 resamples, seed 42" in md

    # Every interval is the bootstrap of hinter.statistics over the original documents, drawn
    # as statistics draws them: per (dataset, model) cell, documents keyed by (dataset, doc_id).
    docs = statistics.document_counts(allrows, by=["model", "dataset"])
    direct_ci = statistics.bootstrap_rates(
        docs, by=["dataset", "model"], cluster=["dataset", "doc_id"], resamples=2000, seed=42
    )
    for r in direct_ci[direct_ci["rate"].isin(["error_rate", "hidden_rate"])].itertuples():
        row = t3[(t3["model"] == r.model) & (t3["dataset"] == r.dataset)].iloc[0]
        assert row[f"{r.rate}_lo_pct"] == pytest.approx(100 * r.low, abs=1e-4)
        assert row[f"{r.rate}_hi_pct"] == pytest.approx(100 * r.high, abs=1e-4)
    assert (t3["error_rate_lo_pct"] <= t3["error_rate_pct"]).all()
    assert (t3["error_rate_pct"] <= t3["error_rate_hi_pct"]).all()

    atomic = pd.read_csv(out / "atomic_rates.csv")
    atomic_total = atomic[(atomic["model"] == "Total") & (atomic["dataset"] == "All")].iloc[0]
    assert atomic_total["errors"] == 3
    # intersectional 6/8 vs atomic 3/8, paired on the documents both suites tested
    assert atomic_total["intersectional_error_rate_pct"] == pytest.approx(75.0)
    assert atomic_total["difference_pct"] == pytest.approx(37.5)
    assert atomic_total["difference_lo_pct"] > 0 and atomic_total["significant"] == "yes"
    assert set(atomic["significant"]) == {"yes", "no", "too few"}
    # G7: a verdict needs MIN_DOCUMENTS documents on each side, else "too few", never "yes"
    few = atomic["documents"] < statistics.MIN_DOCUMENTS
    assert (atomic.loc[few, "significant"] == "too few").all() and few.any()
    assert "(too few)" in (out / "atomic_rates.md").read_text()
    assert "## Intersectional (N=2) vs atomic" in (out / "atomic_rates.md").read_text()

    distinct = pd.read_csv(out / "distinct_originals.csv")
    pooled = distinct[(distinct["model"] == "Total") & (distinct["kind"] == "intersectional")].iloc[
        0
    ]
    assert (pooled["originals"], pooled["bias_inducing"]) == (8, 6)

    # Figs. 4 and 5: every bar shows its counts beside its rate, errors/decided in (a),
    # bias-inducing/tested originals in (b), read from the same tables
    frames = {n: pd.read_csv(out / f"{n}.csv") for n in rq1.TABLES if (out / f"{n}.csv").exists()}
    drawn = rq1_plots.build_figures(frames)
    for name, table, kind in (("fig4", t3, "intersectional"), ("fig5", atomic, "atomic")):
        rate_panel, share_panel = drawn[name].axes[:2]
        rows = table[table["dataset"] == "All"]
        assert [t.get_text().split("\n")[-1] for t in rate_panel.texts] == [
            f"{e}/{d}" for e, d in zip(rows["errors"], rows["decided"], strict=True)
        ]
        shares = distinct[(distinct["dataset"] == "All") & (distinct["kind"] == kind)]
        assert [t.get_text().split("\n")[-1] for t in share_panel.texts] == [
            f"{b}/{n}" for b, n in zip(shares["bias_inducing"], shares["originals"], strict=True)
        ]
    assert "6/8" in [t.get_text().split("\n")[-1] for t in drawn["fig4"].axes[0].texts]

    truth = pd.read_csv(out / "truth_table.csv")
    total_cells = truth[truth["suite"] == "Total"].set_index("pattern")["count"]
    assert (
        total_cells["E,B,B"] == 4
        and total_cells["E,E,B"] == 1
        and total_cells["E,B,E"] == 1
        and total_cells["B,E,E"] == 1
    )
    assert total_cells.drop("parent discarded").sum() == 8
    text = (out / "truth_table.md").read_text()
    assert "counts 1 (16.67%)" in text  # the artifact's condition: E,B,E

    examples_csv = pd.read_csv(out / "hidden_examples.csv")
    assert examples_csv["mutant_id"].nunique() == 4
    assert set(examples_csv["type"]) == {"Original", "Atomic I", "Atomic II", "Intersectional"}
    inter_lines = examples_csv[examples_csv["type"] == "Intersectional"]
    assert (inter_lines["bias"] == "X").all() and (inter_lines["prediction"] == "Positive").all()
    assert (
        "**Pakistani**" in inter_lines["text"].iloc[0]
        and "**trans women**" in inter_lines["text"].iloc[0]
    )
    race_line = examples_csv[examples_csv["type"] == "Atomic I"].iloc[0]
    assert race_line["attributes"] == "Race" and race_line["mutations"] == "British → Pakistani"
    assert "**Pakistani**" in race_line["text"] and "trans women" not in race_line["text"]
    # an atomic line bolds only the word it edits, not the other attribute's unedited word
    assert "**people**" not in race_line["text"] and " people " in race_line["text"]
    gender_line = examples_csv[examples_csv["type"] == "Atomic II"].iloc[0]
    assert "**trans women**" in gender_line["text"] and "**British**" not in gender_line["text"]
    original_line = examples_csv[examples_csv["type"] == "Original"].iloc[0]
    assert "**people**" in original_line["text"] and "**British**" in original_line["text"]

    correct = pd.read_csv(out / "correctness.csv")
    errors_total = correct[
        (correct["population"] == "intersectional") & (correct["model"] == "Total")
    ]
    assert errors_total.groupby("input")["count"].sum().to_dict() == {"mutant": 6, "original": 6}


def test_highlight_windows_and_bold_edits():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    edit = Edit(text.index("delta"), text.index("delta") + 5, "DELTA*")
    got = rq_examples.highlight(text, [edit], [(edit.start, edit.end)], context=7)
    assert got == "… beta gamma **DELTA\\*** epsilon …"
    span = [(edit.start, edit.end)]
    original = rq_examples.highlight(text, [], span, context=7, bold=span)
    assert original == "… beta gamma **delta** epsilon …"
    far = Edit(text.index("lambda"), text.index("lambda") + 6, "LAMBDA")
    marks = [(edit.start, edit.end), (far.start, far.end)]
    two = rq_examples.highlight(text, [far], marks, context=3)
    assert two == "… gamma delta epsilon … kappa **LAMBDA** mu"  # only its own edit is bold
    assert rq_examples.highlight(text, [], marks, context=3, bold=marks) == (
        "… gamma **delta** epsilon … kappa **lambda** mu"
    )


def test_label_text_names_and_empty_sets():
    assert rq_examples.label_text([1], META) == "Positive"
    assert rq_examples.label_text([], META) == "no answer"
    assert rq_examples.label_text([], {**META, "empty_label_name": "none"}) == "none"
    assert rq_examples.label_text(None, META) == "?"


def test_empty_run_writes_every_table(tmp_path):
    suite = Suite("inter-race+gender")
    add_case(suite, "d1", False, [False, False])
    paths = write_shards(tmp_path / "in", [suite])
    layout = RunLayout(str(tmp_path / "results"))
    out = layout.outcomes("m", "imdb", "inter-race+gender")
    oracle.write_suite_outcomes("inter-race+gender", meta=META, output=out, **paths)
    ex = layout.examples("m", "imdb", "inter-race+gender")
    n = rq_examples.write_hidden_examples(
        model="m",
        dataset="imdb",
        suite="inter-race+gender",
        outcomes=out,
        mutants=paths["mutants"],
        docs=paths["docs"],
        meta=META,
        output=ex,
    )
    assert n == 0
    rq_dir = Path(layout.rq_dir(1))
    written = rq1.write_tables(
        [OutcomeFile("m", "imdb", "inter-race+gender", Path(out))], [ex], rq_dir
    )
    assert len(written) == 3 * len(rq1.TABLES)
    assert "No hidden intersectional bias" in (rq_dir / "hidden_examples.md").read_text()
    # 0 errors of 1 mutant: the exact interval [0, 97.5], never the bootstrap's [0.00, 0.00] (G7)
    assert (
        "| All | 0.00 \\[0.00, 97.50\\] (–) | 0.00 \\[0.00, 97.50\\] (–) |"
        in (rq_dir / "table3.md").read_text()
    )
    t3 = pd.read_csv(rq_dir / "table3.csv")
    total = t3[t3["model"] == "Total"].iloc[0]
    assert (total["errors"], total["decided"]) == (0, 1)
    low, high = statistics.exact_interval(0, 1)
    assert (total["error_rate_lo_pct"], total["error_rate_hi_pct"]) == pytest.approx(
        (100 * low, 100 * high)
    )
    figures = rq1_plots.write_figures(rq_dir, rq_dir)  # nothing to divide: figures still drawn
    assert sorted(p.name for p in figures) == sorted(
        f"{n}.{e}" for n in rq1_plots.FIGURES for e in ("pdf", "png")
    )


def test_every_registered_output_has_a_builder(tmp_path):
    run = make_run(tmp_path)
    out = tmp_path / "rq1"
    tables = rq1.write_tables(run.outcome_files, run.example_files, out)
    figures = rq1_plots.write_figures(out, out)
    expected = {f"{o.name}.{ext}" for o in outputs.outputs(1) for ext in o.extensions}
    assert {p.name for p in tables + figures} == expected


def test_the_rq_rules_take_their_outputs_from_the_registry(repo):
    """No output name is copied into the rule files: they build them from hinter.rq.outputs."""
    rules = repo / "workflow" / "rules"
    common, rq = (rules / "common.smk").read_text(), (rules / "rq.smk").read_text()
    assert "from hinter.rq import outputs as rq_outputs" in common
    assert "**rq_files(1, rq_outputs.TABLE)" in rq and "**rq_files(n, rq_outputs.FIGURE)" in rq
    for name in outputs.names(1):
        for text in (common, rq):
            assert f'"{name}"' not in text, f"{name} is spelled out in a rule file"


def test_a_constant_model_is_named_in_every_rate_caption_and_a_reacting_one_is_not(tmp_path):
    """Review 2026-11-28 G12, planted truth: "flat" gives every tested original (over two
    suites) the label set {0} and never flips, so its 0% error rate says nothing about bias;
    "varied" gives the originals {0} and {1} and also never flips: only "flat" is named, in
    every RQ1 caption that shows a model's rates, and nowhere else."""
    run = Run(tmp_path)
    for model, preds in (("flat", [(0,), (0,), (0,)]), ("varied", [(0,), (1,), (0,)])):
        atomic, inter = Suite("atomic-race"), Suite("inter-race+gender")
        for i, pred in enumerate(preds):
            doc = f"imdb-{i}"
            for suite in (atomic, inter):
                suite.doc(doc, TEXT, pred=pred)
            atomic.atomic(doc, "race", "British", "Pakistani", pred=pred, role="mutant")
            add_case(inter, doc, False, [False, False])
        run.add(model, "imdb", "atomic-race", [atomic])
        run.add(model, "imdb", "inter-race+gender", [inter])
    collected = rq1.collect(run.outcome_files)
    assert collected.constant == [("flat", "imdb")]
    sentence = rq1.CONSTANT_NOTE.format(model="flat", dataset="imdb")
    assert sentence.startswith("constant model: flat on imdb predicted one label set for every")
    tables = rq1.build_tables(collected, run.example_files, boot=rq1.Bootstrap(resamples=20))
    for name in ("table3", "atomic_rates", "rates_by_suite", "distinct_originals"):
        caption = tables[name].markdown.split("\n\n")[1]
        assert sentence in caption, name
        assert "varied on imdb" not in caption and caption.count("constant model:") == 1, name
    for name in ("truth_table", "correctness"):  # no model's rates: no sentence
        assert "constant model:" not in tables[name].markdown, name


def test_one_original_or_a_model_error_makes_no_constant_model(tmp_path):
    """A single tested original says nothing either way; an original the model could not
    predict (no label set) is left out of the count, not a label set of its own."""
    run = Run(tmp_path)
    single = Suite("atomic-race")
    single.doc("imdb-0", TEXT, pred=(0,))
    single.atomic("imdb-0", "race", "British", "Pakistani", pred=(0,), role="mutant")
    run.add("single", "imdb", "atomic-race", [single])
    errored = Suite("atomic-race")
    for i, (pred, status) in enumerate([((0,), "ok"), ((0,), "ok"), (None, "error")]):
        errored.doc(f"imdb-{i}", TEXT, pred=pred, status=status)
        errored.atomic(f"imdb-{i}", "race", "British", "Pakistani", pred=(0,), role="mutant")
    run.add("errored", "imdb", "atomic-race", [errored])
    assert rq1.collect(run.outcome_files).constant == [("errored", "imdb")]
