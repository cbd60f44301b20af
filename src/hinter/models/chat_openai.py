"""Chat LLMs behind an OpenAI-compatible HTTP API (OpenAI itself, or a vLLM, llama.cpp or Ollama
server at ``base_url`` for open models at scale), through the official ``openai`` client.

- **Greedy**: ``temperature: 0``, one choice, ``max_tokens`` = the answer budget, and
  ``logprobs: true`` for the answer's confidence.
- **A paid call is never repeated**: every response is stored, as it arrives, in a SQLite cache
  (``<cache_dir>/api/responses.sqlite``) keyed by (base URL, the full request body, run index):
  a killed job resumes where it stopped, a rerun costs nothing, and RQ6's repeated runs are real
  re-queries because their run index differs. Failed requests are not cached.
- **Bounded retries**: 429, 5xx, timeouts, connection errors and malformed or empty responses
  are retried up to ``max_retries`` times, waiting ``Retry-After`` when the server sends it (429
  and 503 alike) and otherwise an exponential backoff with jitter (capped); other errors (400,
  401, 404, ...) end the job at once with one line. A response still malformed after the
  retries becomes a prediction with status ``error`` (kept and counted, not cached); when more
  than half of a job's requests end so, the job fails (a login page or a broken proxy answering
  everything is not a result).
- **One schema for a usable response** (:mod:`hinter.models.responses`), checked before a
  response is cached and again when a cached row is read (a row that fails it is fetched again
  and replaced).
- **Deadlines**: ``timeout`` bounds a whole request, not each read: each attempt runs in a
  thread of its own that the caller waits for at most ``timeout`` seconds (status line,
  headers and body alike), then abandons (and retries), so a server dripping its headers or
  its body a byte at a time cannot hold a job; a body over ``MAX_RESPONSE_BYTES`` is refused.
- **Bounded concurrency**: ``concurrency`` requests in flight (daemon threads; the cache is
  shared). The caller waits on them in short slices, so Ctrl-C or SIGTERM stops a job at once:
  nothing waits for a request in flight, what was answered is cached, a rerun resumes.
- **Cost**: before the first request, a dry estimate (requests not cached, their input tokens
  as counted by the declared tokenizer, at most ``max_tokens`` output each, priced with
  ``prices``) is logged and checked against ``max_cost_usd`` (:mod:`hinter.costs`: finite
  positive prices and cap, a cap needs prices). Every billed response — a 200, malformed ones
  that are retried included — counts in ``sent`` and its reported tokens in ``sent_cost_usd``,
  and the job stops with one line once that reported spend passes ``max_cost_usd``.
- **The API key** is read from the environment variable ``api_key_env`` only when a request
  must be sent, and never logged or written: it is not part of any request body, cache key or
  file. A missing, empty or non-ASCII key ends the job with one line naming the variable, after
  the estimate and before the first request. The key and the credentials of ``base_url`` are
  registered with :mod:`hinter.redact`, so they are masked in every log line and error message
  whatever the server echoes back; ``base_url`` is logged and stored without its userinfo. A
  response is scrubbed of every registered secret (:func:`scrub`) before it is validated,
  cached or parsed, so a key echoed inside a 200 answer reaches no cache and no predictions file.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hinter import costs, redact
from hinter.errors import ConfigError, HinterError, first_line
from hinter.models.context import ChatFrame, api_frame, load_doc_tokenizer
from hinter.models.prompts import Prompt
from hinter.models.response_cache import ResponseCache, request_key
from hinter.models.responses import MalformedResponse, billed_tokens, scrub, validate_response
from hinter.progress import Progress

log = logging.getLogger(__name__)

MAX_BACKOFF = 60.0  # seconds: the longest wait between two attempts
BACKOFF_BASE = 0.5  # seconds: the first wait without Retry-After (doubling after each attempt)
MAX_RESPONSE_BYTES = 4 << 20  # a chat completion of a few tokens is a few KB; refuse more
WAIT_SLICE = 0.2  # seconds: how long the caller waits on workers between checks for a signal
FAILED_SHARE = 0.5  # a job whose responses are unusable for more than this share fails
MIN_JUDGED = 16  # requests a job must have sent before a share below 100% can fail it


class ApiError(HinterError):
    """The API refused a request in a way retrying cannot fix (bad request, auth, ...)."""


class _Stopped(ApiError):
    """Another request of the job failed: this one was not sent (never the error reported)."""


class _Deadline(Exception):
    """The whole request took longer than ``timeout`` seconds."""


@dataclass
class Usage:
    """Tokens reported by the responses used (cached or not), and what this job sent."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    sent: int = 0  # billed requests of this job: every 200 response, malformed ones included
    sent_prompt_tokens: int = 0
    sent_completion_tokens: int = 0
    retries: int = 0
    failed: int = 0  # responses still malformed after the retries (status error)
    waits: list[float] = field(default_factory=list)

    def cost(self, prices: Mapping[str, float], sent_only: bool = False) -> float:
        pin = self.sent_prompt_tokens if sent_only else self.prompt_tokens
        pout = self.sent_completion_tokens if sent_only else self.completion_tokens
        return (pin * prices.get("input", 0.0) + pout * prices.get("output", 0.0)) / 1e6


