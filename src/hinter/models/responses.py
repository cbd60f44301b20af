"""The one schema of a usable chat completion (OpenAI-compatible): checked before a response is
cached and again when a cached row is read (:mod:`hinter.models.chat_openai`).

Usable means: a JSON object with a first choice whose message content is a string of at most
:data:`MAX_CHARS_PER_TOKEN` characters per token of the answer budget; token log-probabilities
that are finite numbers <= 0 (rounding noise above 0 becomes 0); token bytes that are bytes;
and token counts (``usage``) that are non-negative integers. Anything else — a JSON array, a
missing or null or positive logprob, ``prompt_tokens: null``, a 20 MB answer to a 7-token
budget — raises :class:`MalformedResponse` naming the first thing wrong, never another
exception. Before any of that, a response is scrubbed of every registered secret
(:func:`scrub`): a server that echoes the API key inside a 200 answer never gets it cached or
written (review 2026-11-28, N03).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hinter import redact

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


def scrub(response: Any) -> Any:
    """``response`` with every registered secret masked (:mod:`hinter.redact`): in every string,
    and in the token log-probabilities, where the tokens that spell a secret become one token
    ``***`` whose log-probability is theirs summed (the answer's confidence is unchanged). A
    response holding no secret is returned as it is."""
    if isinstance(response, str):
        return redact.redact(response)
    if isinstance(response, list):
        return [scrub(v) for v in response]
    if not isinstance(response, dict):
        return response
    out = {k: scrub(v) for k, v in response.items()}
    logprobs = out.get("logprobs")
    if isinstance(logprobs, dict) and isinstance(response["logprobs"].get("content"), list):
        logprobs["content"] = _scrub_tokens(response["logprobs"]["content"])
    return out


def _scrub_tokens(items: list) -> list:
    """Token items with the tokens that spell a registered secret merged into one masked token
    (items that are not well-formed are left to validation)."""
    if not all(isinstance(it, dict) for it in items):
        return [scrub(it) for it in items]
    pieces = []
    for it in items:
        raw = it.get("bytes")
        if isinstance(raw, list) and all(isinstance(b, int) and 0 <= b < 256 for b in raw):
            pieces.append(bytes(raw).decode("utf-8", errors="replace"))
        elif isinstance(it.get("token"), str):
            pieces.append(it["token"])
        else:
            return [scrub(it) for it in items]
    spans = redact.secret_spans("".join(pieces))
    if not spans:
        return [scrub(it) for it in items]
    bounds, pos = [], 0
    for piece in pieces:
        bounds.append((pos, pos + len(piece)))
        pos += len(piece)
    out: list = []
    k = 0
    while k < len(items):
        a, b = bounds[k]
        span = next(((s, e) for s, e in spans if s < b and a < e), None)
        if span is None:
            out.append(scrub(items[k]))
            k += 1
            continue
        last, reach = k, span[1]
        while last + 1 < len(items) and bounds[last + 1][0] < reach:
            last += 1  # every token up to the end of the secret, and of any secret it touches
            reach = max([reach] + [e for s, e in spans if s < bounds[last][1] and a < e])
        masked = redact.redact("".join(pieces[k : last + 1]))
        logprob = items[k].get("logprob")
        for it in items[k + 1 : last + 1]:
            other = it.get("logprob")
            both = isinstance(logprob, (int, float)) and isinstance(other, (int, float))
            logprob = logprob + other if both else None
        out.append({"token": masked, "logprob": logprob, "bytes": list(masked.encode())})
        k = last + 1
    return out


def billed_tokens(response: Any) -> tuple[int, int]:
    """The token counts a response reports, whatever else is wrong with it (0 where unreadable):
    what a malformed 200 costs."""
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return 0, 0
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = usage.get(name)
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        counts.append(value if ok else 0)
    return counts[0], counts[1]
