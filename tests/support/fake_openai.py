"""A local OpenAI-compatible server (loopback, random port, a thread of the test process) that
speaks ``POST /v1/chat/completions`` as the real API does — including ``logprobs`` — and can be
told to misbehave: 429 with ``Retry-After``, 500, a response slower than the client's timeout,
malformed JSON, an empty choice list, 401 — and every malformed-but-JSON shape of
:data:`MALFORMED` (a JSON array, a missing, null or positive logprob, null token counts, an HTML
login page, an answer far over its token budget), a 401 that echoes the ``Authorization``
header, a 503 with ``Retry-After``, a body dripped a few bytes at a time, headers dripped a
byte at a time (``drip_headers``: the status line at once, then one header byte every
``drip_every`` seconds for ``drip_for`` seconds, then a valid answer), a 200 answer that echoes
the ``Authorization`` header (``echo_auth_200``), a 200 that reports a huge token usage
(``usage_big``) and a 307 to another origin (``redirect``, to ``redirect_to``). "Malformed,
then good" is a behaviour that returns a :data:`MALFORMED` shape on a request's first attempt
and None after (``first_attempt``)."""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Behaviour = Callable[[dict], str | None]  # request body -> a fault name, or None to answer

# 200 responses that are not usable chat completions, by fault name (the review's L07-L17)
MALFORMED = (
    "malformed",  # truncated JSON
    "empty",  # no choices
    "json_list",  # a JSON array around the completion
    "logprob_missing",  # a logprobs item without "logprob"
    "logprob_null",
    "logprob_positive",  # logprob 3.0: a "confidence" of 8,103
    "logprob_nan",
    "usage_null",  # usage.prompt_tokens: null
    "html",  # a captive portal's login page, text/html
    "huge",  # an answer of 100,000 characters to a 7-token budget
    "content_null",
)


def answer_for(body: dict) -> str:
    """The server's 'model': negative when the document mentions a woman, else positive."""
    text = body["messages"][-1]["content"].rsplit("Text:", 1)[-1]
    return "Answer: Negative." if re.search(r"\bwom[ae]n\b", text, re.I) else "Answer: Positive."


def tokens_of(text: str) -> list[str]:
    return re.findall(r"\s*\w+|\s*[^\w\s]", text)


def first_attempt(shape: str) -> Behaviour:
    """``shape`` on each request's first attempt, then a healthy answer (malformed, then good:
    the review's N10, where both attempts are billed)."""
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def behaviour(body: dict) -> str | None:
        key = json.dumps(body["messages"], sort_keys=True)
        with lock:
            seen[key] = seen.get(key, 0) + 1
            return shape if seen[key] == 1 else None

    return behaviour