def read_key(variable: str, who: str) -> str:
    """The API key in environment variable ``variable``, checked before any request: set,
    non-empty, and ASCII without spaces or control characters (an HTTP header carries it)."""
    if not variable:
        raise ConfigError(f"model {who}: api_key_env is empty; name the variable of the API key")
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigError(
            f"environment variable {variable} is not set: model {who} needs an API key "
            "(models.llms.<name>.api_key_env names the variable)"
        )
    redact.register(key)
    bad = next((i for i, c in enumerate(key) if not 33 <= ord(c) <= 126), None)
    if bad is not None:
        raise ConfigError(
            f"environment variable {variable}: the API key has a character that an HTTP header "
            f"cannot carry (U+{ord(key[bad]):04X} at position {bad}); paste it again"
        )
    return key


def _http_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """The timeout and transport errors of the HTTP libraries the client uses (raised as they
    are while a streamed body is read); imported once, from one thread."""
    import importlib.util

    modules = [
        importlib.import_module(name)
        for name in ("httpx2", "httpx")
        if importlib.util.find_spec(name) is not None
    ]
    return tuple(m.TimeoutException for m in modules), tuple(m.TransportError for m in modules)


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
        redact.register(*redact.url_secrets(self.base_url))
        self.public_url = redact.public_url(self.base_url)  # what is logged and stored
        self.api_key_env = spec.get("api_key_env", "OPENAI_API_KEY")
        # registered now, not only when a request is sent: a cached answer echoing it is scrubbed
        redact.register(os.environ.get(str(self.api_key_env), "").strip())
        self.run = run
        self.timeout = float(spec.get("timeout", 60))
        self.max_retries = int(spec.get("max_retries", 6))
        self.concurrency = int(spec.get("concurrency", 4))
        costs.check_costs(spec, key)
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
        self._client_lock = threading.Lock()
        self._timeout_errors: tuple[type[BaseException], ...] = ()
        self._transport_errors: tuple[type[BaseException], ...] = ()
        self._stop = threading.Event()  # set by a fatal error or a signal: workers send no more
        self._over_budget = False  # the reported spend passed max_cost_usd (said once)
        self._warned_logprobs = False
        self.judged = 0  # requests of this job so far (cached or sent)
        self.first_failure: str | None = None  # why the first response stayed malformed
        self.calls = 0  # HTTP requests sent (retries included)

    @property
    def identity(self) -> str:
        return f"api:{self.public_url}:{self.model}:run{self.run}"

    def settings(self) -> dict[str, Any]:
        return {
            "base_url": self.public_url,
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
        with self._client_lock:
            return self._make_client()

    def _make_client(self):
        if self._client is None:
            who = f"{self.model_name} ({self.model} at {self.public_url})"
            key = read_key(self.api_key_env, who)
            from openai import OpenAI

            factory = self._client_factory or OpenAI
            self._timeout_errors, self._transport_errors = _http_errors()
            self._client = factory(
                api_key=key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
            # the client libraries log every request URL (userinfo included) at INFO
            for noisy in ("openai", "httpx", "httpx2", "httpcore", "httpcore2"):
                logging.getLogger(noisy).setLevel(logging.WARNING)
        return self._client

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(MAX_BACKOFF, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return min(MAX_BACKOFF, BACKOFF_BASE * 2**attempt) * self._rng.uniform(0.5, 1.0)

    def _send(self, body: dict) -> tuple[dict, dict] | None:
        """One request with bounded retries: (the response JSON, its validated generation), or
        None when it stayed malformed; an unrecoverable error raises (its message redacted)."""
        import openai

        client = self.client()  # a missing or unusable key: one line, nothing sent
        for attempt in range(self.max_retries + 1):
            retry_after = None
            if self._stop.is_set():
                raise _Stopped(f"{self.public_url}: stopped after another request failed")
            try:
                with self._lock:
                    self.calls += 1
                return self._request(client, body)
            except ApiError:  # stopped, or redirected elsewhere: never retried
                raise
            except openai.RateLimitError as exc:
                why, retry_after = "429", exc.response.headers.get("retry-after")
            except openai.InternalServerError as exc:  # 5xx: 503 may say when to come back
                why, retry_after = str(exc.status_code), exc.response.headers.get("retry-after")
            except (openai.APITimeoutError, _Deadline, *self._timeout_errors) as exc:
                why = f"timeout ({type(exc).__name__})"
            except (openai.APIConnectionError, *self._transport_errors) as exc:
                cause = exc.__cause__ or exc
                why = f"{type(exc).__name__} ({first_line(cause)})"
            except (MalformedResponse, openai.APIResponseValidationError) as exc:
                why = f"malformed response ({first_line(exc)})"
                self._bill(*getattr(exc, "billed", (0, 0)))  # a 200 is paid for, usable or not
            except openai.APIStatusError as exc:
                raise ApiError(
                    redact.redact(
                        f"{self.public_url}: HTTP {exc.status_code} for model {self.model} "
                        f"({first_line(exc)})"
                    )
                ) from None
            except Exception as exc:  # the client failed before sending: not the server's fault
                raise ApiError(
                    redact.redact(
                        f"{self.public_url}: the request could not be sent "
                        f"({type(exc).__name__}: {first_line(exc)})"
                    )
                ) from None
            why = redact.redact(why)
            if attempt == self.max_retries:
                if why.startswith("malformed"):
                    log.warning("%s after %d attempts: recorded as an error", why, attempt + 1)
                    with self._lock:
                        self.first_failure = self.first_failure or why
                    return None
                raise ApiError(
                    f"{self.public_url}: {why} after {attempt + 1} attempts (max_retries "
                    f"{self.max_retries}); completed requests are cached, rerun to resume"
                )
            wait = self._wait(attempt, retry_after)
            with self._lock:
                self.usage.retries += 1
                self.usage.waits.append(wait)
            log.info("%s: %s, retry %d in %.1fs", self.model, why, attempt + 1, wait)
            time.sleep(wait)
        return None  # unreachable

    def _request(self, client: Any, body: dict) -> tuple[dict, dict]:
        """Send one request and have its whole response — status line, headers and body — within
        ``timeout`` seconds and ``MAX_RESPONSE_BYTES``; the response (scrubbed of secrets) and
        its generation, validated. The attempt runs in a daemon thread that is abandoned at the
        deadline: a read timeout alone never ends a server that drips a byte a second."""
        deadline = time.monotonic() + self.timeout
        done = threading.Event()
        box: dict[str, Any] = {}

        def attempt() -> None:
            try:
                box["raw"] = self._read(client, body, deadline)
            except BaseException as exc:  # handed to the caller, never lost in the thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=attempt, name="hinter-request", daemon=True).start()
        while not done.wait(max(0.0, min(WAIT_SLICE, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise _Deadline(f"no complete response within {self.timeout:g}s")
        if "error" in box:
            raise box["error"]
        try:
            response = scrub(json.loads(box["raw"]))
        except (ValueError, UnicodeDecodeError):
            raise MalformedResponse("the body is not JSON") from None
        try:
            return response, validate_response(response, body["max_tokens"])
        except MalformedResponse as exc:
            exc.billed = billed_tokens(response)  # type: ignore[attr-defined]
            raise

    def _read(self, client: Any, body: dict, deadline: float) -> bytes:
        """The body of one response, read in chunks until ``deadline`` (then abandoned)."""
        chunks: list[bytes] = []
        size = 0
        create = client.chat.completions.with_streaming_response.create
        with create(**body) as raw:
            self._check_origin(raw)
            for chunk in raw.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise MalformedResponse(f"a body over {MAX_RESPONSE_BYTES} bytes")
                if time.monotonic() > deadline:
                    raise _Deadline(f"the body took over {self.timeout:g}s")
                chunks.append(chunk)
        return b"".join(chunks)

    def _check_origin(self, raw: Any) -> None:
        """An answer is used only from ``base_url``'s origin, to the POST that was sent: the
        client follows redirects, so a 307 re-sent the prompts elsewhere and a 302 turned them
        into a GET whose answer was cached as theirs (review N12, N13)."""
        from urllib.parse import urlsplit

        url, request = raw.http_response.url, raw.http_response.request
        base = urlsplit(self.base_url)
        same = (url.scheme, url.host, url.port or None) == (
            base.scheme, base.hostname, base.port or None
        )  # fmt: skip
        if not same or request.method != "POST":
            raise ApiError(
                redact.redact(
                    f"{self.public_url}: the server redirected the request to "
                    f"{url.scheme}://{url.host}{f':{url.port}' if url.port else ''} "
                    f"({request.method}); set base_url to the final address (no answer from "
                    "elsewhere is used)"
                )
            )

    def _bill(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one billed response in ``sent`` and its tokens; past ``max_cost_usd`` (the
        spend the responses report, not the estimate) the job stops with one line."""
        with self._lock:
            self.usage.sent += 1
            self.usage.sent_prompt_tokens += prompt_tokens
            self.usage.sent_completion_tokens += completion_tokens
            spent = self.usage.cost(self.prices, sent_only=True)
            over = self.max_cost is not None and spent > float(self.max_cost)
            first = over and not self._over_budget
            self._over_budget = self._over_budget or over
        if over:
            self._stop.set()
            if first:
                raise ApiError(
                    f"model {self.model_name}: the responses so far report ${spent:.4f}, over "
                    f"max_cost_usd {self.max_cost}; answered requests are cached (raise the cap "
                    "and rerun to go on)"
                )
            raise _Stopped(f"{self.public_url}: stopped over the cost cap")

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
            stored = self.cache.get(keys[i])
            generation = None
            if stored is not None:
                try:
                    stored = scrub(stored)  # a row written before secrets were scrubbed
                    generation = validate_response(stored, bodies[i]["max_tokens"])
                except MalformedResponse as exc:
                    log.warning(
                        "%s: a cached response fails validation (%s); it is fetched again",
                        self.cache.path, first_line(exc),
                    )  # fmt: skip
            fresh = generation is None
            if fresh:
                try:
                    sent = self._send(bodies[i])
                except BaseException:
                    self._stop.set()
                    raise
                if sent is None:
                    with self._lock:
                        self.usage.failed += 1
                    return
                response, generation = sent
                # at once, validated and scrubbed: never paid twice, never a poisoned row
                self.cache.put(keys[i], self.model, response, replace=stored is not None)
            pin, pout = generation.pop("usage")
            results[i] = generation
            with self._lock:
                self.usage.requests += 1
                self.usage.prompt_tokens += pin
                self.usage.completion_tokens += pout
                progress.update(1)
            if fresh:
                self._bill(pin, pout)

        # closed on every path: an open stage's heartbeat would keep writing after the call
        with Progress(self.model, len(bodies), "answers", every=30.0, bar=False) as progress:
            try:
                if self.concurrency <= 1 or len(bodies) <= 1:
                    for i in range(len(bodies)):
                        one(i)
                else:
                    self._in_workers(one, len(bodies))
            except BaseException:
                self._stop.set()  # Ctrl-C, SIGTERM or a fatal error: in flight sends no more
                raise
        self.judged += len(bodies)
        self.check_failures(self.usage.failed, self.judged)
        self._warn_without_logprobs(results)
        return results

    def _in_workers(self, one: Callable[[int], None], n: int) -> None:
        """``one(i)`` for every i, on ``concurrency`` daemon threads. The caller waits in short
        slices, so a signal stops it at once (no join of a thread stuck in a request: they are
        daemons, abandoned to the end of the process); a worker's error stops the others and is
        raised once they are done — the cause, not a request stopped because of it."""
        todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for i in range(n):
            todo.put(i)
        errors: list[BaseException] = []
        lock = threading.Lock()
        finished = threading.Event()
        alive = [min(self.concurrency, n)]

        def worker() -> None:
            try:
                while not self._stop.is_set():
                    try:
                        i = todo.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        one(i)
                    except BaseException as exc:
                        with lock:
                            errors.append(exc)
                        self._stop.set()
                        return
            finally:
                with lock:
                    alive[0] -= 1
                    if alive[0] == 0:
                        finished.set()

        for _ in range(alive[0]):
            threading.Thread(target=worker, name="hinter-api", daemon=True).start()
        while not finished.wait(WAIT_SLICE):
            pass
        if errors:
            causes = [e for e in errors if not isinstance(e, _Stopped)]
            raise (causes or errors)[0]

    def _warn_without_logprobs(self, results: Sequence[dict | None]) -> None:
        """A server that sends no log-probabilities leaves every confidence missing: say so
        once (oracle.confidence_threshold and RQ6.3 then count no answer as confident)."""
        bare = sum(1 for g in results if g is not None and g["text"] and not g["logprobs"])
        if bare and not self._warned_logprobs:
            self._warned_logprobs = True
            log.warning(
                "%s: %d of %d responses carry no token log-probabilities: their confidence is "
                "missing (confidence thresholds count them as not confident)",
                self.model, bare, len(results),
            )  # fmt: skip

    def check_failures(self, failed: int, total: int) -> None:
        """Fail the job when most of its requests so far got no usable response: more than
        FAILED_SHARE of them once MIN_JUDGED were answered, or every one of them (the engine
        sends a job's requests in batches, so this is judged as they come)."""
        if not failed or failed <= FAILED_SHARE * total:
            return
        if failed == total or total >= MIN_JUDGED:
            raise ApiError(
                f"{self.public_url}: {failed} of {total} responses for model {self.model} were "
                f"unusable after retries (first: {self.first_failure}); nothing unusable was "
                "cached, rerun to retry them"
            )

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
