"""The OpenAI-compatible backend against a local server speaking the real wire format: greedy
requests with logprobs, bounded retries (429 with Retry-After, 500, timeouts, malformed JSON,
empty choices), a response cache that never repeats a paid request — even after a kill — a dry
estimate before anything is sent, and an API key that is never written anywhere."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
from fake_openai import MALFORMED, FakeOpenAI, answer_for
from llm_models import BUDGETS, write_demo_dataset

from hinter import edits, io, progress, tables
from hinter.errors import ConfigError
from hinter.models import chat_openai
from hinter.models.chat_openai import ApiError, request_key
from hinter.models.llm import LLMPredictor
from hinter.models.stage import run_predict_stage
from hinter.workflow import setup_logging

pytestmark = pytest.mark.contract

KEY_ENV = "HINTER_TEST_OPENAI_KEY"
SECRET = "sk-test-DO-NOT-LEAK-7f3a9c"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def imdb(tmp_path_factory) -> Path:
    # 6 train + 4 test documents: 3 are the few-shot examples, 7 are tested
    return write_demo_dataset(tmp_path_factory.mktemp("imdb"), "imdb", train=6, test=4)


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory, imdb) -> Path:
    """A byte-level BPE tokenizer trained offline on the demo texts: the API model's declared
    tokenizer (tiktoken's encodings cannot be fetched offline)."""
    from hinter.models.tokenizers import train_demo_tokenizer

    texts = io.read_parquet(imdb / "tested.parquet").column("text").to_pylist()
    path = tmp_path_factory.mktemp("tokenizer")
    train_demo_tokenizer("demo-bpe", texts * 3, 4096).save_pretrained(path)
    return path


@pytest.fixture()
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def _spec(server: FakeOpenAI, tokenizer_dir: Path, **extra) -> dict:
    return {
        "backend": "openai",
        "model": "gpt-test-0125",
        "datasets": ["imdb"],
        "context_tokens": 4096,
        "max_new_tokens": dict(BUDGETS),
        "base_url": server.base_url,
        "api_key_env": KEY_ENV,
        "tokenizer": str(tokenizer_dir),
        "timeout": 5.0,  # a whole request (a loaded machine can be slow); 0.5 where timed out
        "max_retries": 3,
        "concurrency": 3,
        "prices": {"input": 0.5, "output": 1.5},
        "max_cost_usd": None,
        **extra,
    }


def _predictor(spec, imdb, cache, variant="default") -> LLMPredictor:
    return LLMPredictor(
        "gpt", spec, dataset="imdb", variant=variant, meta_path=imdb / "meta.json",
        train_path=imdb / "train.parquet", cache_dir=cache, from_hub=False,
    )  # fmt: skip


def _suite(imdb: Path, folder: Path) -> tuple[Path, Path]:
    """A man -> woman style mutant of every tested document (but the examples)."""
    docs = io.read_parquet(imdb / "tested.parquet", tables.TESTED_DOCUMENTS).to_pylist()
    rows = []
    for doc in docs[3:]:
        text = doc["text"]
        start = text.index(" ") + 1
        end = text.index(" ", start)
        es = [edits.Edit(start, end, "woman")]
        rows.append(
            {"mutant_id": edits.mutant_id(doc["doc_id"], es), "doc_id": doc["doc_id"],
             "order": 1, "role": "mutant", "attributes": ["gender"], "pair_ids": ["p"],
             "edits": [e.as_dict() for e in es], "parent_ids": []}
        )  # fmt: skip
    m_path, v_path = folder / "m.parquet", folder / "v.parquet"
    io.write_parquet(pa.Table.from_pylist(rows, schema=tables.MUTANTS), m_path, tables.MUTANTS)
    validity = [
        {"mutant_id": r["mutant_id"], "valid": True, "reason": "ok", "sentence_index": None}
        for r in rows
    ]
    io.write_parquet(pa.Table.from_pylist(validity, schema=tables.VALIDITY), v_path)
    return m_path, v_path


def _texts(imdb: Path, suite) -> dict[str, str]:
    docs = io.read_parquet(imdb / "tested.parquet", tables.TESTED_DOCUMENTS).to_pylist()
    texts = {d["doc_id"]: d["text"] for d in docs}
    for row in io.read_parquet(suite[0], tables.MUTANTS).to_pylist():
        es = edits.normalise(row["edits"], len(texts[row["doc_id"]]))
        texts[row["mutant_id"]] = edits.apply_edits(texts[row["doc_id"]], es)
    return texts


def _run(predictor, imdb, suite, out) -> None:
    m_path, v_path = suite
    run_predict_stage(
        predictor, docs_path=imdb / "tested.parquet", mutants_paths=[m_path],
        validity_paths=[v_path], out_path=out, keep_discarded=True,
    )  # fmt: skip


def test_wire_format_answers_and_confidence(imdb, tokenizer_dir, tmp_path, key):
    suite = _suite(imdb, tmp_path)
    with FakeOpenAI() as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        _run(predictor, imdb, suite, tmp_path / "p.parquet")
    # the answers stage is closed: no heartbeat left to write into whatever runs next
    assert not progress._BEATING
    body = server.requests[0]
    assert body["model"] == "gpt-test-0125" and body["temperature"] == 0 and body["n"] == 1
    assert body["max_tokens"] == 7 and body["logprobs"] is True
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert body["messages"][-1]["content"].startswith("Question: Is the expressed sentiment")
    assert all(h.get("authorization") == f"Bearer {SECRET}" for h in server.headers)
    rows = io.read_parquet(tmp_path / "p.parquet", tables.PREDICTIONS).to_pylist()
    assert len(rows) == len(server.requests) == 7 + 7  # originals (no examples) + mutants
    texts = _texts(imdb, suite)
    for row in rows:
        negative = re.search(r"\bwom[ae]n\b", texts[row["text_id"]], re.I)
        assert row["labels"] == ([0] if negative else [1]), row
        # "Answer" ":" " Negative" at 0.9 each: the answer's tokens, not the final "."
        assert row["confidence"] == pytest.approx(0.9**3, rel=1e-5)
        assert row["answer_status"] == "answer" and row["status"] == "ok"


def test_retries_honour_retry_after_and_recover(imdb, tokenizer_dir, tmp_path, key, monkeypatch):
    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.01)
    faults = iter(["429", "500", "timeout", "malformed", "empty"])

    def behaviour(body):
        return next(faults, None)

    with FakeOpenAI(behaviour, delay=1.5) as server:
        spec = _spec(server, tokenizer_dir, concurrency=1, max_retries=5, timeout=0.5)
        predictor = _predictor(spec, imdb, tmp_path / "cache")
        texts = ["The film was fine."]
        keys, outputs = predictor.engine.resolve(texts)
    assert predictor.parse(outputs[keys[0]]).labels == [1]
    assert len(server.requests) == 6  # five faults, then the answer
    assert predictor.backend.usage.retries == 5
    assert predictor.backend.usage.waits[0] == pytest.approx(0.2)  # Retry-After honoured
    assert all(0 < w <= 0.16 for w in predictor.backend.usage.waits[1:])  # backoff, jittered


