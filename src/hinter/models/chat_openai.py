"""Chat LLMs behind an OpenAI-compatible HTTP API (OpenAI itself, or a vLLM, llama.cpp or Ollama
server at ``base_url`` for open models at scale), through the official ``openai`` client.

- **Greedy**: ``temperature: 0``, one choice, ``max_tokens`` = the answer budget, and
  ``logprobs: true`` for the answer's confidence.
- **A paid call is never repeated**: every response is stored, as it arrives, in a SQLite cache
  (``<cache_dir>/api/responses.sqlite``) keyed by (base URL, the full request body, run index):
  a killed job resumes where it stopped, a rerun costs nothing, and RQ6's repeated runs are real
  re-queries because their run index differs. Failed requests are not cached.
- **Bounded retries**: 429, 5xx, timeouts, connection errors and malformed or empty responses
  are retried up to ``max_retries`` times, waiting ``Retry-After`` when the server sends it and
  otherwise an exponential backoff with jitter (capped); other errors (400, 401, 404, ...) end
  the job at once with one line. A response still malformed after the retries becomes a
  prediction with status ``error`` (kept and counted, not cached).
- **Bounded concurrency**: ``concurrency`` requests in flight (threads; the cache is shared).
- **Cost**: before the first request, a dry estimate (requests not cached, their input tokens
  as counted by the declared tokenizer, at most ``max_tokens`` output each, priced with
  ``prices``) is logged and checked against ``max_cost_usd``; afterwards the tokens and cost the
  responses report are logged and recorded in the predictions file.
- **The API key** is read from the environment variable ``api_key_env`` only when a request
  must be sent, and never logged or written: it is not part of any request body, cache key or
  file. A missing key ends the job with one line naming the variable, after the estimate.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hinter.errors import ConfigError, DataError, HinterError, first_line
from hinter.models.context import ChatFrame, api_frame, load_doc_tokenizer
from hinter.models.prompts import Prompt
from hinter.progress import Progress

log = logging.getLogger(__name__)

MAX_BACKOFF = 60.0  # seconds: the longest wait between two attempts
BACKOFF_BASE = 0.5  # seconds: the first wait without Retry-After (doubling after each attempt)


class ApiError(HinterError):
    """The API refused a request in a way retrying cannot fix (bad request, auth, ...)."""


class MalformedResponse(Exception):
    """A 200 response whose body is not a usable chat completion."""


@dataclass
class Usage:
    """Tokens reported by the responses used (cached or not), and what this job sent."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    sent: int = 0  # requests sent by this job (not from the cache)
    sent_prompt_tokens: int = 0
    sent_completion_tokens: int = 0
    retries: int = 0
    failed: int = 0  # responses still malformed after the retries (status error)
    waits: list[float] = field(default_factory=list)

    def cost(self, prices: Mapping[str, float], sent_only: bool = False) -> float:
        pin = self.sent_prompt_tokens if sent_only else self.prompt_tokens
        pout = self.sent_completion_tokens if sent_only else self.completion_tokens
        return (pin * prices.get("input", 0.0) + pout * prices.get("output", 0.0)) / 1e6


class ResponseCache:
    """Responses by request key, one SQLite file shared by every job (thread-safe)."""

    def __init__(self, cache_dir: str | Path, timeout: float = 600):
        self.path = Path(cache_dir) / "api" / "responses.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
                "response TEXT NOT NULL) WITHOUT ROWID"
            )
        except sqlite3.DatabaseError as exc:
            raise DataError(f"{self.path}: unusable response cache ({exc}); delete it") from None

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def has(self, keys: Sequence[str]) -> set[str]:
        found: set[str] = set()
        keys = list(keys)
        with self._lock:
            for i in range(0, len(keys), 500):
                part = keys[i : i + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT key FROM responses WHERE key IN ({marks})", part
                ).fetchall()
                found.update(r[0] for r in rows)
        return found

    def put(self, key: str, model: str, response: Mapping) -> None:
        body = json.dumps(response, sort_keys=True, ensure_ascii=False)
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO responses VALUES (?, ?, ?)", (key, model, body))

    def close(self) -> None:
        with self._lock:
            self._db.close()


