"""A local OpenAI-compatible server (loopback, random port, a thread of the test process) that
speaks ``POST /v1/chat/completions`` as the real API does — including ``logprobs`` — and can be
told to misbehave: 429 with ``Retry-After``, 500, a response slower than the client's timeout,
malformed JSON, an empty choice list, 401."""

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


def answer_for(body: dict) -> str:
    """The server's 'model': negative when the document mentions a woman, else positive."""
    text = body["messages"][-1]["content"].rsplit("Text:", 1)[-1]
    return "Answer: Negative." if re.search(r"\bwom[ae]n\b", text, re.I) else "Answer: Positive."


def tokens_of(text: str) -> list[str]:
    return re.findall(r"\s*\w+|\s*[^\w\s]", text)


class FakeOpenAI:
    def __init__(self, behaviour: Behaviour | None = None, delay: float = 2.0):
        self.behaviour = behaviour or (lambda body: None)
        self.delay = delay  # seconds a "timeout" response waits
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
                if fault == "malformed":
                    return self._raw(200, b'{"id": "x", "choices": [')
                if fault == "empty":
                    return self._send(200, {"id": "x", "object": "chat.completion", "choices": []})
                if fault == "hang":  # no answer until released, then a dropped connection
                    server.release.wait(120)
                    return None
                completion = server.completion(body)
                with server.lock:
                    server.answered.append(body)
                return self._send(200, completion)

            def _send(self, status, payload, headers=None):
                self._raw(status, json.dumps(payload).encode(), headers)

            def _raw(self, status, data, headers=None):
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def completion(self, body: dict) -> dict:
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