def test_retries_are_bounded_and_leave_nothing_half_written(imdb, tokenizer_dir, tmp_path, key):
    with FakeOpenAI(lambda body: "500") as server:
        spec = _spec(server, tokenizer_dir, concurrency=1, max_retries=2)
        predictor = _predictor(spec, imdb, tmp_path / "cache")
        with pytest.raises(ApiError, match="500 after 3 attempts") as info:
            _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
    assert "\n" not in str(info.value)
    assert len(server.requests) == 3
    assert not (tmp_path / "p.parquet").exists()


def test_a_response_that_stays_malformed_is_an_error_row_not_cached(
    imdb, tokenizer_dir, tmp_path, key
):
    suite = _suite(imdb, tmp_path)
    texts = _texts(imdb, suite)
    chosen = sorted(t for t in texts.values() if "woman" in t)[:4]  # a minority of the 14

    def behaviour(body):
        content = body["messages"][-1]["content"]
        return "empty" if any(t in content for t in chosen) else None

    with FakeOpenAI(behaviour) as server:
        spec = _spec(server, tokenizer_dir, max_retries=1)
        _run(_predictor(spec, imdb, tmp_path / "cache"), imdb, suite, tmp_path / "p.parquet")
        rows = io.read_parquet(tmp_path / "p.parquet", tables.PREDICTIONS).to_pylist()
        errors = {r["text_id"] for r in rows if r["status"] == "error"}
        failing = {r["text_id"] for r in rows if texts[r["text_id"]] in chosen}
        assert errors == failing and len(failing) == 4
        for row in rows:
            if row["text_id"] in errors:
                assert row["labels"] == [] and row["answer"] is None
        sent = len(server.requests)
        server.behaviour = lambda body: None  # the server recovers: only the failures are retried
        _run(_predictor(spec, imdb, tmp_path / "cache"), imdb, suite, tmp_path / "p2.parquet")
    assert len(server.requests) - sent == len(failing)
    rows = io.read_parquet(tmp_path / "p2.parquet", tables.PREDICTIONS).to_pylist()
    assert {r["status"] for r in rows} == {"ok"}


