"""Catalogue rows: the paths of a run (model, input, output, cache, parser pipeline)."""

from __future__ import annotations

import pytest

from hinter import cli

from .cases import Case, W, assert_one_line_before_any_work, data, hinter_test, model, readonly


def _other_run_holds_lock(w: W) -> None:
    import fcntl

    w.out.mkdir()
    handle = open(w.out / cli.LOCK, "a+")  # noqa: SIM115 - released in teardown
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    w.extra["lock"] = handle


def _not_empty_out(w: W) -> None:
    w.out.mkdir()
    (w.out / "thesis.tex").write_text("mine")


def _pipeline_without_parser(w: W) -> None:
    import spacy

    spacy.blank("en").to_disk(w.root / "blank-pipeline")


CASES = [
    Case(
        "model-missing",
        1,
        r"model folder .*nowhere: not found",
        lambda w: ["test", str(w.root / "nowhere"), str(w.data), "--out", str(w.out)],
    ),
    Case(
        "model-is-a-file",
        1,
        r"model folder .*texts\.csv: is a file",
        lambda w: ["test", str(w.data), str(w.data), "--out", str(w.out)],
    ),
    Case(
        "data-missing",
        1,
        r"missing\.csv: file not found",
        lambda w: ["test", str(w.model), str(w.root / "missing.csv"), "--out", str(w.out)],
    ),
    Case(
        "data-is-a-folder",
        1,
        r"texts\.csv: is a folder",
        hinter_test(),
        setup=lambda w: (w.data.unlink(), w.data.mkdir()),
    ),
    Case(
        "data-unknown-format",
        1,
        r"texts\.txt: unknown format '\.txt'",
        hinter_test(),
        setup=data("texts.txt", "text\nhello\n"),
    ),
    Case(
        "data-no-extension",
        1,
        r"texts: unknown format '\(no extension\)'",
        hinter_test(),
        setup=data("texts", "text\nhello\n"),
    ),
    Case(
        "out-is-a-file",
        1,
        r"--out .*: is a file, not a folder",
        hinter_test(),
        setup=lambda w: w.out.write_text("x"),
    ),
    Case(
        "out-under-a-file",
        1,
        r"--out .*/sub: .*blocker is a file",
        lambda w: ["test", str(w.model), str(w.data), "--out", str(w.root / "blocker" / "sub")],
        setup=lambda w: (w.root / "blocker").write_text("x"),
    ),
    Case(
        "out-read-only",
        1,
        r"--out .*: .* is not writable",
        hinter_test(),
        setup=readonly(lambda w: w.out),
        needs="readonly",
    ),
    Case(
        "out-not-empty-not-ours",
        1,
        r"--out .*: the folder is not empty and holds no earlier hinter run",
        hinter_test(),
        setup=_not_empty_out,
    ),
    Case(
        "out-inside-model",
        1,
        r"--out .*: inside the model folder",
        lambda w: ["test", str(w.model), str(w.data), "--out", str(w.model / "results")],
        setup=model(lambda f: None),
    ),
    Case(
        "out-locked-by-another-run",
        1,
        r"--out .*: another hinter run is writing there",
        hinter_test("--no-invariant"),
        setup=_other_run_holds_lock,
    ),
    Case(
        "cache-dir-is-a-file",
        1,
        r"--cache-dir .*: is a file",
        hinter_test("--cache-dir", "{root}/cachefile"),
        setup=lambda w: (w.root / "cachefile").write_text("x"),
    ),
    Case(
        "cache-dir-read-only",
        1,
        r"--cache-dir .*: .* is not writable",
        hinter_test("--cache-dir", "{root}/ro-cache"),
        setup=readonly(lambda w: w.root / "ro-cache"),
        needs="readonly",
    ),
    Case(
        "json-is-a-folder",
        1,
        r"--json .*: is a folder",
        hinter_test("--json", "{root}"),
        setup=None,
    ),
    Case(
        "json-under-a-file",
        1,
        r"--json .*blocker.*is a file",
        hinter_test("--json", "{root}/blocker/summary.json"),
        setup=lambda w: (w.root / "blocker").write_text("x"),
    ),
    Case(
        "dictionary-missing",
        1,
        r"--dictionary .*nowhere: folder not found",
        hinter_test("--dictionary", "{root}/nowhere"),
    ),
    Case(
        "dictionary-empty-folder",
        1,
        r"empty-dict/.*: file not found",
        hinter_test("--dictionary", "{root}/empty-dict"),
        setup=lambda w: (w.root / "empty-dict").mkdir(),
    ),
    Case(
        "parser-not-installed",
        1,
        r"^hinter: --parser: spaCy pipeline 'en_core_web_zz' is not installed",
        hinter_test("--parser", "en_core_web_zz", invariant=True),
    ),
    Case(
        "parser-folder-missing",
        1,
        r"^hinter: --parser: pipeline directory .*nope not found",
        hinter_test("--parser", "{root}/nope", invariant=True),
    ),
    Case(
        "parser-folder-not-a-pipeline",
        1,
        r"^hinter: --parser: cannot load .*not-a-pipeline",
        hinter_test("--parser", "{root}/not-a-pipeline", invariant=True),
        setup=lambda w: (w.root / "not-a-pipeline").mkdir(),
    ),
    Case(
        "parser-without-tagger-and-parser",
        1,
        r"--parser: .*blank-pipeline does not set POS tags",
        hinter_test("--parser", "{root}/blank-pipeline", invariant=True),
        setup=_pipeline_without_parser,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
