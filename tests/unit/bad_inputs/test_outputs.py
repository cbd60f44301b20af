"""Catalogue rows: an output (``--json``, ``--report``, ``--out``, ``--cache-dir``) never
overwrites an input of the run, for every model kind (review 2026-11-28 N24, N25, N26: G03 came
back for LLMs: ``--json smol.gguf`` replaced the model, ``--report`` the prompt file)."""

from __future__ import annotations

import shutil

import pytest
from cli_inputs import edit_json

from hinter import cli

from .cases import Case, W, assert_one_line_before_any_work

PROMPT = (
    "examples: [{index: 0}, {index: 1}, {index: 2}]\nlabels: [Positive, Negative]\n"
    "max_new_tokens: 7\ntemplates: {default: {system: 'Classify: one of {labels}', "
    "question: 'Positive or Negative?'}}\n"
)


def llm_test(model: str, *extra: str):
    """``hinter test MODEL DATA --out OUT --no-invariant`` for an LLM (``{root}`` expands)."""

    def argv(w: W) -> list[str]:
        base = ["test", model.replace("{root}", str(w.root)), str(w.data), "--out", str(w.out)]
        return base + ["--no-invariant"] + [a.replace("{root}", str(w.root)) for a in extra]

    return argv


OPENAI = ("--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "H3_KEY")


def _gguf(w: W) -> None:
    (w.root / "smol.gguf").write_bytes(b"GGUF" + bytes(60))


def _gguf_in_a_run(w: W) -> None:
    """An earlier run's folder (its lock file) that holds the GGUF model."""
    (w.root / "run").mkdir()
    (w.root / "run" / "smol.gguf").write_bytes(b"GGUF" + bytes(60))
    (w.root / "run" / cli.LOCK).write_text("")


def _prompt_and_tokenizer(w: W) -> None:
    (w.root / "mine.yaml").write_text(PROMPT, encoding="utf-8")
    shutil.copytree(w.model, w.root / "tok2")


def _chat_folder(w: W) -> None:
    shutil.copytree(w.model, w.root / "chat")
    edit_json(w.root / "chat" / "config.json", architectures=["LlamaForCausalLM"])


CASES = [
    Case(
        "json-over-the-gguf-model",
        1,
        r"--json .*smol\.gguf: is the input file .*smol\.gguf",
        llm_test("{root}/smol.gguf", "--prompt", "imdb", "--json", "{root}/smol.gguf"),
        setup=_gguf,
    ),
    Case(
        "report-over-the-gguf-model",
        1,
        r"--report .*smol\.gguf: is the input file",
        llm_test("{root}/smol.gguf", "--prompt", "imdb", "--report", "{root}/smol.gguf"),
        setup=_gguf,
    ),
    Case(
        "out-holds-the-gguf-model",
        1,
        r"--out .*run: holds the input .*smol\.gguf",
        lambda w: [
            "test",
            str(w.root / "run" / "smol.gguf"),
            str(w.data),
            "--out",
            str(w.root / "run"),
            "--no-invariant",
            "--prompt",
            "imdb",
        ],
        setup=_gguf_in_a_run,
    ),
    Case(
        "json-into-the-tokenizer-folder",
        1,
        r"--json .*tokenizer\.json: inside the tokenizer folder",
        llm_test(
            "openai:gpt-h3",
            "--prompt",
            "{root}/mine.yaml",
            "--tokenizer",
            "{root}/tok2",
            *OPENAI,
            "--json",
            "{root}/tok2/tokenizer.json",
        ),
        setup=_prompt_and_tokenizer,
    ),
    Case(
        "report-over-the-prompt-file",
        1,
        r"--report .*mine\.yaml: is the input file .*mine\.yaml",
        llm_test(
            "openai:gpt-h3",
            "--prompt",
            "{root}/mine.yaml",
            "--tokenizer",
            "{root}/tok2",
            *OPENAI,
            "--report",
            "{root}/mine.yaml",
        ),
        setup=_prompt_and_tokenizer,
    ),
    Case(
        "json-over-the-chat-models-config",
        1,
        r"--json .*config\.json: inside the model folder .*chat",
        llm_test("{root}/chat", "--prompt", "imdb", "--json", "{root}/chat/config.json"),
        setup=_chat_folder,
    ),
    Case(
        "report-over-the-chat-models-tokenizer",
        1,
        r"--report .*tokenizer\.json: inside the model folder",
        llm_test("{root}/chat", "--prompt", "imdb", "--report", "{root}/chat/tokenizer.json"),
        setup=_chat_folder,
    ),
    Case(
        "out-inside-the-chat-model-folder",
        1,
        r"--out .*chat/results: inside the model folder",
        lambda w: [
            "test",
            str(w.root / "chat"),
            str(w.data),
            "--out",
            str(w.root / "chat" / "results"),
            "--no-invariant",
            "--prompt",
            "imdb",
        ],
        setup=_chat_folder,
    ),
    Case(
        "cache-dir-inside-the-tokenizer-folder",
        1,
        r"--cache-dir .*tok2/cache: inside the tokenizer folder",
        llm_test(
            "openai:gpt-h3",
            "--prompt",
            "{root}/mine.yaml",
            "--tokenizer",
            "{root}/tok2",
            *OPENAI,
            "--cache-dir",
            "{root}/tok2/cache",
        ),
        setup=_prompt_and_tokenizer,
    ),
    Case(
        "json-and-report-the-same-file",
        1,
        r"--json .*same\.html: is also the --report file",
        lambda w: [
            "test",
            str(w.model),
            str(w.data),
            "--out",
            str(w.out),
            "--no-invariant",
            "--json",
            str(w.root / "same.html"),
            "--report",
            str(w.root / "same.html"),
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_an_output_over_an_input_is_one_line_before_any_work(
    case: Case, workspace: W, tiny_model, capsys, monkeypatch
):
    monkeypatch.setenv("H3_KEY", "sk-h3-SECRET")
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
