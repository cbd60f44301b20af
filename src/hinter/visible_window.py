"""The window a model reads is the window that is mutated (the fidelity review's G1).

A track's window (``mutation.tracks.<track>``) decides where mutants may change a document;
an encoder on that track reads its first ``max_length`` tokens. A window wider than that makes
mutants whose changes the encoder never sees: the predict stage gives them the original's
prediction (``skipped_identical``), so they enter every error-rate denominator as benign and
dilute the rates (the real sample: 37% of valid IMDB mutants, atomic rate 2.56% instead of
4.47%). A ``words`` window counts whitespace-separated words, each at least one token, so a
window of more words than the model's tokens is wider for every text that long.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hinter.errors import ConfigError


def check(cfg: Mapping[str, Any]) -> None:
    """The start-up checks of what the models read and the invariant compares (issue 31)."""
    from hinter.invariant.compat import workflow_compatibility

    check_windows(cfg)
    workflow_compatibility(cfg["invariant"])


def encoder_max_length(cfg: Mapping[str, Any], dataset: str) -> int:
    """``models.training.max_length`` of ``dataset`` (its ``per_dataset`` override first)."""
    training = cfg["models"]["training"]
    override = training.get("per_dataset", {}).get(dataset, {})
    return int(override.get("max_length", training["max_length"]))


def check_windows(cfg: Mapping[str, Any]) -> None:
    """Refuse an encoder that reads fewer tokens than its track's window mutates (one line)."""
    tracks = cfg["mutation"]["tracks"]
    for name, spec in cfg["models"]["encoders"].items():
        if spec.get("init") == "finetuned":
            continue  # a fine-tuned folder's max_length is its own, read when it predicts
        track_name = spec.get("track", "encoder")
        track = tracks.get(track_name) or {}
        if track.get("from_models") or "max_tokens" not in track:
            continue
        for dataset in spec.get("datasets", []):
            window = int(track.get("per_dataset", {}).get(dataset, track["max_tokens"]))
            reads = encoder_max_length(cfg, dataset)
            if window > reads:
                unit = "words" if track.get("tokenizer") == "words" else "tokens"
                raise ConfigError(
                    f"config key 'mutation.tracks.{track_name}.max_tokens': the window "
                    f"({window} {unit} on {dataset}) is wider than what encoder {name!r} reads "
                    f"(models.training.max_length {reads} tokens): mutants changed beyond it are "
                    f"invisible to the model and dilute its rates; make the window <= {reads}"
                )
