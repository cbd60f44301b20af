"""Shared helpers of the models tests: tiny classifiers and synthetic texts (built in seconds)."""

from __future__ import annotations

import random

import pytest
import torch

from hinter import io
from hinter.model_dir import SIDECAR
from hinter.models.tokenizers import train_demo_tokenizer
from hinter.models.training import random_config

VOCABULARY = (
    "the court held that applicant man woman black white tall short violation article judge "
    "state police prison detention family home he she his her old young"
)
WORDS = VOCABULARY.split()
MAX_LENGTH = 24


def text_of(rng: random.Random, n: int) -> str:
    sentences = []
    while n > 0:
        k = min(n, rng.randrange(4, 9))
        sentences.append(" ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + ".")
        n -= k
    return " ".join(sentences)


def make_model_dir(path, arch="bert", tokenizer="demo-wordpiece", n_labels=3, task="multi_label"):
    """A tiny random classifier saved like train_encoder's (weights spread out on purpose)."""
    rng = random.Random(1)
    tok = train_demo_tokenizer(tokenizer, [text_of(rng, 30) for _ in range(30)], MAX_LENGTH)
    spec = {
        "architecture": arch,
        "size": {
            "hidden_size": 32,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "intermediate_size": 64,
            "initializer_range": 0.5,
        },
    }
    config = random_config(spec, tok, n_labels, MAX_LENGTH)
    config.problem_type = (
        "multi_label_classification" if task == "multi_label" else "single_label_classification"
    )
    torch.manual_seed(0)
    from transformers import AutoModelForSequenceClassification

    AutoModelForSequenceClassification.from_config(config).save_pretrained(path)
    tok.save_pretrained(path)
    io.write_json(
        path / SIDECAR, {"task_type": task, "n_labels": n_labels, "max_length": MAX_LENGTH}
    )
    return path


class ForwardCounter:
    """Counts the model's real forward calls and the rows they carry."""

    def __init__(self, model):
        self.calls = self.rows = 0
        model.register_forward_hook(self._hook)

    def _hook(self, module, args, kwargs_or_output, *rest):
        self.calls += 1

    def reset(self):
        self.calls = 0


def write_documents(out, task, n_labels, sizes=(24, 8, 8), empty_label_name=None, seed=0):
    """A small dataset in the documents contract: a keyword per label makes it learnable."""
    import pyarrow as pa

    from hinter import tables

    rng = random.Random(seed)
    for split, n in zip(("train", "validation", "test"), sizes, strict=True):
        rows = []
        for i in range(n):
            if task == "multi_class":
                labels = [rng.randrange(n_labels)]
            else:
                labels = sorted(rng.sample(range(n_labels), rng.randrange(0, 3)))
            cue = " ".join(f"topic{label}" for label in labels)
            rows.append(
                {
                    "doc_id": f"{split}-{i:06d}",
                    "text": f"{text_of(rng, 12)} {cue}.",
                    "labels": labels,
                }
            )
        table = pa.Table.from_pylist(rows, schema=tables.DOCUMENTS)
        io.write_parquet(table, out / f"{split}.parquet", tables.DOCUMENTS)
    meta = {
        "dataset": out.name,
        "task_type": task,
        "label_names": [f"label{i}" for i in range(n_labels)],
        "n_labels": n_labels,
        "empty_label_name": empty_label_name,
    }
    io.write_json(out / "meta.json", meta)
    return {s: out / f"{s}.parquet" for s in ("train", "validation", "test")}, out / "meta.json"


@pytest.fixture(scope="module")
def single_thread():
    """Tiny models run fastest on one thread (and suffer most from oversubscribed cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
