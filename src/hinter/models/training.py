"""Fine-tuning of encoder classifiers with the LexGLUE recipe (HF transformers ``Trainer``).

The recipe (docs/design.md §7): AdamW with the Trainer's default schedule (linear decay, no
warm-up), lr 3e-5; evaluate and save every epoch; keep the epoch with the best
validation micro-F1; stop after ``patience`` epochs without improvement; multi-label tasks use
BCE on the logits (label positive iff logit > 0), multi-class tasks cross-entropy (argmax);
inputs truncated to ``max_length`` tokens; mixed precision only when a GPU is present.

The same function trains the paper's pretrained encoders, the demo's randomly initialised tiny
ones (with a tokenizer trained on the train split) and evaluates a practitioner's already
fine-tuned model (``init: finetuned``, no training). Its output directory holds safetensors
weights, the tokenizer, ``hinter.json`` (task type, labels, window), the exact training
arguments, a short model card; no pickle is written, not even in the temporary checkpoints.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hinter import hub, io, tables
from hinter.checkpoints import Checkpoint, hub_commit, resolve_checkpoint
from hinter.errors import ConfigError, DataError, HinterError, OfflineError
from hinter.layout import MULTI_CLASS, MULTI_LABEL
from hinter.model_dir import n_labels_of, read_model_dir
from hinter.models import decisions
from hinter.models.metrics import f1_scores
from hinter.models.model_card import (
    model_card,
    sidecar_record,
    training_args_record,
    training_record,
    write_model_dir,
)
from hinter.models.tokenizers import is_demo_tokenizer, train_demo_tokenizer

log = logging.getLogger(__name__)

SPLITS = ("train", "validation", "test")
ARCHITECTURES = ("bert", "roberta", "deberta")
BEST_METRIC = "micro_f1"


@dataclass(frozen=True)
class TrainingSettings:
    """The training keys of the config with a dataset's overrides applied."""

    learning_rate: float = 3e-5
    epochs: int = 20
    patience: int = 3
    batch_size: int = 8
    gradient_accumulation: int = 1
    eval_batch_size: int = 32
    max_length: int = 512
    mixed_precision: str = "fp16"  # fp16 | bf16 | none; used only on a GPU
    validation_fraction: float = 0.1

    @classmethod
    def from_config(cls, training: Mapping[str, Any], dataset: str) -> TrainingSettings:
        merged = {k: v for k, v in training.items() if k != "per_dataset"}
        merged.update(training.get("per_dataset", {}).get(dataset, {}))
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(merged) - known)
        if unknown:
            raise ConfigError(f"config key 'models.training.{unknown[0]}': unknown training key")
        return cls(**merged)


@dataclass
class Split:
    texts: list[str]
    labels: list[list[int]]
    source: str  # where the rows came from (for metrics.json)


def load_splits(
    split_paths: Mapping[str, str | Path],
    meta: Mapping[str, Any],
    seed: int,
    fraction: float,
    training: bool = True,
) -> dict[str, Split]:
    """Read train/validation/test; carve a seeded validation slice from train when it is empty.

    IMDB has no validation split on the hub, but best-epoch selection needs one. Without
    ``training`` (``init: finetuned``: evaluation only) a test-only dataset is fine.
    """
    n_labels = int(meta["n_labels"])
    task_type = decisions.check_task_type(meta["task_type"])
    out = {}
    for split in SPLITS:
        table = io.read_parquet(split_paths[split], tables.DOCUMENTS, columns=["text", "labels"])
        texts = table.column("text").to_pylist()
        labels = table.column("labels").to_pylist()
        for i, (text, row) in enumerate(zip(texts, labels, strict=True)):
            where = f"{split_paths[split]} row {i}"
            if text is None or row is None:
                raise DataError(f"{where}: missing text or labels")
            if any(not 0 <= label < n_labels for label in row):
                raise DataError(f"{where}: label outside 0..{n_labels - 1}")
            if task_type == MULTI_CLASS and len(row) != 1:
                raise DataError(f"{where}: a multi-class document needs exactly one label")
        out[split] = Split(texts, labels, f"{split} split")
    train = out["train"]
    if not training and len(train.texts) < 2:
        return out  # nothing to train, nothing to carve a validation slice from
    if len(train.texts) < 2:
        raise DataError(f"{split_paths['train']}: at least 2 training documents are needed")
    if not out["validation"].texts:
        n_val = max(1, round(fraction * len(train.texts)))
        picked = set(np.random.default_rng(seed).permutation(len(train.texts))[:n_val].tolist())
        keep = [i for i in range(len(train.texts)) if i not in picked]
        val = sorted(picked)
        out["validation"] = Split(
            [train.texts[i] for i in val],
            [train.labels[i] for i in val],
            f"carved from train ({n_val} of {len(train.texts)} documents, seed {seed})",
        )
        out["train"] = Split(
            [train.texts[i] for i in keep], [train.labels[i] for i in keep], "train split"
        )
    return out


