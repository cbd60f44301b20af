"""A model directory's files, checked without loading anything (no torch, no transformers).

A fine-tuned model directory (the ``model/`` output of ``train_encoder``, or a practitioner's
own) holds ``config.json``, safetensors weights and a tokenizer; our own also hold
``hinter.json`` (task type, label names, token window), which other directories may lack.
:func:`read_model_dir` checks them all and fails with one line naming the directory; the config
check (:func:`hinter.config.startup_checks`) and the model loader
(:mod:`hinter.models.loading`) both use it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hinter.checkpoints import WEIGHTS, json_object, refuse_remote_code
from hinter.errors import DataError, first_line
from hinter.layout import MULTI_CLASS, MULTI_LABEL

SIDECAR = "hinter.json"
WEIGHTS_INDEX = "model.safetensors.index.json"
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "spm.model",
    "sentencepiece.bpe.model",
)


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


def n_labels_of(config: dict) -> int:
    if config.get("id2label"):
        return len(config["id2label"])
    try:
        return int(config.get("num_labels", 2))
    except (TypeError, ValueError):
        raise DataError(
            f"config.json num_labels {config.get('num_labels')!r} is not a number"
        ) from None