def test_most_responses_unusable_fails_the_job(imdb, tokenizer_dir, tmp_path, key):
    """A login page answering every request (L17) is a failed job, not a file of errors."""

    def behaviour(body):
        return "html"

    with FakeOpenAI(behaviour) as server:
        spec = _spec(server, tokenizer_dir, max_retries=1)
        with pytest.raises(ApiError, match=r"7 of 7 responses .* unusable") as info:
            _run(_predictor(spec, imdb, tmp_path / "cache"), imdb, _suite(imdb, tmp_path),
                 tmp_path / "p.parquet")  # fmt: skip
    assert "\n" not in str(info.value) and "not JSON" in str(info.value)
    assert not (tmp_path / "p.parquet").exists()


def test_fatal_status_stops_at_once(imdb, tokenizer_dir, tmp_path, key):
    with FakeOpenAI(lambda body: "401") as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        with pytest.raises(ApiError, match="HTTP 401"):
            _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
    assert len(server.requests) <= 3  # the requests in flight, no retries, no more


def test_missing_key_fails_with_one_line_after_the_estimate(
    imdb, tokenizer_dir, tmp_path, monkeypatch, caplog
):
    monkeypatch.delenv(KEY_ENV, raising=False)
    caplog.set_level(logging.INFO)
    with FakeOpenAI() as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        with pytest.raises(ConfigError) as info:
            _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
    assert str(info.value).startswith(f"environment variable {KEY_ENV} is not set")
    assert "\n" not in str(info.value)
    assert server.requests == []
    estimate = [r.getMessage() for r in caplog.records if "dry estimate" in r.getMessage()]
    assert estimate and "14 requests to send (0 in the response cache)" in estimate[0]


def test_dry_estimate_over_budget_sends_nothing(imdb, tokenizer_dir, tmp_path, key):
    with FakeOpenAI() as server:
        spec = _spec(server, tokenizer_dir, max_cost_usd=1e-6)
        predictor = _predictor(spec, imdb, tmp_path / "cache")
        with pytest.raises(ConfigError, match="exceeds max_cost_usd"):
            _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
    assert server.requests == []


def test_repeated_runs_are_requeried_and_reruns_are_free(imdb, tokenizer_dir, tmp_path, key):
    suite = _suite(imdb, tmp_path)
    with FakeOpenAI() as server:
        spec = _spec(server, tokenizer_dir)
        for variant, expected in (("default", 14), ("default", 0), ("default-run2", 14)):
            before = len(server.requests)
            _run(_predictor(spec, imdb, tmp_path / "cache", variant), imdb, suite,
                 tmp_path / f"{variant}.parquet")  # fmt: skip
            assert len(server.requests) - before == expected, variant
    bodies = {str(b) for b in server.requests}
    assert len(bodies) == 14  # run 2 sent the same requests again: real re-queries
    assert request_key(server.base_url, server.requests[0], 1) != request_key(
        server.base_url, server.requests[0], 2
    )


KILLED_RUN = """
import sys
from pathlib import Path
sys.path.insert(0, {support!r})
from test_openai_contract import _predictor, _run, _spec
from hinter.workflow import setup_logging

class Server:
    base_url = {base_url!r}

setup_logging({log!r})
spec = _spec(Server, Path({tokenizer!r}), concurrency=2)
imdb = Path({imdb!r})
_run(_predictor(spec, imdb, Path({cache!r})), imdb, ({m!r}, {v!r}), Path({out!r}))
"""


def _wait_until_stored(db: Path, rows: int, deadline: float) -> None:
    """Until the response cache holds ``rows`` answers (a fixed sleep is too short on a loaded
    machine: a kill before the client stored an answer would make the rerun pay for it)."""
    import sqlite3

    while time.time() < deadline:
        if db.is_file():
            with contextlib.closing(sqlite3.connect(db, timeout=5)) as con:
                try:
                    if con.execute("SELECT count(*) FROM responses").fetchone()[0] >= rows:
                        return
                except sqlite3.OperationalError:
                    pass  # the table is being created
        time.sleep(0.05)
    raise AssertionError(f"{db}: fewer than {rows} answers stored in time")


