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
from pathlib import Path
from typing import Any

from hinter import io
from hinter.errors import ConfigError


def load_predictor(
    model: str,
    *,
    kind: str,
    dataset: str,
    variant: str,
    meta_path: str | Path,
    cache_dir: str | Path,
    inference: Mapping[str, Any],
    model_dir: str | Path | None = None,
    spec: Mapping[str, Any] | None = None,
    train_path: str | Path | None = None,
    from_hub: bool = True,
    track: Mapping[str, Any] | None = None,
    prompts_dir: str | Path | None = None,
):
    """The predictor of one model run (``kind``: encoder | llm) for one dataset and variant;
    an LLM reads its prompt from ``prompts_dir`` (default: resources/prompts)."""
    if kind == "encoder":
        from hinter.models.encoder import EncoderPredictor

        if variant != "default":
            raise ConfigError(f"model {model}: an encoder has only the default variant")
        return EncoderPredictor(model_dir, io.read_json(meta_path), inference, cache_dir)
    if kind == "llm":
        from hinter.models.llm import LLMPredictor

        if spec is None or train_path is None:
            raise ValueError("an LLM predictor needs its spec and the train split")
        return LLMPredictor(
            model,
            spec,
            dataset=dataset,
            variant=variant,
            meta_path=meta_path,
            train_path=train_path,
            cache_dir=cache_dir,
            from_hub=from_hub,
            track=track,
            cache=bool(inference.get("cache", True)),
            prompts_dir=prompts_dir,
        )
    raise ConfigError(f"model {model}: unknown kind {kind!r} (encoder, llm)")
