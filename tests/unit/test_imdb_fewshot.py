"""IMDB's few-shot reviews (001 Table 8) found by content in real data laid out as the hub has it.

The fixture is built at test time from ``../shared/real/imdb/`` (real aclImdb train reviews and
the three Table 8 reviews, byte for byte), never copied into the repository: a hub-layout Parquet
train split in archive order (negative reviews first), loaded by ``datasets`` and normalised by
the project's own loader, as a hub run would see it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hinter.data import FACTS, display_names, normalise
from hinter.errors import DataError
from hinter.models.prompts import (
    check_paper_examples,
    resolve_examples,
    text_digest,
    truncate_words,
)
from hinter.prompt_spec import PROMPTS_DIR, load_prompt_spec

REPO = Path(__file__).resolve().parents[2]
REAL = Path(os.environ.get("HINTER_REAL_DATA", REPO.parent / "shared" / "real")) / "imdb"
FEWSHOT = {  # file under real/imdb/fewshot -> (aclImdb file, label)
    "train-pos-4120_9.txt": ("aclImdb/train/pos/4120_9.txt", 1),
    "train-neg-4771_2.txt": ("aclImdb/train/neg/4771_2.txt", 0),
    "train-pos-6096_10.txt": ("aclImdb/train/pos/6096_10.txt", 1),
}

pytestmark = pytest.mark.skipif(
    not (REAL / "train-sample-2000.parquet").is_file()
    or not all((REAL / "fewshot" / f).is_file() for f in FEWSHOT),
    reason=f"real IMDB samples not found under {REAL} (set HINTER_REAL_DATA to ../shared/real)",
)


def _fewshot_texts() -> dict[str, str]:
    # bytes decoded as they are (no newline translation): the hub's text is the file's content
    return {f: (REAL / "fewshot" / f).read_bytes().decode("utf-8") for f in FEWSHOT}


def _hub_train(tmp: Path, leave_out: str | None = None):
    """A hub-layout IMDB (``plain_text/{train,test}-00000-of-00001.parquet``, ClassLabel neg/pos)
    whose train split is the real sample plus the Table 8 reviews, negatives first; the train
    table as the project normalises it."""
    import datasets

    sample = pq.read_table(REAL / "train-sample-2000.parquet").to_pydict()
    rows = list(zip(sample["text"], sample["label"], strict=True))
    for name, text in _fewshot_texts().items():
        if name != leave_out:
            rows.insert(len(rows) // 3, (text, FEWSHOT[name][1]))
    rows.sort(key=lambda r: r[1])  # archive order: neg, then pos (stable)
    features = datasets.Features(
        {"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])}
    )
    folder = tmp / "plain_text"
    folder.mkdir(parents=True)
    for split, part in (("train", rows), ("test", rows[:10])):
        ds = datasets.Dataset.from_dict(
            {"text": [t for t, _ in part], "label": [y for _, y in part]}, features=features
        )
        ds.to_parquet(str(folder / f"{split}-00000-of-00001.parquet"))
    dsd = datasets.load_dataset(
        "parquet",
        data_files={s: str(folder / f"{s}-00000-of-00001.parquet") for s in ("train", "test")},
        cache_dir=str(tmp / "hf-cache"),
    )
    tables, _ = normalise(FACTS["imdb"], dsd, check_sizes=False, source="stanfordnlp/imdb")
    return tables["train"]


@pytest.fixture(scope="module")
def hub_train(tmp_path_factory):
    return _hub_train(tmp_path_factory.mktemp("imdb-hub"))


def test_digests_in_the_prompt_file_are_the_real_reviews():
    spec = load_prompt_spec("imdb")
    texts = _fewshot_texts()
    assert [(e.source, e.sha256) for e in spec.examples] == [
        (FEWSHOT[f][0], text_digest(texts[f])) for f in FEWSHOT
    ]


def test_examples_are_found_by_content_in_the_hub_layout(hub_train):
    spec = load_prompt_spec("imdb")
    examples = resolve_examples(spec, hub_train, from_hub=True)
    texts = _fewshot_texts()
    rows = hub_train.column("text").to_pylist()
    for example, name in zip(examples, FEWSHOT, strict=True):
        assert example.by_content
        assert rows[example.index] == texts[name]  # the exact text, wherever it stands
        assert example.doc_id == f"train-{example.index:06d}"
        assert example.labels == (FEWSHOT[name][1],)
        assert example.text == truncate_words(texts[name], spec.example_words)
    # the real review opens with markup, not with the paper's edited excerpt
    assert examples[0].text.startswith("<br /><br />In 1970, after a five year absence")
    names = display_names("imdb", PROMPTS_DIR.parent / "labels")
    assert check_paper_examples(spec, examples, names) == []


def test_a_missing_review_stops_a_hub_run(tmp_path):
    train = _hub_train(tmp_path, leave_out="train-pos-6096_10.txt")
    with pytest.raises(DataError) as info:
        resolve_examples(load_prompt_spec("imdb"), train, from_hub=True)
    message = str(info.value)
    assert "few-shot example aclImdb/train/pos/6096_10.txt (sha256 01040ad2e90c513c…)" in message
    assert "not in the imdb train split (2002 rows searched" in message
    assert "\n" not in message


def test_a_found_review_with_another_label_stops_the_run(hub_train, tmp_path):
    """The review is the paper's (same text), its label is not the paper's answer: a data
    fault that stops loading the prompt, not a warning."""
    import pyarrow as pa

    from hinter import io, tables
    from hinter.models.llm import load_prompt

    spec = load_prompt_spec("imdb")
    row = resolve_examples(spec, hub_train, from_hub=True)[0].index
    labels = hub_train.column("labels").to_pylist()
    meta = {"dataset": "imdb", "label_names": ["neg", "pos"],
            "display_names": ["Negative", "Positive"]}  # fmt: skip
    good = tmp_path / "train.parquet"
    io.write_parquet(hub_train, good, tables.DOCUMENTS)
    prompt = load_prompt("imdb", "default", meta, good, from_hub=True)
    assert prompt.examples[0].index == row
    labels[row] = [0]  # 4120_9 is a positive review
    bad = tmp_path / "relabelled.parquet"
    relabelled = hub_train.set_column(
        2, "labels", pa.array(labels, tables.DOCUMENTS.field("labels").type)
    )
    io.write_parquet(relabelled, bad, tables.DOCUMENTS)
    with pytest.raises(DataError, match=r"imdb few-shot example: aclImdb/train/pos/4120_9\.txt"):
        load_prompt("imdb", "default", meta, bad, from_hub=True)


def test_the_sample_configs_named_fewshot_files_give_the_papers_prompt(tmp_path, caplog):
    """G4: config/sample.yaml names the three Table 8 files for its user dataset ``imdb``: the
    data stage records them (byte for byte, labels from the label names) and the prompt shows
    them as the paper's, found by their digests, with no fallback warning; without the key the
    sample's train split lacks them, so the stand-ins are used and a warning says so."""
    import yaml

    from hinter import userdata
    from hinter.config import validate_config

    text = (REPO / "config" / "sample.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text.replace("../shared/real", str(REAL.parent)))  # wherever it lies
    raw["dictionary"]["sbic"]["folder"] = str(REPO)  # not read here
    cfg = validate_config(raw, base_dir=REPO)
    spec = cfg["user_datasets"]["imdb"]
    meta = userdata.prepare("imdb", spec, tmp_path / "imdb", REPO)
    texts = _fewshot_texts()
    assert [r["text"] for r in meta["fewshot"]] == [texts[f] for f in FEWSHOT]
    assert [r["labels"] for r in meta["fewshot"]] == [[label] for _, label in FEWSHOT.values()]
    prompt_spec = load_prompt_spec("imdb")
    train = pq.read_table(tmp_path / "imdb" / "train.parquet")
    with caplog.at_level("WARNING"):
        examples = resolve_examples(prompt_spec, train, named=meta["fewshot"])
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert all(e.by_content for e in examples) and not warnings
    names = display_names("imdb", PROMPTS_DIR.parent / "labels")
    assert check_paper_examples(prompt_spec, examples, names) == []
    with caplog.at_level("WARNING"):
        stand_ins = resolve_examples(prompt_spec, train)
    assert not any(e.by_content for e in stand_ins)
    assert "not the paper's" in caplog.text and stand_ins[0].doc_id in caplog.text