class _Examples:
    """A map-style dataset of tokenised examples for the Trainer."""

    def __init__(self, encodings: Mapping[str, list], labels: list):
        self.encodings = encodings
        self.labels = labels

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> dict:
        item = {k: v[i] for k, v in self.encodings.items()}
        item["labels"] = self.labels[i]
        return item


def _examples(tokenizer, split: Split, task_type: str, n_labels: int, max_length: int) -> _Examples:
    if not split.texts:  # a split a test-only dataset lacks (fast tokenizers fail on [])
        return _Examples({"input_ids": [], "attention_mask": []}, [])
    enc = tokenizer(
        split.texts,
        truncation=True,
        max_length=max_length,
        return_token_type_ids=False,
        return_attention_mask=True,
    )
    if task_type == MULTI_LABEL:
        labels = decisions.indicator(split.labels, n_labels).astype(np.float32).tolist()
    else:
        labels = [row[0] for row in split.labels]
    return _Examples(
        {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}, labels
    )


def _gold_sets(label_ids: np.ndarray, task_type: str) -> list[list[int]]:
    if task_type == MULTI_LABEL:
        return [np.flatnonzero(row > 0.5).tolist() for row in label_ids]
    return [[int(v)] for v in np.asarray(label_ids).reshape(-1)]


def random_config(spec: Mapping[str, Any], tokenizer, n_labels: int, max_length: int):
    """The transformers config of a randomly initialised encoder sized for ``tokenizer``."""
    from transformers import BertConfig, DebertaConfig, RobertaConfig

    arch = spec["architecture"]
    classes = {"bert": BertConfig, "roberta": RobertaConfig, "deberta": DebertaConfig}
    if arch not in classes:
        raise ConfigError(f"config key 'models.encoders.*.architecture': unknown {arch!r}")
    pad = tokenizer.pad_token_id
    positions = max_length + (pad + 1 if arch == "roberta" else 0)
    params: dict[str, Any] = {
        "vocab_size": len(tokenizer),
        "max_position_embeddings": positions,
        "pad_token_id": pad,
        "num_labels": n_labels,
    }
    for name in ("bos_token_id", "eos_token_id"):
        value = getattr(tokenizer, name, None)
        if value is not None:
            params[name] = value
    params.update(spec.get("size") or {})
    return classes[arch](**params)


def _load_tokenizer(
    source: str, checkpoint: Checkpoint | None, max_length: int, texts: Sequence[str]
):
    """A demo tokenizer trained on ``texts``, or the tokenizer of an id/path/the checkpoint."""
    from transformers import AutoTokenizer

    if is_demo_tokenizer(source):
        return train_demo_tokenizer(source, texts, max_length)
    resolved = checkpoint if checkpoint is not None and source == checkpoint.source else None
    if resolved is None:
        resolved = resolve_checkpoint(source)
    try:
        tok = AutoTokenizer.from_pretrained(resolved.location, **resolved.from_pretrained_kwargs())
    except Exception as exc:
        raise _load_error("tokenizer", source, exc) from None
    if not getattr(tok, "is_fast", False):
        raise DataError(f"tokenizer {source}: a fast (tokenizers) tokenizer is required")
    return tok


def _load_error(what: str, source: str, exc: BaseException) -> HinterError:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    if hub.offline():
        return OfflineError(f"{what} {source}: not available offline ({first})")
    return DataError(f"{what} {source}: cannot load ({first})")


