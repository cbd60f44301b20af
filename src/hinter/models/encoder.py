"""The encoder classifier under test: its engine, its predictor and its predictions.

:class:`Engine` is :class:`hinter.models.stage.BaseEngine` with a loaded classifier: inputs are
sorted by length (longest first) and padded per batch, run under ``torch.inference_mode`` in the
model's dtype (bf16/fp16 on GPU when configured); a long text is tokenised by its beginning when
that decides its window. :class:`EncoderPredictor` makes it a predictor of the one predict stage
(:func:`hinter.models.stage.run_predict_stage`); :func:`predict_shard` runs that stage for one
shard.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from hinter import io, tables
from hinter.errors import DataError
from hinter.models import decisions
from hinter.models.cache import MemoryCache, PredictionCache
from hinter.models.loading import Classifier, load_classifier
from hinter.models.stage import (
    MAX_PADDING,
    BaseEngine,
    Encoded,
    EngineStats,
    padded_batches,
    run_predict_stage,
    splits_at_whitespace,
)

log = logging.getLogger(__name__)

PREFIX_CHARS_PER_TOKEN = 12  # as hinter.mutation.window.TokenizerWindow


class Engine(BaseEngine):
    """Batched, deduplicated, cached inference with one loaded encoder classifier."""

    def __init__(
        self,
        classifier: Classifier,
        cache: MemoryCache | None = None,
        batch_size: int = 32,
        progress: Any = None,
        *,
        batch_tokens: int | None = None,
        compile_model: bool = False,
    ):
        super().__init__(
            cache if cache is not None else MemoryCache(classifier.n_labels),
            batch_size,
            progress,
            shortcut_safe=splits_at_whitespace(classifier.tokenizer),
        )
        self.clf = classifier
        pad = classifier.tokenizer.pad_token_id
        self.pad_id = int(pad if pad is not None else 0)
        # a batch of at most this many padded tokens (rows x its longest input) instead of
        # batch_size texts: short texts fill wide batches, long ones stay within memory
        self.batch_tokens = batch_tokens
        self._model = classifier.model
        if compile_model:  # off by default: compiling costs more than a CPU run gains
            import torch

            self._model = torch.compile(classifier.model, dynamic=True)

    # -- tokenisation ------------------------------------------------------------------------
    @property
    def prefix_chars(self) -> int:
        """Characters of a long text tokenised first (a few per token of the window)."""
        return self.clf.max_length * PREFIX_CHARS_PER_TOKEN

    def decided(self, text: str, enc: Encoded) -> bool:
        """Whether ``enc`` (of ``text``) is also the window of any text that ``text`` begins:
        the window is full and ends before ``text``'s last whitespace, where a whitespace-
        splitting tokenizer cannot be affected by what follows."""
        if not (self.shortcut_safe and enc.full):
            return False
        return enc.visible_end <= max(text.rfind(c) for c in " \n\t\r")

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        """Tokenise and truncate to the model's window; note where each window ends.

        A long text is tokenised by its first ``prefix_chars`` characters when they decide its
        window, so a 2 MB document costs what its window costs (the full text otherwise).
        """
        if not texts:
            return []
        limit = self.prefix_chars
        heads = [t[:limit] if self.shortcut_safe and len(t) > limit else t for t in texts]
        out = self._encode(heads)
        retry = [
            i
            for i, (text, head, enc) in enumerate(zip(texts, heads, out, strict=True))
            if len(head) < len(text) and not self.decided(head, enc)
        ]
        for i, enc in zip(retry, self._encode([texts[i] for i in retry]), strict=True):
            out[i] = enc
        return out

    def _encode(self, texts: Sequence[str]) -> list[Encoded]:
        if not texts:
            return []
        tok = self.clf.tokenizer
        enc = tok(
            list(texts),
            truncation=True,
            max_length=self.clf.max_length,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
            return_attention_mask=False,
            return_token_type_ids=False,
        )
        self.stats.tokenized += len(texts)
        out = []
        for ids, offsets, special in zip(
            enc["input_ids"], enc["offset_mapping"], enc["special_tokens_mask"], strict=True
        ):
            ends = [end for (_, end), s in zip(offsets, special, strict=True) if not s]
            out.append(
                Encoded(
                    ids=np.asarray(ids, dtype=np.int32),
                    visible_end=max(ends) if ends else 0,
                    full=len(ids) >= self.clf.max_length,
                )
            )
        return out

    # -- the model ---------------------------------------------------------------------------
    def forward(self, sequences: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Logits of distinct inputs (keyed by ids hash): longest first, padded per batch."""
        import torch

        order = sorted(sequences, key=lambda h: (-len(sequences[h]), h))
        out: dict[str, np.ndarray] = {}
        model, device = self._model, self.clf.device
        lengths = [len(sequences[h]) for h in order]
        if self.batch_tokens:
            batches = token_batches(order, lengths, self.batch_tokens)
        else:
            batches = padded_batches(order, lengths, self.batch_size)
        for keys in batches:
            width = len(sequences[keys[0]])
            input_ids = np.full((len(keys), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(keys), width), dtype=np.int64)
            for row, key in enumerate(keys):
                seq = sequences[key]
                input_ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
            with torch.inference_mode():
                logits = model(
                    input_ids=torch.from_numpy(input_ids).to(device),
                    attention_mask=torch.from_numpy(mask).to(device),
                ).logits
            logits = logits.float().cpu().numpy()
            for row, key in enumerate(keys):
                out[key] = logits[row].copy()
            self.stats.forward_batches += 1
            self.stats.forward_texts += len(keys)
            if self.progress is not None:
                self.progress.update(len(keys))
        return out

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Logits (texts, labels) of plain texts: deduplicated, cached, batched."""
        keys, logits = self.resolve(texts)
        if not keys:
            return np.zeros((0, self.clf.n_labels), dtype=np.float32)
        return np.stack([logits[k] for k in keys]).astype(np.float32)


def token_batches(keys: Sequence[str], lengths: Sequence[int], max_tokens: int) -> list[list[str]]:
    """Length-sorted (longest first) inputs in batches of at most ``max_tokens`` padded tokens
    (rows x the batch's first, longest, input; one row at least), each row at most
    ``MAX_PADDING`` padding as in :func:`~hinter.models.stage.padded_batches`."""
    batches: list[list[str]] = []
    width = 0
    for key, length in zip(keys, lengths, strict=True):
        if (
            not batches
            or (len(batches[-1]) + 1) * width > max_tokens
            or length < width * (1 - MAX_PADDING)
        ):
            batches.append([])
            width = length
        batches[-1].append(key)
    return batches


# -- predictions table ----------------------------------------------------------------------


def prediction_rows(
    text_ids: Sequence[str],
    kind: str,
    logits: np.ndarray,
    statuses: Sequence[str],
    task_type: str,
) -> pa.Table:
    """PREDICTIONS rows of an encoder: label sets, per-label probabilities and confidence from
    logits (no raw answer: ``answer`` and ``answer_status`` are null)."""
    if len(text_ids) == 0:
        return pa.Table.from_pylist([], schema=tables.PREDICTIONS)
    labels = decisions.decide(logits, task_type)
    scores = decisions.probabilities(logits, task_type)
    conf = decisions.confidence(logits, task_type)
    n = len(text_ids)
    return pa.table(
        {
            "text_id": list(text_ids),
            "kind": [kind] * n,
            "labels": pa.array(labels, type=tables.LABELS),
            "scores": pa.array(list(scores), type=pa.list_(pa.float32())),
            "confidence": pa.array(conf, type=pa.float32()),
            "status": list(statuses),
            "answer": pa.nulls(n, pa.string()),
            "answer_status": pa.nulls(n, pa.string()),
        },
        schema=tables.PREDICTIONS,
    )


# -- the predictor ------------------------------------------------------------------------


class EncoderPredictor:
    """An encoder classifier (a fine-tuned model directory) as a
    :class:`~hinter.models.stage.Predictor`."""

    excluded: frozenset[str] = frozenset()
    max_documents: int | None = None

    def __init__(
        self,
        model_dir: str | Path,
        meta: Mapping[str, Any],
        inference: Mapping[str, Any],
        cache_dir: str | Path,
    ):
        self.clf = load_classifier(
            model_dir,
            n_labels=int(meta["n_labels"]),
            task_type=meta["task_type"],
            dtype=inference.get("dtype", "auto"),
            dataset=meta.get("dataset"),
        )
        cache: MemoryCache
        if inference.get("cache", True):
            cache = PredictionCache(cache_dir, self.clf.fingerprint, self.clf.n_labels)
        else:
            cache = MemoryCache(self.clf.n_labels)
        self.engine = Engine(self.clf, cache, batch_size=int(inference.get("batch_size", 32)))
        self.metadata = {
            "backend": "encoder",
            "model": str(model_dir),
            "fingerprint": self.clf.fingerprint,
            "dtype": str(self.clf.dtype),
            "max_length": self.clf.max_length,
            "task_type": self.clf.task_type,
        }

    def rows(self, text_ids, kind, keys, outputs, statuses) -> pa.Table:
        logits = _stack(keys, outputs, self.clf.n_labels)
        try:  # non-finite logits are refused (decisions), never kept as predictions
            return prediction_rows(text_ids, kind, logits, statuses, self.clf.task_type)
        except DataError as exc:
            raise DataError(f"model {self.metadata['model']}: {exc}") from None

    def close(self) -> None:
        self.engine.cache.close()


def predict_shard(
    *,
    model_dir: str | Path,
    docs_path: str | Path,
    mutants_paths: Sequence[str | Path],
    validity_paths: Sequence[str | Path],
    meta_path: str | Path,
    out_path: str | Path,
    inference: Mapping[str, Any],
    keep_discarded: bool,
    cache_dir: str | Path,
    progress: bool | None = None,
) -> EngineStats:
    """Write the PREDICTIONS table of one shard with an encoder classifier."""
    predictor = EncoderPredictor(model_dir, io.read_json(meta_path), inference, cache_dir)
    stats = run_predict_stage(
        predictor,
        docs_path=docs_path,
        mutants_paths=mutants_paths,
        validity_paths=validity_paths,
        out_path=out_path,
        keep_discarded=keep_discarded,
        chunk_size=int(inference.get("chunk_size", 4096)),
        progress=progress,
    )
    log.info("predictions of %s -> %s", model_dir, out_path)
    return stats


def _stack(keys: Sequence[str], logits: Mapping[str, np.ndarray], n_labels: int) -> np.ndarray:
    if not keys:
        return np.zeros((0, n_labels), dtype=np.float32)
    return np.stack([logits[k] for k in keys]).astype(np.float32)
