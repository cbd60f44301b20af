"""User datasets (hinter.userdata): declaration, start-up checks and the data stage."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from hinter import io, prompt_spec, userdata
from hinter.config import load_yaml, validate_config
from hinter.errors import ConfigError, DataError, OfflineError

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "config" / "test" / "user-dataset.yaml"

TRAIN = [
    ("A fine film with a brave woman at its heart.", "pos"),
    ("The old man was boring and so was the plot.", "neg"),
    ("Her husband stole every scene, a delight.", "pos"),
    ("Dull, slow and badly acted.", "neg"),
    ("I loved the black actor in the lead.", "pos"),
]
TEST = [("A lovely story about a young girl.", "pos"), ("Nothing works here.", "neg")]


def _write(path: Path, rows, fmt: str, text="review", label="y") -> Path:
    frame = pd.DataFrame(rows, columns=[text, label])
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True)
    return path


def _config(tmp_path: Path, **spec) -> dict:
    base = {
        "name": "reviews",
        "files": {"train": str(tmp_path / "train.csv"), "test": str(tmp_path / "test.csv")},
        "text": "review",
        "label": "y",
        "labels": ["neg", "pos"],
    }
    base.update(spec)
    return {"run_name": "t", "datasets": [base], "data": {"source": "demo"}}


@pytest.fixture
def files(tmp_path):
    _write(tmp_path / "train.csv", TRAIN, "csv")
    _write(tmp_path / "test.csv", TEST, "csv")
    return tmp_path


def _prepare(cfg: dict, out: Path, base: Path) -> dict:
    valid = validate_config(cfg, base_dir=base)
    name = valid["datasets"][0]
    return userdata.prepare(name, valid["user_datasets"][name], out, base)


def pa_table(rows: list[tuple]):
    import pyarrow as pa

    from hinter import tables

    ids, texts, labels = zip(*rows, strict=True)
    return pa.table({"doc_id": ids, "text": texts, "labels": labels}, schema=tables.DOCUMENTS)


def _table(path: Path) -> list[tuple]:
    t = pq.read_table(path).to_pylist()
    return [(r["doc_id"], r["text"], r["labels"]) for r in t]


# -- declaration and start-up checks ---------------------------------------------------------


def test_mapping_in_datasets_becomes_a_user_dataset_and_the_name_stays(files):
    cfg = _config(files)
    cfg["datasets"].insert(0, "imdb")
    valid = validate_config(cfg, base_dir=files)
    assert valid["datasets"] == ["imdb", "reviews"]
    assert valid["user_datasets"]["reviews"]["task"] == "single_label"  # default filled
    assert validate_config(valid, base_dir=files) == valid  # idempotent


def test_scenario_config_is_valid():
    valid = validate_config(load_yaml(SCENARIO))
    assert valid["datasets"] == ["reviews"]
    assert valid["models"]["encoders"]["minilm"]["datasets"] == ["reviews"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"files": {"train": "nowhere.csv", "test": "t.csv"}}, r"files\.train': file nowhere\.csv"),
        ({"files": {"train": "train.csv"}}, r"files\.test': required"),
        ({"files": {"test": "test.xlsx"}}, r"files\.test': test\.xlsx: unknown file type"),
        ({"text": "body"}, r"'user_datasets\.reviews\.text': column 'body' not in"),
        ({"labels": ["neg", "neg"]}, r"labels': label 'neg' listed twice"),
        ({"task": "regression"}, r"user_datasets\.reviews\.task'"),
        ({"colour": 1}, r"unknown key"),
        ({"hub": {"repo": "x/y"}}, r"either files or hub"),
    ],
)
def test_bad_declarations_are_one_line_errors_naming_the_key(files, change, message):
    cfg = _config(files, **change)
    with pytest.raises(ConfigError, match=message) as info:
        validate_config(cfg, base_dir=files)
    assert "\n" not in str(info.value)


def test_a_mapping_without_a_name_is_named_by_position(files):
    cfg = _config(files)
    del cfg["datasets"][0]["name"]
    with pytest.raises(ConfigError, match=r"'datasets\.0\.name'"):
        validate_config(cfg, base_dir=files)


def test_an_llm_on_a_user_dataset_needs_its_prompt_and_its_templates(files):
    cfg = _config(files)
    cfg["models"] = {
        "llms": {"lm": {"backend": "transformers", "model": "x", "datasets": ["reviews"],
                        "max_new_tokens": {"reviews": 5}}}
    }  # fmt: skip
    with pytest.raises(ConfigError, match=r"user_datasets\.reviews\.prompt': an LLM tests"):
        validate_config(cfg, base_dir=files)
    cfg["datasets"][0]["prompt"] = str(REPO / "config/test/data/reviews-prompt.yaml")
    validate_config(cfg, base_dir=files)
    cfg["sensitivity"] = {"models": ["lm"], "datasets": ["reviews"], "prompts": ["alt9"]}
    with pytest.raises(ConfigError, match=r"no template 'alt9'"):
        validate_config(cfg, base_dir=files)
    (files / "broken.yaml").write_text("examples: []\n")
    cfg["datasets"][0]["prompt"] = str(files / "broken.yaml")
    with pytest.raises(ConfigError, match=r"broken\.yaml.*examples"):
        validate_config(cfg, base_dir=files)


# -- the data stage --------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_every_format_gives_the_same_documents(tmp_path, fmt):
    _write(tmp_path / f"train.{fmt}", TRAIN, fmt)
    _write(tmp_path / f"test.{fmt}", TEST, fmt)
    files = {"train": f"train.{fmt}", "test": f"test.{fmt}"}  # relative to base_dir
    meta = _prepare(_config(tmp_path, files=files), tmp_path / "out", tmp_path)
    assert meta["rows"] == {"train": 5, "validation": 0, "test": 2}
    assert meta["task_type"] == "multi_class" and meta["label_names"] == ["neg", "pos"]
    assert _table(tmp_path / "out" / "test.parquet") == [
        ("test-000000", TEST[0][0], [1]),
        ("test-000001", TEST[1][0], [0]),
    ]
    assert pq.read_table(tmp_path / "out" / "validation.parquet").num_rows == 0
    digest = meta["source"]["files"]["train"]["sha256"]
    assert digest == userdata._sha256(tmp_path / f"train.{fmt}")


def test_integer_labels_index_the_label_names(tmp_path):
    _write(tmp_path / "train.parquet", [(t, int(y == "pos")) for t, y in TRAIN], "parquet")
    _write(tmp_path / "test.parquet", [(t, int(y == "pos")) for t, y in TEST], "parquet")
    cfg = _config(tmp_path, files={"train": "train.parquet", "test": "test.parquet"})
    _prepare(cfg, tmp_path / "out", tmp_path)
    labels = [r[2] for r in _table(tmp_path / "out" / "train.parquet")]
    assert labels == [[1], [0], [1], [0], [1]]


def test_multi_label_cells_and_lists(tmp_path):
    rows = [("a woman and a man", "war|crime"), ("nothing", ""), ("an old man", "crime")]
    _write(tmp_path / "test.csv", rows, "csv")
    cfg = _config(tmp_path, files={"test": "test.csv"}, labels=["crime", "war"])
    cfg["datasets"][0].update(task="multi_label", label_separator="|")
    meta = _prepare(cfg, tmp_path / "out", tmp_path)
    assert meta["task_type"] == "multi_label"
    assert [r[2] for r in _table(tmp_path / "out" / "test.parquet")] == [[0, 1], [], [0]]
    _write(tmp_path / "test.jsonl", [(t, y.split("|") if y else []) for t, y in rows], "jsonl")
    cfg["datasets"][0]["files"] = {"test": "test.jsonl"}
    _prepare(cfg, tmp_path / "out2", tmp_path)
    assert [r[2] for r in _table(tmp_path / "out2" / "test.parquet")] == [[0, 1], [], [0]]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([*TEST, ("fine", "meh")], r"test\.csv \(reviews/test\) row 2 \(line 4\): label 'meh'"),
        ([*TEST, ("", "pos")], r"row 2 \(line 4\): column 'review' has no text"),
        ([*TEST, ("fine", "pos,neg")], r"row 2 .*: label 'pos,neg' is not one of"),
        ([*TEST, ("fine", "7")], r"row 2 .*: label '7' outside 0\.\.1"),
    ],
)
def test_a_bad_row_is_named_and_nothing_is_written(files, rows, message):
    _write(files / "test.csv", rows, "csv")
    out = files / "out"
    with pytest.raises(DataError, match=message) as info:
        _prepare(_config(files), out, files)
    assert "\n" not in str(info.value)
    assert not out.exists() or not any(out.iterdir())


def test_holdout_draws_a_seeded_disjoint_test_split(tmp_path):
    rows = [(f"review number {i} about a woman", "pos" if i % 2 else "neg") for i in range(40)]
    _write(tmp_path / "all.csv", rows, "csv")
    cfg = _config(tmp_path, files={"train": "all.csv"}, holdout={"share": 0.25, "seed": 7})
    meta = _prepare(cfg, tmp_path / "a", tmp_path)
    _prepare(cfg, tmp_path / "b", tmp_path)
    assert meta["rows"] == {"train": 30, "validation": 0, "test": 10}
    assert meta["source"]["holdout"] == {"share": 0.25, "seed": 7}
    train = [r[1] for r in _table(tmp_path / "a" / "train.parquet")]
    test = [r[1] for r in _table(tmp_path / "a" / "test.parquet")]
    assert sorted(train + test) == sorted(t for t, _ in rows) and not set(train) & set(test)
    assert test == [r[1] for r in _table(tmp_path / "b" / "test.parquet")]  # same seed
    cfg["datasets"][0]["holdout"]["seed"] = 8
    _prepare(cfg, tmp_path / "c", tmp_path)
    assert test != [r[1] for r in _table(tmp_path / "c" / "test.parquet")]


def test_label_and_display_name_files(files):
    (files / "labels.txt").write_text("neg\npos\n")
    (files / "shown.txt").write_text("Negative\nPositive\n")
    cfg = _config(files, labels="labels.txt", display_names="shown.txt")
    meta = _prepare(cfg, files / "out", files)
    assert meta["label_names"] == ["neg", "pos"]
    assert meta["display_names"] == ["Negative", "Positive"]
    (files / "shown.txt").write_text("Negative\n")
    with pytest.raises(ConfigError, match=r"display_names': 1 names for 2 labels"):
        validate_config(cfg, base_dir=files)


def test_a_labels_tsv_gives_hub_names_and_display_names(files):
    tsv = REPO / "resources" / "labels" / "imdb.tsv"  # hub_name<TAB>display_name
    meta = _prepare(_config(files, labels=str(tsv), display_names=str(tsv)), files / "out", files)
    assert meta["label_names"] == ["neg", "pos"]
    assert meta["display_names"] == ["Negative", "Positive"]
    scotus = REPO / "resources" / "labels" / "scotus.tsv"  # 13 classes + a display-only 14th
    names = userdata.label_names({"labels": str(scotus)}, files, "k")
    shown = userdata.label_names({"labels": str(scotus)}, files, "k", "display_name")
    assert len(names) == len(shown) == 13


def test_own_prompt_examples_must_be_train_rows(files):
    prompt = (REPO / "config/test/data/reviews-prompt.yaml").read_text()
    (files / "p.yaml").write_text(prompt.replace("index: 2,", "index: 99,"))
    cfg = _config(files, prompt="p.yaml")
    with pytest.raises(DataError, match=r"p\.yaml: examples\[2\]\.index 99 is beyond the 5"):
        _prepare(cfg, files / "out", files)


def test_prompts_dir_points_the_llm_stage_at_the_users_file():
    assert userdata.prompts_dir("reviews", None) is None  # the shipped prompts
    folder = userdata.prompts_dir("reviews", REPO / "config/test/data/reviews-prompt.yaml")
    assert not (prompt_spec.PROMPTS_DIR / "reviews.yaml").exists()  # nothing shared is changed
    spec = prompt_spec.load_prompt_spec("reviews", folder)
    assert set(spec.templates) == {"default", "alt1"}
    assert [e.index for e in spec.examples] == [0, 1, 2]


def test_meta_is_written_last_and_is_json(files):
    meta = _prepare(_config(files), files / "out", files)
    raw = json.loads((files / "out" / "meta.json").read_text())
    assert len(raw.pop(io.JSON_DIGEST)) == 64 and raw == meta  # plain JSON and its digest


def test_a_hub_dataset_offline_fails_at_once_with_advice(files, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = _config(files, hub={"repo": "someone/reviews", "revision": "abc123"})
    del cfg["datasets"][0]["files"]
    with pytest.raises(OfflineError, match=r"someone/reviews .* declare the dataset by files"):
        _prepare(cfg, files / "out", files)


def test_train_is_optional_only_when_nothing_trains_on_it(files):
    cfg = _config(files, files={"test": "test.csv"})
    assert validate_config(cfg, base_dir=files)["user_datasets"]["reviews"]["files"]
    cfg["models"] = {"encoders": {"m": {"checkpoint": "pypi:x", "datasets": ["reviews"]}}}
    with pytest.raises(ConfigError, match=r"files\.train': required \(an encoder is fine-tuned"):
        validate_config(cfg, base_dir=files)
    cfg["models"]["encoders"]["m"]["init"] = "finetuned"  # tested as it is: no train split
    validate_config(cfg, base_dir=files)


def test_named_fewshot_files_and_ids_are_recorded_in_order_not_added_to_a_split(files):
    """G4: ``fewshot`` names the prompt's examples (a file and its label, or a train row id):
    meta.json records them in order; the splits are unchanged; a bad entry is one line."""
    (files / "ex.txt").write_bytes("Line one.<br /><br />Line two ✓\n".encode())
    fewshot = [{"file": "ex.txt", "label": "pos"}, {"id": "train-000001"},
               {"file": str(files / "ex.txt"), "label": "neg"}]  # fmt: skip
    meta = _prepare(_config(files, fewshot=fewshot), files / "out", files)
    got = [(r["doc_id"], r["text"], r["labels"]) for r in meta["fewshot"]]
    assert got == [
        ("fewshot-0", "Line one.<br /><br />Line two ✓\n", [1]),
        ("train-000001", TRAIN[1][0], [0]),
        ("fewshot-2", "Line one.<br /><br />Line two ✓\n", [0]),
    ]
    assert len(_table(files / "out" / "train.parquet")) == len(TRAIN)
    bad = [{**fewshot[0], "label": "meh"}, *fewshot[1:]]
    with pytest.raises(ConfigError, match=r"fewshot\.0\.label': 'meh' is not one of"):
        validate_config(_config(files, fewshot=bad), base_dir=files)
    with pytest.raises(ConfigError, match=r"fewshot\.1': give either file"):
        validate_config(_config(files, fewshot=[fewshot[0], {}, fewshot[2]]), base_dir=files)
    missing = [fewshot[0], {"id": "train-000099"}, fewshot[2]]
    with pytest.raises(DataError, match=r"few-shot id 'train-000099' is not a row"):
        _prepare(_config(files, fewshot=missing), files / "out2", files)


def test_named_fewshot_examples_are_the_prompts_and_not_the_papers_unless_their_digests(caplog):
    from hinter.models.prompts import named_examples, resolve_examples, text_digest

    spec = prompt_spec.load_prompt_spec("imdb")
    named = [{"doc_id": f"fewshot-{i}", "text": f"Review {i}.", "labels": [i % 2]}
             for i in range(3)]  # fmt: skip
    train = pa_table([("train-000000", "Other.", [0])])
    with caplog.at_level("WARNING"):
        examples = resolve_examples(spec, train, named=named)
    assert [e.doc_id for e in examples] == ["fewshot-0", "fewshot-1", "fewshot-2"]
    assert [e.text for e in examples] == ["Review 0.", "Review 1.", "Review 2."]
    assert not any(e.by_content for e in examples) and not caplog.records
    digests = [e.sha256 for e in spec.examples]
    assert digests != [text_digest(n["text"]) for n in named]
    with pytest.raises(DataError, match="2 few-shot examples named, not 3"):
        named_examples(spec, named[:2])


def test_rq1_captions_say_whose_fewshot_examples_each_prompt_shows(files):
    """G4: the caption line is the paper's for a hub dataset, the named files for a user
    dataset naming them, and a stand-in warning for one that names none."""
    from hinter.rq import captions

    llm = {"lm": {"backend": "transformers", "model": "x", "datasets": ["reviews", "imdb"],
                  "max_new_tokens": {"reviews": 5, "imdb": 7}}}  # fmt: skip
    (files / "ex.txt").write_text("A fine film.")
    fewshot = [{"file": "ex.txt", "label": "pos"}, {"id": "train-000001"},
               {"file": "ex.txt", "label": "neg"}]  # fmt: skip
    prompt = str(REPO / "config/test/data/reviews-prompt.yaml")
    for named, want in ((fewshot, "reviews: named in the config (ex.txt, train-000001, ex.txt)"),
                        (None, "reviews: none named; the paper's if the train split holds them, "
                               "else the first train rows")):  # fmt: skip
        cfg = _config(files, prompt=prompt, fewshot=named)
        cfg["datasets"].append("imdb")
        cfg["models"] = {"llms": llm}
        text = captions.fewshot(validate_config(cfg, base_dir=files))
        assert "imdb: the paper's (001 Table 8)" in text and want in text


def test_a_fifo_is_not_a_regular_file_and_a_repeated_column_is_refused(files):
    """Review 2026-11-28 U13 (a FIFO was 'not found'), U16 (a second 'review' column was
    renamed 'review.1' by pandas and the first used silently)."""
    import os

    os.mkfifo(files / "fifo.csv")
    cfg = _config(files, files={"train": "train.csv", "test": "fifo.csv"})
    with pytest.raises(ConfigError, match=r"files\.test': fifo\.csv is not a regular file"):
        validate_config(cfg, base_dir=files)
    (files / "twice.csv").write_text("review,y,review\nA text.,pos,Other.\n", encoding="utf-8")
    cfg = _config(files, files={"train": "train.csv", "test": "twice.csv"})
    with pytest.raises(ConfigError, match=r"files\.test': twice\.csv: column 'review' appears"):
        validate_config(cfg, base_dir=files)


def test_a_split_file_inside_the_runs_results_folder_is_refused(files):
    """An output never overwrites an input, in the workflow too: a user dataset's file inside
    results/<run>/ is where the data stage writes."""
    from hinter.layout import RunLayout

    inside = Path(RunLayout(str(files / "results" / "t")).data_dir("reviews"))
    inside.mkdir(parents=True)
    _write(inside / "test.parquet", TEST, "parquet")
    cfg = _config(files, files={"train": "train.csv", "test": str(inside / "test.parquet")})
    cfg["results_dir"] = str(files / "results")
    with pytest.raises(ConfigError, match=r"files\.test': .*test\.parquet is inside the run's"):
        validate_config(cfg, base_dir=files)