def test_a_killed_run_resumes_without_repeating_a_paid_request(imdb, tokenizer_dir, tmp_path, key):
    """Kill -9 a predict job after 5 answers; the rerun sends only what was never answered,
    and no file anywhere holds the API key."""
    m_path, v_path = _suite(imdb, tmp_path)
    cache, out, log = tmp_path / "cache", tmp_path / "p.parquet", tmp_path / "job.log"
    gate = {"open": 5}

    def behaviour(body):
        with server.lock:
            if gate["open"] <= 0:
                return "hang"
            gate["open"] -= 1
        return None

    with FakeOpenAI(behaviour) as server:
        script = KILLED_RUN.format(
            support=str(Path(__file__).parent), base_url=server.base_url,
            tokenizer=str(tokenizer_dir), imdb=str(imdb), cache=str(cache), m=str(m_path),
            v=str(v_path), out=str(out), log=str(log),
        )  # fmt: skip
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        job = subprocess.Popen([sys.executable, "-c", script], env=env)
        deadline = time.time() + 300
        while len(server.answered) < 5 or len(server.requests) < 6:
            assert job.poll() is None, "the job ended before it was killed"
            assert time.time() < deadline
            time.sleep(0.05)
        _wait_until_stored(cache / "api" / "responses.sqlite", 5, deadline)
        job.send_signal(signal.SIGKILL)
        job.wait()
        assert not out.exists()
        first = [str(b) for b in server.answered]
        server.behaviour = lambda body: None
        setup_logging(log)
        _run(_predictor(_spec(server, tokenizer_dir), imdb, cache), imdb, (m_path, v_path), out)
        logging.getLogger().handlers.clear()
    answered = [str(b) for b in server.answered]
    assert len(first) == 5
    assert len(answered) == 14 and len(set(answered)) == 14  # no answered request repeated
    assert len(io.read_parquet(out, tables.PREDICTIONS)) == 14
    # The key reached the server in the Authorization header, and nowhere else.
    for path in [*tmp_path.rglob("*"), *imdb.rglob("*")]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_answer_for_is_a_real_function_of_the_document():
    body = {"messages": [{"role": "user", "content": "Question: q\nText: A woman left."}]}
    assert answer_for(body) == "Answer: Negative."
    body["messages"][0]["content"] = "Question: Was the woman happy?\nText: A man left."
    assert answer_for(body) == "Answer: Positive."


# -- the fault matrix: every malformed shape x (first request / cached row / concurrency > 1) --

TEXTS = ["The film was fine.", "A woman wrote a dull plot.", "The score was lovely."]
URL_SECRET = "pa55-URLSECRET-31"


def _job(build, log_path: Path, capsys) -> tuple[int, list[str]]:
    """Run ``build`` as a workflow job does: (exit code, the ``hinter:`` lines on stderr)."""
    from types import SimpleNamespace

    from hinter import workflow

    code = 0
    try:
        workflow.run(SimpleNamespace(log=[str(log_path)]), build)
    except SystemExit as exc:
        code = exc.code
    finally:
        logging.getLogger().handlers.clear()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, [line for line in err.splitlines() if line.startswith("hinter:")]


def _no_secret_under(*folders: Path) -> None:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert SECRET.encode() not in data, path
                assert URL_SECRET.encode() not in data, path


def _cached_rows(cache: Path) -> list[str]:
    import sqlite3

    path = cache / "api" / "responses.sqlite"
    if not path.exists():
        return []
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT response FROM responses")]


def _all_valid(rows: list[str]) -> bool:
    import json

    for row in rows:
        chat_openai.validate_response(json.loads(row), 7)
    return True