class FakeOpenAI:
    def __init__(
        self,
        behaviour: Behaviour | None = None,
        delay: float = 2.0,
        drip_every: float = 0.2,
        drip_for: float = 10.0,
    ):
        self.behaviour = behaviour or (lambda body: None)
        self.delay = delay  # seconds a "timeout" response waits
        self.drip_every, self.drip_for = drip_every, drip_for  # the header drip's pace and length
        self.redirect_to = ""  # the base URL a "redirect" fault sends the client to
        self.requests: list[dict] = []  # every body received
        self.answered: list[dict] = []  # bodies answered with 200 and a valid completion
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        self.release = threading.Event()  # ends the "hang" fault
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found"}})
                fault = server.behaviour(body)
                if fault == "429":
                    return self._send(
                        429, {"error": {"message": "rate limited"}}, {"Retry-After": "0.2"}
                    )
                if fault == "500":
                    return self._send(500, {"error": {"message": "server error"}})
                if fault == "401":
                    return self._send(401, {"error": {"message": "invalid api key"}})
                if fault == "timeout":
                    time.sleep(server.delay)
                if fault == "hang":  # no answer until released, then a dropped connection
                    server.release.wait(120)
                    return None
                if fault == "echo_auth":  # a proxy echoing the credentials it was sent
                    auth = self.headers.get("authorization")
                    message = f"Incorrect API key provided: {auth} for {self.headers.get('host')}"
                    return self._send(401, {"error": {"message": message}})
                if fault == "503":
                    return self._send(
                        503, {"error": {"message": "overloaded"}}, {"Retry-After": "0.3"}
                    )
                if fault == "drip":  # a valid answer, 16 bytes at a time, 0.05 s apart
                    return self._drip(json.dumps(server.completion(body)).encode())
                if fault == "redirect":  # 307 to server.redirect_to (another origin)
                    location = server.redirect_to + self.path.removeprefix("/v1")
                    return self._raw(307, b"", {"location": location})
                if fault == "drip_headers":  # the status line, then a header byte at a time
                    return self._drip_headers(json.dumps(server.completion(body)).encode())
                if fault == "echo_auth_200":  # a 200 answer that quotes the credentials
                    text = f"Answer: Positive. {self.headers.get('authorization')}"
                    return self._send(200, server.completion(body, text))
                if fault == "usage_big":  # a usable answer billed 100,000 prompt tokens
                    completion = server.completion(body)
                    completion["usage"]["prompt_tokens"] = 100_000
                    with server.lock:
                        server.answered.append(body)
                    return self._send(200, completion)
                if fault == "no_logprobs":  # usable, but no confidence (the review's L10)
                    completion = server.completion(body)
                    completion["choices"][0]["logprobs"] = None
                    return self._send(200, completion)
                if fault in MALFORMED:
                    return self._malformed(fault, server.completion(body))
                completion = server.completion(body)
                with server.lock:
                    server.answered.append(body)
                return self._send(200, completion)

            def _malformed(self, fault, completion):
                choice = completion["choices"][0]
                items = (choice.get("logprobs") or {}).get("content") or []
                if fault == "malformed":
                    return self._raw(200, b'{"id": "x", "choices": [')
                if fault == "empty":
                    completion["choices"] = []
                if fault == "json_list":
                    completion = [completion]
                for item in items:
                    if fault == "logprob_missing":
                        del item["logprob"]
                    elif fault.startswith("logprob_"):
                        item["logprob"] = {"logprob_null": None, "logprob_positive": 3.0}.get(
                            fault, float("nan")
                        )
                if fault == "usage_null":
                    completion["usage"] = {"prompt_tokens": None, "completion_tokens": None}
                if fault == "huge":
                    choice["message"]["content"] = "Answer: Positive. " + "x" * 100_000
                    choice["logprobs"] = None
                if fault == "content_null":
                    choice["message"]["content"] = None
                if fault == "html":
                    page = b"<html><body>Please log in to the proxy</body></html>"
                    return self._raw(200, page, ctype="text/html")
                data = json.dumps(completion, allow_nan=True).encode()
                return self._raw(200, data)

            def _drip(self, data, step=16, every=0.05):
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    for i in range(0, len(data), step):
                        self.wfile.write(data[i : i + step])
                        self.wfile.flush()
                        time.sleep(every)

            def _drip_headers(self, data):
                """What the review's N11 server did: the status line, then header lines a byte
                every ``drip_every`` seconds (``drip_for`` seconds in all, or until released),
                then the answer: a per-read timeout never fires, only a whole deadline does."""
                end = time.monotonic() + server.drip_for
                with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
                    self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
                    self.wfile.flush()
                    i = 0
                    while time.monotonic() < end and not server.release.is_set():
                        for ch in f"x-pad-{i}: a\r\n".encode():
                            self.wfile.write(bytes([ch]))
                            self.wfile.flush()
                            if server.release.wait(server.drip_every):
                                return
                        i += 1
                    self.wfile.write(b"content-length: %d\r\n\r\n" % len(data) + data)
                    self.wfile.flush()
                self.close_connection = True

            def _send(self, status, payload, headers=None):
                self._raw(status, json.dumps(payload).encode(), headers)

            def _raw(self, status, data, headers=None, ctype="application/json"):
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # a short poll interval: shutting the server down takes one interval (tests start many)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def completion(self, body: dict, text: str | None = None) -> dict:
        """A valid completion of ``text`` (default: :func:`answer_for`, cut to the budget)."""
        if text is None:
            text = answer_for(body)[: 4 * body.get("max_tokens", 16)]
        tokens = tokens_of(text)
        probs = [0.9 if i < 3 else 0.6 for i in range(len(tokens))]
        content = [
            {
                "token": t,
                "logprob": math.log(p),
                "bytes": list(t.encode()),
                "top_logprobs": [],
            }
            for t, p in zip(tokens, probs, strict=True)
        ]
        prompt_tokens = sum(len(m["content"].split()) for m in body["messages"])
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "logprobs": {"content": content} if body.get("logprobs") else None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": len(tokens),
                "total_tokens": prompt_tokens + len(tokens),
            },
        }

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
