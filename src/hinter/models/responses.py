"""The one schema of a usable chat completion (OpenAI-compatible): checked before a response is
cached and again when a cached row is read (:mod:`hinter.models.chat_openai`).

Usable means: a JSON object with a first choice whose message content is a string of at most
:data:`MAX_CHARS_PER_TOKEN` characters per token of the answer budget; token log-probabilities
that are finite numbers <= 0 (rounding noise above 0 becomes 0); token bytes that are bytes;
and token counts (``usage``) that are non-negative integers. Anything else — a JSON array, a
missing or null or positive logprob, ``prompt_tokens: null``, a 20 MB answer to a 7-token
budget — raises :class:`MalformedResponse` naming the first thing wrong, never another
exception.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

MAX_CHARS_PER_TOKEN = 64  # an answer longer than this per token of its budget is not an answer


class MalformedResponse(Exception):
    """A 200 response whose body is not a usable chat completion."""


def _count(usage: Mapping[str, Any], name: str) -> int:
    value = usage.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedResponse(f"usage.{name} is {value!r}, not a token count")
    return value


def validate_response(response: Any, max_tokens: int) -> dict:
    """The usable parts of a chat completion — its generation and its token counts — or
    :class:`MalformedResponse` naming the first thing wrong (the one schema of a response)."""
    if not isinstance(response, dict):
        raise MalformedResponse(f"a JSON {type(response).__name__}, not an object")
    usage = response.get("usage")
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        raise MalformedResponse("usage is not an object")
    generation = generation_of(response, max_tokens)
    generation["usage"] = (_count(usage, "prompt_tokens"), _count(usage, "completion_tokens"))
    return generation


def generation_of(response: Any, max_tokens: int | None = None) -> dict:
    """A chat completion's first choice as a generation (text, token ends, log-probabilities);
    raises :class:`MalformedResponse` for anything that is not a usable choice."""
    if not isinstance(response, dict):
        raise MalformedResponse(f"a JSON {type(response).__name__}, not an object")
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedResponse("no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict) or not isinstance(message.get("content"), str):
        raise MalformedResponse("no message content")
    text = message["content"]
    if max_tokens is not None and len(text) > MAX_CHARS_PER_TOKEN * max(1, max_tokens):
        raise MalformedResponse(
            f"an answer of {len(text)} characters for a budget of {max_tokens} tokens"
        )
    logprobs = choice.get("logprobs")
    if logprobs is not None and not isinstance(logprobs, dict):
        raise MalformedResponse("logprobs is not an object")
    content = (logprobs or {}).get("content") or []
    if not isinstance(content, list):
        raise MalformedResponse("logprobs.content is not a list")
    ends: list[int] = []
    values: list[float] = []
    pieces = b""
    for item in content:
        if not isinstance(item, dict):
            raise MalformedResponse("a logprobs item is not an object")
        pieces += _token_bytes(item)
        ends.append(len(pieces.decode("utf-8", errors="ignore")))
        values.append(_logprob(item.get("logprob")))
    finish = choice.get("finish_reason") or "stop"
    if not isinstance(finish, str):
        raise MalformedResponse("finish_reason is not a string")
    return {"text": text, "token_ends": ends, "logprobs": values, "finish": finish}


def _token_bytes(item: Mapping[str, Any]) -> bytes:
    raw = item.get("bytes")
    if raw is not None:
        if not isinstance(raw, list) or not all(
            isinstance(b, int) and not isinstance(b, bool) and 0 <= b < 256 for b in raw
        ):
            raise MalformedResponse("a token's bytes are not a list of bytes")
        return bytes(raw)
    token = item.get("token")
    if not isinstance(token, str):
        raise MalformedResponse("a logprobs item has neither bytes nor a token")
    return token.encode("utf-8", errors="replace")


def _logprob(value: Any) -> float:
    """A token's log-probability: a finite number <= 0 (rounding noise above 0 becomes 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedResponse(f"a token logprob is {value!r}, not a number")
    value = float(value)
    if not math.isfinite(value) or value > 1e-6:
        raise MalformedResponse(f"a token logprob is {value!r}, not a log-probability (<= 0)")
    return min(value, 0.0)
