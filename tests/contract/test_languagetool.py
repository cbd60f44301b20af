"""The LanguageTool checker against a loopback server speaking LanguageTool's HTTP API.

The server (a thread in the test process, on a random port) answers what the real client
(`language-tool-python`) calls: ``GET /v2/languages`` at start-up and ``POST /v2/check`` with
form fields ``language`` and ``text``, returning LanguageTool's JSON (``software``,
``language``, ``matches`` with ``rule.id``, ``rule.category.id``, ``rule.issueType``, offsets
and context). A few real LanguageTool rules are imitated by regular expressions: the checker's
parsing, category mapping, version, score and cache are what is under test.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hinter.errors import ConfigError
from hinter.grammar import COUNTED, count_words, make_checker, score
from hinter.grammar.cache import ScoreCache
from hinter.grammar.stage import check_texts

VERSION = "6.8"
# (pattern, rule id, category id, issue type), ids and categories as LanguageTool 6 reports
# them; the whole match is flagged, or its group 'hit'
RULES = [
    (r"\b[Ss]he were\b", "PERS_PRONOUN_AGREEMENT", "GRAMMAR", "grammar"),
    (r"\b[Aa] (?=[AEIOUaeiou])", "EN_A_VS_AN", "MISC", "misspelling"),
    (r"(?i)\b(the|a|an) \1\b", "ENGLISH_WORD_REPEAT_RULE", "MISC", "duplication"),
    (r"\bteh\b", "MORFOLOGIK_RULE_EN_US", "TYPOS", "misspelling"),
    (r" ,", "COMMA_PARENTHESIS_WHITESPACE", "TYPOGRAPHY", "whitespace"),
    (r"(?:^|\. )(?P<hit>[a-z])", "UPPERCASE_SENTENCE_START", "CASING", "typographical"),
    (r"\bvery very\b", "NEW_RULE_OF_A_NEW_CATEGORY", "BRAND_NEW", "grammar"),
]
LANGUAGES = [
    {"name": "English", "code": "en", "longCode": "en"},
    {"name": "English (US)", "code": "en", "longCode": "en-US"},
    {"name": "German", "code": "de", "longCode": "de-DE"},
]


def check_response(text: str, language: str) -> dict:
    matches = []
    for pattern, rule, category, issue in RULES:
        for m in re.finditer(pattern, text):
            start, end = m.span("hit") if "hit" in m.groupdict() else m.span()
            matches.append(
                {
                    "message": f"{rule} matched",
                    "shortMessage": "",
                    "replacements": [{"value": "x"}],
                    "offset": start,
                    "length": end - start,
                    "context": {"text": text, "offset": start, "length": end - start},
                    "sentence": text,
                    "type": {"typeName": "Other"},
                    "rule": {
                        "id": rule,
                        "description": rule,
                        "issueType": issue,
                        "category": {"id": category, "name": category.title()},
                    },
                    "ignoreForIncompleteSentence": False,
                    "contextForSureMatch": 0,
                }
            )
    matches.sort(key=lambda m: m["offset"])
    return {
        "software": {
            "name": "LanguageTool",
            "version": VERSION,
            "buildDate": "2025-01-01 00:00:00 +0000",
            "apiVersion": 1,
            "premium": False,
            "status": "",
        },
        "warnings": {"incompleteResults": False},
        "language": {"name": "English (US)", "code": language, "detectedLanguage": {}},
        "matches": matches,
    }


class LanguageToolHandler(BaseHTTPRequestHandler):
    requests: list  # (method, path, form) of every request, set per server

    def _send(self, status: int, body) -> None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        self.requests.append(("GET", path, {}))
        if path == "/v2/languages":
            self._send(200, LANGUAGES)
        else:
            self._send(404, b"not found")

    def do_POST(self):
        path = urllib.parse.urlparse(self.path).path
        length = int(self.headers.get("Content-Length", 0))
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode("utf-8")))
        self.requests.append(("POST", path, form))
        if path != "/v2/check":
            self._send(404, b"not found")
        elif "text" not in form or "language" not in form:
            self._send(400, b"Error: Missing 'text' or 'data' parameter")
        else:
            self._send(200, check_response(form["text"], form["language"]))

    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture()
def server():
    handler = type("Handler", (LanguageToolHandler,), {"requests": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler.requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture()
def checker(server):
    url, _ = server
    c = make_checker("languagetool", {"remote_server": url})
    yield c
    c.close()


def test_start_up_asks_for_languages_and_the_server_version(server, checker):
    _, requests = server
    assert ("GET", "/v2/languages", {}) in requests
    assert checker.identity == "languagetool/en-US"
    assert checker.version == VERSION


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She were happy with the result.", [("PERS_PRONOUN_AGREEMENT", "grammar")]),
        ("A Andorran man walked in.", [("EN_A_VS_AN", "grammar")]),
        ("The the applicant complained.", [("ENGLISH_WORD_REPEAT_RULE", "grammar")]),
        ("Then teh court sat.", [("MORFOLOGIK_RULE_EN_US", "spelling")]),
        ("Hello , world.", [("COMMA_PARENTHESIS_WHITESPACE", "typography")]),
        ("it rained.", [("UPPERCASE_SENTENCE_START", "casing")]),
        ("It was very very late.", [("NEW_RULE_OF_A_NEW_CATEGORY", "grammar")]),  # issue type
        ("The court held that the applicant was right.", []),
    ],
)
def test_matches_map_to_the_shared_categories(server, checker, text, expected):
    _, requests = server
    issues = checker.check(text)
    assert [(i.rule, i.category) for i in issues] == expected
    method, path, form = requests[-1]
    assert (method, path) == ("POST", "/v2/check")
    assert form["text"] == text and form["language"] == "en-US"


def test_score_and_cache_with_languagetool(tmp_path, server, checker):
    _, requests = server
    texts = ["She were at a hearing.", "Teh judge sat.", "She were at a hearing."]
    with ScoreCache(tmp_path / "grammar.sqlite", checker.identity, checker.version) as cache:
        counts = check_texts(texts, checker, cache)
    checks = [r for r in requests if r[1] == "/v2/check"]
    assert len(checks) == 1 + 2  # the version probe, then two distinct texts
    issues = sum(counts[texts[0]][c] for c in COUNTED)
    assert score(issues, count_words(texts[0])) == pytest.approx(100 * (1 - 1 / 5))
    assert sum(counts[texts[1]][c] for c in COUNTED) == 0  # spelling does not count
    with ScoreCache(tmp_path / "grammar.sqlite", checker.identity, checker.version) as cache:
        check_texts(texts, checker, cache)
    assert len([r for r in requests if r[1] == "/v2/check"]) == 3  # all cached


def test_unreachable_server_is_a_one_line_config_error():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConfigError, match=r"^grammar.languagetool.remote_server: cannot use") as e:
        make_checker("languagetool", {"remote_server": f"http://127.0.0.1:{port}"})
    assert "\n" not in str(e.value)


def test_unknown_language_is_a_config_error(server):
    url, _ = server
    with pytest.raises(ConfigError, match=r"grammar\.languagetool\.language"):
        make_checker("languagetool", {"remote_server": url, "language": "xx-YY"})
