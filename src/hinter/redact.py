"""Secrets never reach a log line, an error message or a file.

An API key, a bearer token or the credentials inside a URL can come back in places the project
does not control: an error body that echoes the ``Authorization`` header, a client library
that logs every request URL. Every secret is registered here when it is read
(:func:`register`), and :func:`redact` replaces each registered value, and the userinfo of any
``scheme://user:password@host`` URL, by ``***``. :func:`install` makes every log record pass
through :func:`redact` (message, arguments and traceback) before any handler writes it, so no
logger, ours or a library's, can write a secret.
"""

from __future__ import annotations

import base64
import logging
import re
import threading
import traceback
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"
_MIN_LENGTH = 4  # shorter values are not secrets worth masking (and would mask ordinary words)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")

_lock = threading.Lock()
_secrets: set[str] = set()
_installed = False


def register(*values: str | None) -> None:
    """Remember secret values so that :func:`redact` masks them (and install the log filter)."""
    with _lock:
        for value in values:
            if value and len(value) >= _MIN_LENGTH:
                _secrets.add(value)
    install()


def redact(text: str) -> str:
    """``text`` with every registered secret and every URL's userinfo replaced by ``***``."""
    if not isinstance(text, str):
        text = str(text)
    text = _USERINFO.sub(rf"\1{MASK}@", text)
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)  # a longer secret may contain another
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def secret_spans(text: str) -> list[tuple[int, int]]:
    """Where in ``text`` :func:`redact` would mask something: (start, end) of every registered
    secret and every URL userinfo, sorted (overlaps are left as they are)."""
    spans = [(m.start(), m.end()) for m in _USERINFO.finditer(text)]
    with _lock:
        secrets = list(_secrets)
    for secret in secrets:
        pos = text.find(secret)
        while pos != -1:
            spans.append((pos, pos + len(secret)))
            pos = text.find(secret, pos + 1)
    return sorted(spans)


def public_url(url: str) -> str:
    """``url`` without its userinfo (``user:password@``) and with the values of its query string
    masked (``?api-key=***``, review N02): the form that is logged and stored."""
    parts = urlsplit(url)
    if parts.query:
        query = "&".join(
            f"{k}={MASK}" if sep else k
            for k, sep, _ in (p.partition("=") for p in parts.query.split("&"))
        )
        parts = parts._replace(query=query)
        url = urlunsplit(parts)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries, in every form they can come back in: the userinfo as
    written, the password decoded, and ``user:password`` in base64 (the HTTP client sends it
    as Basic authorisation, which a server may echo)."""
    parts = urlsplit(url)
    # a key in the query string (?api-key=...) is a secret too (N02)
    values = [unquote(v) for _, sep, v in (p.partition("=") for p in parts.query.split("&")) if sep]
    values = [v for v in values if len(v) >= 8]  # a key, not a flag such as ?stream=true
    if "@" not in parts.netloc:
        return values
    userinfo = parts.netloc.rpartition("@")[0]
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
    return [s for s in (userinfo, parts.password or "", password, basic, *values) if s]


def install() -> None:
    """Route every log record through :func:`redact`, once per process."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: let the handler report it as usual
            return record
        record.msg, record.args = redact(message), None
        if record.exc_info and record.exc_info[0] is not None:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_text = record.exc_text.rstrip("\n")
        return record

    logging.setLogRecordFactory(factory)