def build_model(
    spec: Mapping[str, Any],
    meta: Mapping[str, Any],
    settings: TrainingSettings,
    train_texts: Sequence[str],
    seed: int,
):
    """The model to fine-tune and its tokenizer, per the encoder's ``init``; plus provenance."""
    import torch
    from transformers import AutoModelForSequenceClassification, set_seed

    n_labels = int(meta["n_labels"])
    label_kwargs = _label_config(meta)
    init = spec.get("init", "pretrained")
    set_seed(seed)
    if init == "random":
        tok = _load_tokenizer(
            spec.get("tokenizer") or "demo-wordpiece", None, settings.max_length, train_texts
        )
        config = random_config(spec, tok, n_labels, settings.max_length)
        for key, value in label_kwargs.items():
            setattr(config, key, value)
        model = AutoModelForSequenceClassification.from_config(config)
        return (
            model,
            tok,
            {"init": "random", "architecture": spec["architecture"], "size": spec.get("size", {})},
        )
    if "checkpoint" not in spec:
        raise ConfigError(f"config key 'models.encoders.*.checkpoint': required for init {init}")
    ckpt = resolve_checkpoint(spec["checkpoint"], spec.get("revision"))
    if is_demo_tokenizer(spec.get("tokenizer")):
        raise ConfigError(
            f"a {spec['tokenizer']} tokenizer cannot serve the pretrained {ckpt.source}"
        )
    if init == "finetuned":
        _check_finetuned(ckpt, meta)
        label_kwargs = {}
    tok = _load_tokenizer(
        spec.get("tokenizer") or ckpt.source, ckpt, settings.max_length, train_texts
    )
    try:
        model = AutoModelForSequenceClassification.from_pretrained(
            ckpt.location,
            use_safetensors=True,
            dtype=torch.float32,
            **ckpt.from_pretrained_kwargs(),
            **label_kwargs,
        )
    except HinterError:
        raise
    except Exception as exc:
        raise _load_error("model", ckpt.source, exc) from None
    provenance = {
        "init": init,
        "checkpoint": ckpt.source,
        "kind": ckpt.kind,
        "revision": ckpt.revision,
        "commit": hub_commit(ckpt.source, ckpt.revision) if ckpt.kind == "hub" else None,
    }
    return model, tok, provenance