@pytest.mark.parametrize("where", ["first", "cached", "concurrent"])
@pytest.mark.parametrize("shape", MALFORMED)
def test_fault_matrix(shape, where, imdb, tokenizer_dir, tmp_path, key, capsys, monkeypatch):
    """A malformed response is retried, never cached, never a traceback; a bad cached row is
    fetched again; a server that only misbehaves fails the job with one line (exit 1)."""
    import json
    import sqlite3

    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.001)
    cache, log_path = tmp_path / "cache", tmp_path / "job.log"
    seen: dict[str, int] = {}

    def once(body):  # the shape on each request's first attempt, then a healthy answer
        text = body["messages"][-1]["content"]
        seen[text] = seen.get(text, 0) + 1
        return shape if seen[text] == 1 else None

    behaviour = {"first": once, "cached": lambda b: None, "concurrent": lambda b: shape}[where]
    with FakeOpenAI(behaviour) as server:
        url = server.base_url.replace("http://", f"http://user:{URL_SECRET}@")
        spec = _spec(server, tokenizer_dir, base_url=url, max_retries=1,
                     concurrency=3 if where == "concurrent" else 1)  # fmt: skip
        result = {}

        def build():
            predictor = _predictor(spec, imdb, cache)
            keys, outputs = predictor.engine.resolve(TEXTS)
            result["labels"] = [predictor.parse(outputs[k]).labels for k in keys]

        if where == "cached":  # a healthy run, then every stored response damaged to the shape
            assert _job(build, log_path, capsys)[0] == 0
            bad_row = server.completion({"model": "m", "messages": [{"content": TEXTS[0]}],
                                         "logprobs": True, "max_tokens": 7})  # fmt: skip
            import shutil

            shutil.rmtree(cache / "predictions")
            damaged = {"json_list": json.dumps([bad_row]), "malformed": '{"choices": [',
                       "html": "<html>log in</html>"}.get(shape)  # fmt: skip
            if damaged is None:
                damaged = json.dumps(_damage(bad_row, shape), allow_nan=True)
            with sqlite3.connect(cache / "api" / "responses.sqlite") as db:
                db.execute("UPDATE responses SET response = ?", (damaged,))
            before = len(server.requests)
        code, lines = _job(build, log_path, capsys)
        if where == "cached":
            assert len(server.requests) - before == len(TEXTS)  # refetched, not trusted
    if where == "concurrent":  # every response unusable: the job fails with one line
        assert code == 1 and len(lines) == 1 and "unusable after retries" in lines[0]
        assert _cached_rows(cache) == []
    else:
        assert code == 0 and lines == []
        assert result["labels"] == [[1], [0], [1]]
        rows = _cached_rows(cache)
        assert len(rows) == len(TEXTS) and _all_valid(rows)
    _no_secret_under(tmp_path)


def _damage(completion: dict, shape: str) -> dict:
    choice = completion["choices"][0]
    items = choice["logprobs"]["content"]
    if shape == "empty":
        completion["choices"] = []
    for item in items:
        if shape == "logprob_missing":
            del item["logprob"]
        elif shape.startswith("logprob_"):
            item["logprob"] = {"logprob_null": None, "logprob_positive": 3.0}.get(shape, math.nan)
    if shape == "usage_null":
        completion["usage"] = {"prompt_tokens": None, "completion_tokens": None}
    if shape == "huge":
        choice["message"]["content"] = "x" * 100_000
    if shape == "content_null":
        choice["message"]["content"] = None
    return completion


def test_no_secret_in_any_file_of_a_failing_or_a_succeeding_run(
    imdb, tokenizer_dir, tmp_path, key, capsys
):
    """A 401 that echoes the Authorization header (L06) and credentials inside base_url (L20):
    neither the key nor the URL's password reaches the log, stderr, the caches or the results."""
    suite = _suite(imdb, tmp_path)
    faults = {"fault": "echo_auth"}
    with FakeOpenAI(lambda body: faults["fault"]) as server:
        url = server.base_url.replace("http://", f"http://user:{URL_SECRET}@")
        spec = _spec(server, tokenizer_dir, base_url=url)
        out = tmp_path / "p.parquet"

        def build():
            _run(_predictor(spec, imdb, tmp_path / "cache"), imdb, suite, out)

        code, lines = _job(build, tmp_path / "fail.log", capsys)
        assert code == 1 and len(lines) == 1 and "HTTP 401" in lines[0], lines
        # the client sends the URL's credentials as Basic authorisation: masked all the same
        assert re.search(r"Incorrect API key provided: (Bearer|Basic) \*\*\* for", lines[0])
        assert "user:***@" not in lines[0] and "127.0.0.1" in lines[0]
        faults["fault"] = None
        code, lines = _job(build, tmp_path / "ok.log", capsys)
        assert code == 0 and lines == []
    assert all({k.lower() for k in h} >= {"authorization"} for h in server.headers)
    assert "HTTP Request" not in (tmp_path / "ok.log").read_text()  # client URL lines silenced
    meta = io.read_parquet(out).schema.metadata
    assert b"127.0.0.1" in b"".join(meta.values())  # the URL is kept, without its userinfo
    _no_secret_under(tmp_path)


