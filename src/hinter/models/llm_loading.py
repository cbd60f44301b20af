"""How a prompted LLM's weights and tokenizer are loaded safely, from a checkpoint that
:func:`hinter.checkpoints.resolve_llm` resolved (hub id, local directory, or a GGUF package
converted once to safetensors). Every load uses ``trust_remote_code=False`` and safetensors
weights only.
"""

from __future__ import annotations

from typing import Any

from hinter.checkpoints import Checkpoint
from hinter.errors import DataError, first_line
from hinter.models.loading import fingerprint as dir_fingerprint
from hinter.models.loading import resolve_dtype


def identity_of(source: Checkpoint) -> str:
    """The source's identity; a local directory's is the hash of its files (computed once)."""
    if source.identity:
        return source.identity
    return "dir:" + dir_fingerprint(source.location)


def load_chat_tokenizer(source: Checkpoint, key: str = "model") -> Any:
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(
            source.location, **source.from_pretrained_kwargs()
        )
    except Exception as exc:
        raise DataError(
            f"config key '{key}': cannot load the tokenizer of {source.source} ({first_line(exc)})"
        ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise DataError(f"config key '{key}': {source.source} has no fast tokenizer")
    return tokenizer


def load_causal_lm(source: Checkpoint, dtype: str = "auto", device: str | None = None):
    """The model, in inference mode: safetensors only, no remote code; bf16 on GPU (auto)."""
    import torch
    import transformers
    from transformers import AutoModelForCausalLM

    transformers.utils.logging.disable_progress_bar()
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch_dtype = resolve_dtype(dtype, dev.type)
    try:
        model = AutoModelForCausalLM.from_pretrained(
            source.location,
            use_safetensors=True,
            dtype=torch_dtype,
            **source.from_pretrained_kwargs(),
        )
    except Exception as exc:
        raise DataError(f"model {source.source}: cannot load it ({first_line(exc)})") from None
    return model.to(dev).eval()
