"""The models under test behind one interface: a registry of predictors.

Every model is a :class:`hinter.models.stage.Predictor` that the one predict stage
(:func:`hinter.models.stage.run_predict_stage`) runs: the same originals-first order,
deduplication, skip of mutants unchanged within what the model sees, persistent cache and
output table, whatever the model is.

- ``encoder``: a fine-tuned classifier directory (:class:`~hinter.models.encoder.
  EncoderPredictor`);
- prompted LLMs (:class:`~hinter.models.llm.LLMPredictor`) with a *chat backend* per
  ``models.llms.<name>.backend``: ``transformers`` (open weights,
  :mod:`hinter.models.chat_transformers`) and ``openai`` (any OpenAI-compatible endpoint,
  :mod:`hinter.models.chat_openai`).

The chat backends' registry is :data:`hinter.models.llm.CHAT_BACKENDS`; this module imports
the LLM layer, never the reverse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter import io
from hinter.errors import ConfigError


@dataclass(frozen=True)
class PredictJob:
    """One model run's settings (``kind``: encoder | llm) on one dataset and variant, built
    once by the predict rule and passed whole; an LLM reads its prompt from ``prompts_dir``
    (default: resources/prompts)."""

    model: str
    kind: str
    dataset: str
    variant: str
    meta_path: str | Path
    cache_dir: str | Path
    inference: Mapping[str, Any]
    model_dir: str | Path | None = None
    spec: Mapping[str, Any] | None = None
    train_path: str | Path | None = None
    from_hub: bool = True
    track: Mapping[str, Any] | None = None
    prompts_dir: str | Path | None = None
    companions: tuple | list = ()  # decodings answered from this run's prefill (RQ6.1)


# the job's fields that LLMPredictor takes under the same name
_LLM_FIELDS = (
    "dataset", "variant", "meta_path", "train_path", "cache_dir", "from_hub", "track",
    "prompts_dir", "companions",
)  # fmt: skip


def load_predictor(job: PredictJob):
    """The predictor of one model run."""
    if job.kind == "encoder":
        from hinter.models.encoder import EncoderPredictor

        if job.variant != "default":
            raise ConfigError(f"model {job.model}: an encoder has only the default variant")
        meta = io.read_json(job.meta_path)
        return EncoderPredictor(job.model_dir, meta, job.inference, job.cache_dir)
    if job.kind == "llm":
        from hinter.models.llm import LLMPredictor

        if job.spec is None or job.train_path is None:
            raise ValueError("an LLM predictor needs its spec and the train split")
        settings = {name: getattr(job, name) for name in _LLM_FIELDS}
        cache = bool(job.inference.get("cache", True))
        return LLMPredictor(job.model, job.spec, cache=cache, **settings)
    raise ConfigError(f"model {job.model}: unknown kind {job.kind!r} (encoder, llm)")