def test_a_non_ascii_key_is_refused_before_any_request(imdb, tokenizer_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET + "\u201d")
    with FakeOpenAI() as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        with pytest.raises(ConfigError, match=f"environment variable {KEY_ENV}: .*U\\+201D"):
            _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
    assert server.requests == []
    assert SECRET not in str(predictor.backend.api_key_env)


def test_timeout_bounds_a_whole_request_and_503_retry_after(
    imdb, tokenizer_dir, tmp_path, key, monkeypatch
):
    """A body dripped 16 bytes every 0.05 s (~3 s in all) is abandoned at the 0.5 s timeout and
    retried (L15); a 503's Retry-After is honoured (L26)."""
    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.01)
    faults = iter(["drip", "503"])
    with FakeOpenAI(lambda body: next(faults, None)) as server:
        spec = _spec(server, tokenizer_dir, concurrency=1, max_retries=3, timeout=0.5)
        predictor = _predictor(spec, imdb, tmp_path / "cache")
        start = time.monotonic()
        keys, outputs = predictor.engine.resolve(["The film was fine."])
        took = time.monotonic() - start
    assert predictor.parse(outputs[keys[0]]).labels == [1]
    assert len(server.requests) == 3 and predictor.backend.usage.retries == 2
    assert predictor.backend.usage.waits[1] == pytest.approx(0.3)  # 503's Retry-After
    assert took < 2.0, took


def test_responses_without_logprobs_are_kept_with_a_warning(
    imdb, tokenizer_dir, tmp_path, key, caplog
):
    """L10: answers without log-probabilities are answers; their missing confidence is said."""
    caplog.set_level(logging.WARNING)
    with FakeOpenAI(lambda body: "no_logprobs") as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        keys, outputs = predictor.engine.resolve(TEXTS)
    parsed = [predictor.parse(outputs[k]) for k in keys]
    assert [p.labels for p in parsed] == [[1], [0], [1]]
    assert all(p.confidence is None for p in parsed)
    warnings = [r.getMessage() for r in caplog.records if "log-probabilities" in r.getMessage()]
    assert len(warnings) == 1 and "3 of 3 responses" in warnings[0]


def test_concurrent_failures_report_the_cause_not_a_stopped_request(
    imdb, tokenizer_dir, tmp_path, key, monkeypatch
):
    """L03: with requests in flight, the error shown is the server's (500 after N attempts),
    never 'stopped after another request failed'."""
    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.001)
    with FakeOpenAI(lambda body: "500") as server:
        spec = _spec(server, tokenizer_dir, concurrency=4, max_retries=1)
        for _ in range(2):  # the winner used to depend on the threads' timing
            predictor = _predictor(spec, imdb, tmp_path / "cache")
            with pytest.raises(ApiError) as info:
                _run(predictor, imdb, _suite(imdb, tmp_path), tmp_path / "p.parquet")
            assert "500 after 2 attempts" in str(info.value), str(info.value)


def test_connection_refused_names_the_cause(imdb, tokenizer_dir, tmp_path, key, monkeypatch):
    """L02: nobody listening is retried, then one line that says so (not 'stopped after another
    request failed')."""
    import socket

    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.001)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class Closed:
        base_url = f"http://127.0.0.1:{port}/v1"

    spec = _spec(Closed, tokenizer_dir, concurrency=2, max_retries=1)
    with pytest.raises(ApiError) as info:
        _run(_predictor(spec, imdb, tmp_path / "cache"), imdb, _suite(imdb, tmp_path),
             tmp_path / "p.parquet")  # fmt: skip
    message = str(info.value)
    assert "Connect" in message and "after 2 attempts" in message and "\n" not in message


@pytest.mark.parametrize(
    ("failed", "total", "fails"),
    [(0, 8, False), (5, 8, False), (8, 8, True), (1, 1, True), (8, 16, False), (9, 16, True),
     (9, 40, False), (21, 40, True)],
)  # fmt: skip
def test_a_job_fails_when_most_of_its_requests_stay_unusable(failed, total, fails):
    """Judged as batches come: every request so far, or over half once 16 were answered."""
    from types import SimpleNamespace

    job = SimpleNamespace(public_url="http://x/v1", model="m", first_failure="malformed (x)")
    if fails:
        with pytest.raises(ApiError, match=f"{failed} of {total} responses"):
            chat_openai.OpenAIChat.check_failures(job, failed, total)
    else:
        chat_openai.OpenAIChat.check_failures(job, failed, total)


