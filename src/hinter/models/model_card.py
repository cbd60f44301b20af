"""What a trained model directory says about itself: the model card (``README.md``), the exact
training arguments (``training_args.json``) and the training record (``training.json``) beside
the weights, the tokenizer and the ``hinter.json`` sidecar (:mod:`hinter.model_dir`).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hinter.model_dir import SIDECAR

if TYPE_CHECKING:
    from hinter.models.training import TrainingSettings


def write_model_dir(
    staged: Path,
    trainer,
    tokenizer,
    sidecar: Mapping[str, Any],
    training_args: Mapping[str, Any],
    training: Mapping[str, Any],
    card: str,
) -> None:
    """The kept model, its tokenizer, sidecar, training arguments, training record and model
    card, into ``staged``."""
    final = trainer.accelerator.unwrap_model(trainer.model, keep_torch_compile=False)
    final.save_pretrained(staged)
    tokenizer.save_pretrained(staged)
    # The staged directory is renamed into place as a whole, so plain writes suffice here.
    dump_json(staged / SIDECAR, sidecar)
    dump_json(staged / "training_args.json", training_args)
    dump_json(staged / "training.json", training)
    (staged / "README.md").write_text(card, encoding="utf-8")


def sidecar_record(
    model_name: str,
    dataset: str,
    meta: Mapping[str, Any],
    max_length: int,
    provenance: Mapping[str, Any],
) -> dict[str, Any]:
    """hinter.json: the task type, label names and token window the model was trained with."""
    return {
        "format": 1,
        "model": model_name,
        "dataset": dataset,
        "task_type": meta["task_type"],
        "n_labels": int(meta["n_labels"]),
        "label_names": meta.get("label_names"),
        "empty_label_name": meta.get("empty_label_name"),
        "max_length": max_length,
        "source": provenance,
    }


def dump_json(path: Path, obj: Any) -> None:
    path.write_text(
        json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def training_record(trainer, seconds: float) -> dict[str, Any]:
    """How the training went (training.json): time, device, versions, the per-epoch log."""
    import torch
    import transformers

    return {
        "seconds": round(seconds, 3),
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "log_history": trainer.state.log_history,
    }


def training_args_record(args, settings: TrainingSettings, seed: int) -> dict[str, Any]:
    """The exact Trainer arguments (JSON, no machine-specific paths) and the recipe settings."""
    raw = json.loads(args.to_json_string())
    for key in ("output_dir", "logging_dir"):
        raw.pop(key, None)
    return {"recipe": asdict(settings), "seed": seed, "trainer": raw}


def model_card(
    sidecar: Mapping[str, Any], settings: TrainingSettings, metrics: Mapping[str, Any]
) -> str:
    """A short Markdown model card of the model ``sidecar`` (:func:`sidecar_record`) describes:
    what it is, how it was trained, how well it does."""
    name, dataset, source = sidecar["model"], sidecar["dataset"], sidecar["source"]
    if source["init"] == "random":
        size = json.dumps(source["size"], sort_keys=True)
        base = f"randomly initialised {source['architecture']} ({size})"
    else:
        base = f"`{source['checkpoint']}`" + (
            f" at revision `{source['revision']}`" if source.get("revision") else ""
        )
    lines = [
        f"# {name} fine-tuned on {dataset}",
        "",
        f"- Base: {base}; init `{source['init']}`.",
        f"- Task: {sidecar['task_type']} over {sidecar['n_labels']} labels"
        + (
            f' (empty set = "{sidecar["empty_label_name"]}")'
            if sidecar.get("empty_label_name")
            else ""
        )
        + f"; inputs truncated to {settings.max_length} tokens.",
        f"- Recipe (LexGLUE): lr {settings.learning_rate:g}, up to {settings.epochs} epochs, batch "
        f"{settings.batch_size} × accumulation {settings.gradient_accumulation}, early stopping "
        f"patience {settings.patience}, best epoch by validation micro-F1 "
        + (
            f"(epoch {metrics['best_epoch']} of {metrics['epochs_trained']:g})."
            if metrics.get("epochs_trained")
            else "(not trained here: evaluated as given)."
        ),
        "",
        "| split | micro-F1 | macro-F1 | documents |",
        "|---|---|---|---|",
    ]
    for split in ("validation", "test"):
        row = metrics.get(split)
        if row:
            lines.append(
                f"| {split} | {100 * row['micro_f1']:.1f} | {100 * row['macro_f1']:.1f} "
                f"| {row['documents']} |"
            )
    lines += [
        "",
        "Load with `AutoModelForSequenceClassification.from_pretrained(<this directory>, "
        "use_safetensors=True, trust_remote_code=False)`; `hinter.json` holds the task type, "
        "label names and token window, `training_args.json` the exact training arguments.",
        "",
    ]
    return "\n".join(lines)
