"""Label sentences agentic or communal with a fine-tuned agency classifier (a model folder the
workflow's training writes): the encoder engine of the predict stage, so sentences are
deduplicated, batched and cached by the model's fingerprint (a rerun classifies nothing twice)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hinter.errors import DataError
from hinter.labe.data import LAC_LABELS


class AgencyClassifier:
    def __init__(self, model_dir: str | Path, cache_dir: str | Path | None = None, batch_size=64):
        from hinter.models.cache import MemoryCache, PredictionCache
        from hinter.models.encoder import Engine
        from hinter.models.loading import load_classifier

        self.clf = load_classifier(model_dir, n_labels=2, task_type="multi_class", dataset="lac")
        names = [str(n).lower() for n in (self.clf.label_names or LAC_LABELS)]
        if names != LAC_LABELS:
            raise DataError(f"model directory {model_dir}: labels {names}, expected {LAC_LABELS}")
        cache = (
            PredictionCache(cache_dir, self.clf.fingerprint, n_labels=2)
            if cache_dir is not None
            else MemoryCache(2)
        )
        self.engine = Engine(self.clf, cache, batch_size=batch_size)

    @property
    def fingerprint(self) -> str:
        return self.clf.fingerprint

    def labels(self, sentences: Sequence[str]) -> list[int]:
        """1 (agentic) or 0 (communal) per sentence."""
        if not sentences:
            return []
        logits = self.engine.predict(list(sentences))
        return np.argmax(logits, axis=1).astype(int).tolist()

    def label_texts(self, split: Sequence[Sequence[str]]) -> list[list[int]]:
        """Labels of every text's sentences, classified in one pass."""
        flat = [s for sents in split for s in sents]
        labels = self.labels(flat)
        out, at = [], 0
        for sents in split:
            out.append(labels[at : at + len(sents)])
            at += len(sents)
        return out

    def close(self) -> None:
        self.engine.cache.close()