# -- review 2026-11-28: no hang a server can cause, a cap no value switches off, no secret on disk


def test_a_header_drip_is_abandoned_at_the_deadline(
    imdb, tokenizer_dir, tmp_path, key, monkeypatch
):
    """N11: headers dripped a byte every 0.1 s (a per-read timeout never fires) are abandoned at
    the 0.5 s deadline of the whole request and retried; the job ends with one line long before
    the drip (10 s) would have."""
    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.01)
    with FakeOpenAI(lambda body: "drip_headers", drip_every=0.1) as server:
        spec = _spec(server, tokenizer_dir, concurrency=1, max_retries=1, timeout=0.5)
        predictor = _predictor(spec, imdb, tmp_path / "cache")
        start = time.monotonic()
        with pytest.raises(ApiError, match=r"timeout \(_Deadline\) after 2 attempts") as info:
            predictor.engine.resolve(["The film was fine."])
        took = time.monotonic() - start
    assert "\n" not in str(info.value)
    assert len(server.requests) == 2 and took < 3.0, took


def test_every_billed_response_counts_and_the_reported_spend_is_capped(
    imdb, tokenizer_dir, tmp_path, key, monkeypatch
):
    """N10: a malformed 200 then a good one is two billed responses: both in ``sent`` and in
    ``sent_cost_usd``. N09: a server reporting 100,000 prompt tokens per answer passes the dry
    estimate, then stops the job once the reported spend passes ``max_cost_usd``."""
    from fake_openai import first_attempt

    monkeypatch.setattr(chat_openai, "BACKOFF_BASE", 0.001)
    with FakeOpenAI(first_attempt("logprob_positive")) as server:
        predictor = _predictor(_spec(server, tokenizer_dir, concurrency=1), imdb, tmp_path / "c")
        keys, outputs = predictor.engine.resolve(TEXTS)
        assert [predictor.parse(outputs[k]).labels for k in keys] == [[1], [0], [1]]
    usage, summary = predictor.backend.usage, predictor.backend.summary()
    reported = [server.completion(b)["usage"] for b in server.requests]
    assert len(server.requests) == 6 and summary["sent"] == 6 and summary["retries"] == 3
    assert usage.sent_prompt_tokens == sum(u["prompt_tokens"] for u in reported)
    assert summary["sent_cost_usd"] > summary["cost_usd"] > 0  # the retries were paid for
    with FakeOpenAI(lambda body: "usage_big") as server:
        spec = _spec(server, tokenizer_dir, concurrency=1, max_cost_usd=0.01)
        predictor = _predictor(spec, imdb, tmp_path / "c2")
        with pytest.raises(ApiError, match=r"report \$0\.0500, over max_cost_usd 0\.01"):
            predictor.engine.resolve(TEXTS)
    assert len(server.requests) == 1  # the estimate passed; the first reported spend stops it


def test_a_key_echoed_in_a_200_answer_reaches_no_file(imdb, tokenizer_dir, tmp_path, key):
    """N03: the answer text quotes the Authorization header; the response cache, the prediction
    cache and the predictions' ``answer`` column hold ``***`` instead, and the answer is still
    read (Positive, at the confidence of its own tokens)."""
    suite = _suite(imdb, tmp_path)
    with FakeOpenAI(lambda body: "echo_auth_200") as server:
        predictor = _predictor(_spec(server, tokenizer_dir), imdb, tmp_path / "cache")
        _run(predictor, imdb, suite, tmp_path / "p.parquet")
    rows = io.read_parquet(tmp_path / "p.parquet", tables.PREDICTIONS).to_pylist()
    assert {r["answer"] for r in rows} == {"Answer: Positive. Bearer ***"}
    assert all(r["labels"] == [1] for r in rows)
    assert all(r["confidence"] == pytest.approx(0.9**3, rel=1e-5) for r in rows)
    assert _cached_rows(tmp_path / "cache") and _all_valid(_cached_rows(tmp_path / "cache"))
    _no_secret_under(tmp_path)