def _label_config(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The classifier head's labels, as the model config records them."""
    n_labels = int(meta["n_labels"])
    names = list(meta.get("label_names") or [str(i) for i in range(n_labels)])
    return {
        "num_labels": n_labels,
        "id2label": dict(enumerate(names)),
        "label2id": {n: i for i, n in enumerate(names)},
        "problem_type": (
            "multi_label_classification"
            if meta["task_type"] == MULTI_LABEL
            else "single_label_classification"
        ),
    }


def _check_finetuned(ckpt: Checkpoint, meta: Mapping[str, Any]) -> None:
    """An ``init: finetuned`` checkpoint: a local model folder with the dataset's labels."""
    if ckpt.kind == "hub":
        raise ConfigError(f"checkpoint {ckpt.source}: init finetuned needs a local directory")
    info = read_model_dir(ckpt.location)
    found = n_labels_of(info["config"])
    if found != int(meta["n_labels"]):
        raise DataError(
            f"model directory {ckpt.location}: the model predicts {found} labels, "
            f"but dataset {meta.get('dataset')} has {int(meta['n_labels'])}"
        )


def _safetensors_trainer():
    """A Trainer whose checkpoints hold safetensors weights only (no pickled training args)."""
    from transformers import Trainer

    class SafetensorsTrainer(Trainer):
        def _save(self, output_dir: str | None = None, state_dict: dict | None = None) -> None:
            output_dir = output_dir or self.args.output_dir
            os.makedirs(output_dir, exist_ok=True)
            model = self.accelerator.unwrap_model(self.model, keep_torch_compile=False)
            model.save_pretrained(output_dir, state_dict=state_dict)

    return SafetensorsTrainer


def _precision(settings: TrainingSettings) -> dict[str, bool]:
    import torch

    if not torch.cuda.is_available() or settings.mixed_precision == "none":
        return {"fp16": False, "bf16": False}
    if settings.mixed_precision == "bf16" and torch.cuda.is_bf16_supported():
        return {"fp16": False, "bf16": True}
    return {"fp16": True, "bf16": False}


def train_encoder(
    *,
    model_name: str,
    spec: Mapping[str, Any],
    training: Mapping[str, Any],
    dataset: str,
    split_paths: Mapping[str, str | Path],
    meta_path: str | Path,
    out_dir: str | Path,
    metrics_path: str | Path,
    seed: int,
) -> dict[str, Any]:
    """Fine-tune (or, for ``init: finetuned``, only evaluate) one encoder on one dataset.

    Writes ``out_dir`` (the model directory) and ``metrics_path`` atomically; returns the metrics.
    """
    import transformers

    transformers.utils.logging.disable_progress_bar()  # per-file bars would flood the job's log
    out_dir = Path(out_dir)
    meta = io.read_json(meta_path)
    settings = TrainingSettings.from_config(training, dataset)
    trains = spec.get("init", "pretrained") != "finetuned"
    splits = load_splits(split_paths, meta, seed, settings.validation_fraction, trains)
    task = _Task(meta["task_type"], int(meta["n_labels"]), bool(meta.get("empty_label_name")))
    model, tokenizer, provenance = build_model(spec, meta, settings, splits["train"].texts, seed)
    tokenizer.model_max_length = settings.max_length
    data = {
        s: _examples(tokenizer, splits[s], task.task_type, task.n_labels, settings.max_length)
        for s in SPLITS
    }
    work = _work_dir(out_dir)
    args = _training_arguments(settings, work / "checkpoints", seed)
    trainer = _trainer(model, tokenizer, args, data, task, settings)
    started = time.perf_counter()
    try:
        if provenance["init"] != "finetuned":
            trainer.train()
        seconds = time.perf_counter() - started
        metrics = _metrics(model_name, dataset, trainer, data, splits, task)
        sidecar = sidecar_record(model_name, dataset, meta, settings.max_length, provenance)
        staged = work / "model"
        write_model_dir(
            staged,
            trainer,
            tokenizer,
            sidecar,
            training_args_record(args, settings, seed),
            training_record(trainer, seconds),
            model_card(sidecar, settings, metrics),
        )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(staged, out_dir)
        io.write_json(metrics_path, metrics)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info(
        "%s on %s: %.1f s, validation %s, test %s",
        model_name, dataset, seconds, metrics["validation"], metrics["test"],
    )  # fmt: skip
    return metrics


def _work_dir(out_dir: Path) -> Path:
    """Where checkpoints live while training: next to the output, gone when the job ends; a
    killed job's are removed by the next attempt (one job owns this output directory at a
    time)."""
    for stale in out_dir.parent.glob(f".{out_dir.name}.work-*"):
        shutil.rmtree(stale, ignore_errors=True)
    return out_dir.parent / f".{out_dir.name}.work-{os.getpid()}"


def _metrics(model_name: str, dataset: str, trainer, data, splits, task: _Task) -> dict:
    """metrics.json: what was trained on what, the kept epoch, and the evaluation."""
    results = _evaluate(trainer, data, splits, task)
    return {
        "model": model_name,
        "dataset": dataset,
        "task_type": task.task_type,
        "n_labels": task.n_labels,
        "empty_label_column": task.empty_label,
        "metric_for_best_model": BEST_METRIC,
        "epochs_trained": trainer.state.epoch,
        "best_epoch": _best_epoch(trainer.state),
        "train_documents": len(data["train"]),
        **results,
    }


@dataclass(frozen=True)
class _Task:
    """What scoring needs of a dataset: its task type, label count and empty-set column."""

    task_type: str
    n_labels: int
    empty_label: bool  # the dataset names the empty label set (ECtHR's "none" column)

    def f1(self, gold: Sequence[Sequence[int]], logits: np.ndarray) -> dict[str, float]:
        return f1_scores(
            gold,
            decisions.decide(logits, self.task_type),
            self.n_labels,
            self.task_type,
            self.empty_label,
        )


def _training_arguments(settings: TrainingSettings, checkpoints: Path, seed: int):
    """The Trainer's arguments: the LexGLUE recipe, one evaluation and checkpoint per epoch."""
    import torch
    from transformers import TrainingArguments

    return TrainingArguments(
        output_dir=str(checkpoints),
        learning_rate=settings.learning_rate,
        num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size,
        per_device_eval_batch_size=settings.eval_batch_size,
        gradient_accumulation_steps=settings.gradient_accumulation,
        eval_strategy="epoch",
        save_strategy="epoch",
        save_only_model=True,
        save_total_limit=2,  # the best and the latest epoch
        load_best_model_at_end=True,
        metric_for_best_model=BEST_METRIC,
        greater_is_better=True,
        logging_strategy="epoch",
        report_to="none",
        disable_tqdm=True,
        seed=seed,
        data_seed=seed,
        dataloader_num_workers=0,
        use_cpu=not torch.cuda.is_available(),
        **_precision(settings),
    )


def _trainer(model, tokenizer, args, data: Mapping[str, Any], task: _Task, settings):
    """A safetensors-only Trainer that keeps the epoch of best validation micro-F1."""
    import torch
    from transformers import DataCollatorWithPadding, EarlyStoppingCallback, PrinterCallback

    def compute_metrics(prediction) -> dict[str, float]:
        logits = prediction.predictions
        logits = logits[0] if isinstance(logits, tuple) else logits
        scores = task.f1(_gold_sets(prediction.label_ids, task.task_type), logits)
        return scores or {"micro_f1": 0.0, "macro_f1": 0.0}

    trainer = _safetensors_trainer()(
        model=model,
        args=args,
        train_dataset=data["train"],
        eval_dataset=data["validation"],
        # Multiples of 8 let fp16/bf16 tensor cores work on whole tiles.
        data_collator=DataCollatorWithPadding(
            tokenizer, pad_to_multiple_of=8 if torch.cuda.is_available() else None
        ),
        compute_metrics=compute_metrics,
        callbacks=[
            EarlyStoppingCallback(early_stopping_patience=settings.patience),
            _progress_callback(),
        ],
    )
    # Our progress lines replace the Trainer's printed dicts of every log step.
    trainer.remove_callback(PrinterCallback)
    return trainer


def _progress_callback():
    """Training steps through :class:`hinter.progress.Progress` (a line at least every 30 s in
    a log, a bar on a terminal) and each epoch's validation micro-F1: a fine-tuning of half an
    hour is never silent."""
    from transformers import TrainerCallback

    from hinter.progress import Progress

    class StepProgress(TrainerCallback):
        bar: Progress | None = None

        def on_train_begin(self, args, state, control, **kwargs):
            self.bar = Progress("train", state.max_steps or None, "steps")

        def on_step_end(self, args, state, control, **kwargs):
            if self.bar is not None:
                self.bar.update(1)

        def on_evaluate(self, args, state, control, metrics=None, **kwargs):
            score = (metrics or {}).get(f"eval_{BEST_METRIC}")
            if score is not None:
                log.info("epoch %s: validation micro-F1 %.3f", round(state.epoch or 0), score)

        def on_train_end(self, args, state, control, **kwargs):
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    return StepProgress()


def _evaluate(trainer, data: Mapping[str, Any], splits: Mapping[str, Split], task: _Task) -> dict:
    """Micro/macro-F1 of the kept model on validation and test (None for an empty split)."""
    results: dict[str, Any] = {}
    for split in ("validation", "test"):
        if len(data[split]) == 0:
            results[split] = None
            continue
        output = trainer.predict(data[split])
        logits = (
            output.predictions[0] if isinstance(output.predictions, tuple) else output.predictions
        )
        results[split] = {
            **task.f1(splits[split].labels, logits),
            "documents": len(data[split]),
            "source": splits[split].source,
        }
    return results


def _best_epoch(state) -> int | None:
    """The epoch whose checkpoint was kept (best validation micro-F1)."""
    best_step = getattr(state, "best_global_step", None)
    for entry in state.log_history:
        if f"eval_{BEST_METRIC}" in entry and entry.get("step") == best_step:
            return round(entry["epoch"])
    return None
