"""The models under test behind one interface: a registry of predictors.

Every model is a :class:`hinter.models.inference.Predictor` that the one predict stage
(:func:`hinter.models.inference.run_predict_stage`) runs: the same originals-first order,
deduplication, skip of mutants unchanged within what the model sees, persistent cache and
output table, whatever the model is.

- ``encoder``: a fine-tuned classifier directory (:class:`~hinter.models.inference.
  EncoderPredictor`);
- prompted LLMs (:class:`~hinter.models.llm.LLMPredictor`) with a *chat backend* per
  ``models.llms.<name>.backend``: ``transformers`` (open weights,
  :mod:`hinter.models.chat_transformers`) and ``openai`` (any OpenAI-compatible endpoint,
  :mod:`hinter.models.chat_openai`).

A new chat backend is one module with a class offering ``name``, ``deterministic``,
``identity``, ``doc_tokenizer``, ``settings()``, ``frame(...)``, ``generate(...)`` and
``close()``, and one line in :data:`CHAT_BACKENDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hinter import io
from hinter.errors import ConfigError

# backend name -> "module:factory"; factories take (name, spec, run=, cache_dir=, key=)
CHAT_BACKENDS: dict[str, str] = {
    "transformers": "hinter.models.predictor:transformers_backend",
    "openai": "hinter.models.predictor:openai_backend",
}


def chat_backend(backend: str, key: str = "backend") -> Callable[..., Any]:
    target = CHAT_BACKENDS.get(backend)
    if target is None:
        known = ", ".join(sorted(CHAT_BACKENDS))
        raise ConfigError(f"config key '{key}.backend': unknown backend {backend!r} ({known})")
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def transformers_backend(
    name: str, spec: Mapping[str, Any], *, run: int, cache_dir: str | Path, key: str
):
    from hinter.models.chat_transformers import TransformersChat
    from hinter.models.llm_loading import resolve_llm

    source = resolve_llm(spec["model"], spec.get("revision"), cache_dir, key=f"{key}.model")
    return TransformersChat(
        source,
        dtype=spec.get("dtype", "auto"),
        batch_size=int(spec.get("batch_size", 8)),
        key=f"{key}.model",
        decoding=spec.get("decoding"),  # RQ6.1's sampled repeats (hinter.plan.decoding)
    )


def openai_backend(
    name: str, spec: Mapping[str, Any], *, run: int, cache_dir: str | Path, key: str
):
    from hinter.models.chat_openai import OpenAIChat

    return OpenAIChat(spec, model_name=name, run=run, cache_dir=cache_dir, key=key)


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
):
    """The predictor of one model run (``kind``: encoder | llm) for one dataset and variant."""
    if kind == "encoder":
        from hinter.models.inference import EncoderPredictor

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
        )
    raise ConfigError(f"model {model}: unknown kind {kind!r} (encoder, llm)")