def test_scrub_merges_the_tokens_of_a_secret():
    """The tokens that spell a registered secret become one ``***`` token whose log-probability
    is theirs summed; the text and every other token are kept."""
    from hinter import redact

    redact.register("sk-scrub-XYZ-123")
    pieces = ["Answer", ":", " Pos", " sk", "-scrub", "-XYZ", "-123", " ok"]
    response = {
        "choices": [{"message": {"content": "".join(pieces)}, "logprobs": {"content": [
            {"token": t, "logprob": -0.1 * (i + 1), "bytes": list(t.encode())}
            for i, t in enumerate(pieces)]}}],
    }  # fmt: skip
    clean = chat_openai.scrub(response)
    choice = clean["choices"][0]
    assert choice["message"]["content"] == "Answer: Pos *** ok"
    tokens = choice["logprobs"]["content"]
    assert [t["token"] for t in tokens] == ["Answer", ":", " Pos", " ***", " ok"]
    assert tokens[3]["logprob"] == pytest.approx(-0.1 * (4 + 5 + 6 + 7))
    assert chat_openai.scrub({"a": ["no secret"]}) == {"a": ["no secret"]}


INTERRUPTED_JOB = """
import signal, sys, time
from types import SimpleNamespace
from hinter.cli.main import _stop  # the command line's own SIGINT/SIGTERM handler
from hinter.models import chat_openai

chat_openai.load_doc_tokenizer = lambda source, key: SimpleNamespace(name="words", count=len)
signal.signal(signal.SIGINT, _stop)
backend = chat_openai.OpenAIChat(
    {{"model": "gpt-test", "base_url": {base_url!r}, "api_key_env": {key_env!r}, "timeout": 60,
     "max_retries": 2, "concurrency": 3, "tokenizer": "words"}},
    model_name="gpt", run=1, cache_dir={cache!r}, key="models.llms.gpt",
)
prompt = SimpleNamespace(messages=lambda text: [{{"role": "user", "content": "Text: " + text}}])
texts = ["A film %d." % i for i in range(8)]
try:
    backend.generate(SimpleNamespace(max_new_tokens=7), [None] * 8, texts, prompt)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr, flush=True)
    sys.exit(130)
"""


def test_ctrl_c_stops_a_job_waiting_on_a_server_at_once(tmp_path):
    """I01, I02: two requests answered, then every request hangs or drips its headers (a 60 s
    timeout). One SIGINT, through the command line's own handler, ends the job at once — it
    used to wait for the requests in flight, or for ever — and the two answers are cached for
    the rerun. A bare job (no model, no torch) keeps the subprocess to a second or two."""
    import sqlite3

    state = {"n": 0}

    def behaviour(body):
        with server.lock:
            state["n"] += 1
            n = state["n"]
        return None if n <= 2 else ("hang" if n % 2 else "drip_headers")

    cache = tmp_path / "cache"
    with FakeOpenAI(behaviour, drip_every=0.5, drip_for=120) as server:
        script = INTERRUPTED_JOB.format(base_url=server.base_url, key_env=KEY_ENV, cache=str(cache))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), KEY_ENV: SECRET}
        job = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)
        deadline = time.time() + 120
        while len(server.answered) < 2 or len(server.requests) < 5:
            assert job.poll() is None, job.stderr.read()
            assert time.time() < deadline
            time.sleep(0.05)
        _wait_until_stored(cache / "api" / "responses.sqlite", 2, deadline)
        time.sleep(0.3)  # three requests in flight, waiting
        job.send_signal(signal.SIGINT)
        sent = time.monotonic()
        line = job.stderr.readline().decode()  # written line by line (flush)
        said = time.monotonic() - sent
        job.wait(timeout=30)
    assert line == "interrupted\n" and job.returncode == 130, (line, job.stderr.read())
    assert said < 1.0, said
    with contextlib.closing(sqlite3.connect(cache / "api" / "responses.sqlite")) as db:
        assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == 2


def test_an_answer_from_another_origin_is_never_used(imdb, tokenizer_dir, tmp_path, key):
    """N12, N13: the client follows redirects; an answer that came from another origin than
    ``base_url`` ends the job with one line naming it, and nothing is cached."""
    with FakeOpenAI() as other, FakeOpenAI(lambda body: "redirect") as server:
        server.redirect_to = other.base_url
        predictor = _predictor(_spec(server, tokenizer_dir, concurrency=1), imdb, tmp_path / "c")
        with pytest.raises(ApiError, match=r"redirected the request to http://127\.0\.0\.1:\d+ "
                           r"\(POST\); set base_url to the final address") as info:  # fmt: skip
            predictor.engine.resolve(TEXTS)
    assert "\n" not in str(info.value) and len(server.requests) == 1
    assert all("authorization" not in {k.lower() for k in h} for h in other.headers)
    assert _cached_rows(tmp_path / "c") == []