def request_key(base_url: str, body: Mapping[str, Any], run: int) -> str:
    """The cache key of a request: the endpoint, the full body, the run index (no secrets)."""
    blob = json.dumps(
        {"base_url": base_url.rstrip("/"), "body": body, "run": run},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def generation_of(response: Mapping[str, Any]) -> dict:
    """A chat completion's first choice as a generation (text, token ends, log-probabilities);
    raises :class:`MalformedResponse` when there is no usable choice."""
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise MalformedResponse("no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict) or not isinstance(message.get("content"), str):
        raise MalformedResponse("no message content")
    text = message["content"]
    ends: list[int] = []
    logprobs: list[float] = []
    content = ((choice.get("logprobs") or {}).get("content")) or []
    pieces = b""
    for item in content:
        token_bytes = item.get("bytes")
        piece = bytes(token_bytes) if token_bytes is not None else item["token"].encode()
        pieces += piece
        ends.append(len(pieces.decode("utf-8", errors="ignore")))
        logprobs.append(float(item["logprob"]))
    return {
        "text": text,
        "token_ends": ends,
        "logprobs": logprobs,
        "finish": choice.get("finish_reason") or "stop",
    }


class OpenAIChat:
    """One model behind an OpenAI-compatible endpoint (see the module docstring)."""

    name = "openai"
    deterministic = False  # a server may answer differently: repeated runs are re-queried

    def __init__(
        self,
        spec: Mapping[str, Any],
        *,
        model_name: str,
        run: int,
        cache_dir: str | Path,
        key: str,
        client_factory: Callable[..., Any] | None = None,
    ):
        self.spec = spec
        self.model = spec["model"]
        self.model_name = model_name
        self.base_url = str(spec.get("base_url", "https://api.openai.com/v1")).rstrip("/")
        self.api_key_env = spec.get("api_key_env", "OPENAI_API_KEY")
        self.run = run
        self.timeout = float(spec.get("timeout", 60))
        self.max_retries = int(spec.get("max_retries", 6))
        self.concurrency = int(spec.get("concurrency", 4))
        self.prices = dict(spec.get("prices") or {})
        self.max_cost = spec.get("max_cost_usd")
        tokenizer = spec.get("tokenizer")
        if not tokenizer:
            raise ConfigError(
                f"config key '{key}.tokenizer': an API model needs a declared tokenizer "
                "(tiktoken:<encoding>, e.g. tiktoken:cl100k_base for gpt-3.5, or a HuggingFace "
                "tokenizer)"
            )
        self.doc_tokenizer = load_doc_tokenizer(tokenizer, f"{key}.tokenizer")
        self.cache = ResponseCache(cache_dir)
        self.usage = Usage()
        self._client_factory = client_factory
        self._client: Any = None
        self._rng = random.Random()
        self._lock = threading.Lock()
        self._stop = threading.Event()  # set by a fatal error: in-flight workers send no more
        self.calls = 0  # HTTP requests sent (retries included)

    @property
    def identity(self) -> str:
        return f"api:{self.base_url}:{self.model}:run{self.run}"

    def settings(self) -> dict[str, Any]:
        return {
            "base_url": self.base_url,
            "temperature": 0,
            "n": 1,
            "logprobs": True,
            "tokenizer": self.doc_tokenizer.name,
            "run": self.run,
        }

    def frame(self, prompt: Prompt, context_tokens: int, max_new_tokens: int, where: str):
        return api_frame(self.doc_tokenizer, prompt, context_tokens, max_new_tokens, where)

    def body(self, messages: list[dict], max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "n": 1,
            "max_tokens": max_tokens,
            "logprobs": True,
        }

    # -- the client --------------------------------------------------------------------------
    def client(self):
        if self._client is None:
            key = os.environ.get(self.api_key_env, "").strip()
            if not key:
                raise ConfigError(
                    f"environment variable {self.api_key_env} is not set: model "
                    f"{self.model_name} ({self.model} at {self.base_url}) needs an API key "
                    "(models.llms.<name>.api_key_env names the variable)"
                )
            from openai import OpenAI

            factory = self._client_factory or OpenAI
            self._client = factory(
                api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
            for noisy in ("openai", "httpx", "httpcore"):
                logging.getLogger(noisy).setLevel(logging.WARNING)
        return self._client

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(MAX_BACKOFF, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return min(MAX_BACKOFF, BACKOFF_BASE * 2**attempt) * self._rng.uniform(0.5, 1.0)

    def _send(self, body: dict) -> dict | None:
        """One request with bounded retries: the response JSON, or None when it stayed
        malformed; an unrecoverable error raises."""
        import openai

        for attempt in range(self.max_retries + 1):
            retry_after = None
            if self._stop.is_set():
                raise ApiError(f"{self.base_url}: stopped after another request failed")
            try:
                with self._lock:
                    self.calls += 1
                raw = self.client().chat.completions.with_raw_response.create(**body)
                response = json.loads(raw.http_response.content)
                generation_of(response)  # validate before caching
                return response
            except openai.RateLimitError as exc:
                why, retry_after = "429", exc.response.headers.get("retry-after")
            except openai.InternalServerError as exc:
                why = str(exc.status_code)
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                why = type(exc).__name__
            except (ValueError, MalformedResponse, openai.APIResponseValidationError) as exc:
                why = f"malformed response ({first_line(exc)})"
            except openai.APIStatusError as exc:
                raise ApiError(
                    f"{self.base_url}: HTTP {exc.status_code} for model {self.model} "
                    f"({first_line(exc)})"
                ) from None
            if attempt == self.max_retries:
                if why.startswith("malformed"):
                    log.warning("%s after %d attempts: recorded as an error", why, attempt + 1)
                    return None
                raise ApiError(
                    f"{self.base_url}: {why} after {attempt + 1} attempts (max_retries "
                    f"{self.max_retries}); completed requests are cached, rerun to resume"
                )
            wait = self._wait(attempt, retry_after)
            with self._lock:
                self.usage.retries += 1
                self.usage.waits.append(wait)
            log.info("%s: %s, retry %d in %.1fs", self.model, why, attempt + 1, wait)
            time.sleep(wait)
        return None  # unreachable

    # -- planning and generation -------------------------------------------------------------
    def requests(self, frame: ChatFrame, prompt: Prompt, texts: Sequence[str]):
        bodies = [self.body(prompt.messages(t), frame.max_new_tokens) for t in texts]
        return bodies, [request_key(self.base_url, b, self.run) for b in bodies]

    def estimate(self, frame: ChatFrame, prompt: Prompt, texts: Sequence[str]) -> dict:
        """Requests not in the response cache, and their cost at most (dry, nothing sent)."""
        bodies, keys = self.requests(frame, prompt, texts)
        cached = self.cache.has(keys)
        todo = [b for b, k in zip(bodies, keys, strict=True) if k not in cached]
        prompt_tokens = sum(self._count(b["messages"]) for b in todo)
        completion = len(todo) * frame.max_new_tokens
        cost = (
            prompt_tokens * self.prices.get("input", 0.0)
            + completion * self.prices.get("output", 0.0)
        ) / 1e6
        return {
            "requests": len(bodies),
            "cached": len(bodies) - len(todo),
            "to_send": len(todo),
            "prompt_tokens": prompt_tokens,
            "max_completion_tokens": completion,
            "max_cost_usd": round(cost, 4),
        }

    def _count(self, messages: list[dict]) -> int:
        return sum(3 + self.doc_tokenizer.count(m["content"]) for m in messages) + 3

    def check_budget(self, estimate: Mapping[str, Any]) -> None:
        if self.max_cost is not None and estimate["max_cost_usd"] > float(self.max_cost):
            raise ConfigError(
                f"model {self.model_name}: the dry estimate ${estimate['max_cost_usd']} exceeds "
                f"max_cost_usd {self.max_cost}; raise it to run"
            )
        if estimate["to_send"]:
            self.client()  # a missing key fails here, before any request

    def generate(
        self, frame: ChatFrame, docs: Sequence[np.ndarray], texts: Sequence[str], prompt: Prompt
    ) -> list[dict | None]:
        """Answers for the documents' visible texts; None where the server stayed malformed."""
        bodies, keys = self.requests(frame, prompt, texts)
        results: list[dict | None] = [None] * len(bodies)

        def one(i: int) -> None:
            response = self.cache.get(keys[i])
            fresh = response is None
            if fresh:
                try:
                    response = self._send(bodies[i])
                except BaseException:
                    self._stop.set()
                    raise
                if response is None:
                    with self._lock:
                        self.usage.failed += 1
                    return
                self.cache.put(keys[i], self.model, response)  # at once: never paid twice
            usage = response.get("usage") or {}
            pin, pout = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
            with self._lock:
                self.usage.requests += 1
                self.usage.prompt_tokens += pin
                self.usage.completion_tokens += pout
                if fresh:
                    self.usage.sent += 1
                    self.usage.sent_prompt_tokens += pin
                    self.usage.sent_completion_tokens += pout
            results[i] = generation_of(response)
            with self._lock:
                progress.update(1)

        progress = Progress(self.model, len(bodies), "answers", every=30.0, bar=False)
        if self.concurrency <= 1 or len(bodies) <= 1:
            for i in range(len(bodies)):
                one(i)
            return results
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            futures = [pool.submit(one, i) for i in range(len(bodies))]
            try:
                for future in futures:
                    future.result()  # re-raise the first failure
            except BaseException:
                self._stop.set()
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return results

    def summary(self) -> dict[str, Any]:
        u = self.usage
        return {
            "requests": u.requests,
            "sent": u.sent,
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "cost_usd": round(u.cost(self.prices), 6),
            "sent_cost_usd": round(u.cost(self.prices, sent_only=True), 6),
            "retries": u.retries,
            "failed": u.failed,
        }

    def close(self) -> None:
        self.cache.close()
        if self._client is not None:
            close = getattr(self._client, "close", None)
            if close is not None:
                close()
