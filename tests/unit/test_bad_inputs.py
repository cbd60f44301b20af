"""The catalogue of bad inputs and faults (docs/design.md §10 made executable, issue 15).

One row per bad input or fault of ``hinter test``, ``hinter mutate`` and the workflow's start-up
checks (through ``hinter check-config``, which runs the Snakefile's checks). Every row asserts:
the exit code; exactly one line on stderr, starting ``hinter``, naming the flag, key, file or
row (the row's pattern); no traceback; nothing on stdout; and that the working folder — input
files, model folder, output folder — holds exactly what it held before (nothing new, nothing
half-written). Rows run in-process and fail before any work, most in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_inputs import (
    TEXTS,
    copy_model,
    edit_json,
    evil_module,
    files_under,
    make_classifier,
    real_parser,
    write_csv,
)

from hinter import cli, io
from hinter.layout import RunLayout

REPO = Path(__file__).resolve().parents[2]
PARSER = real_parser()


@dataclass
class W:
    """A test's working folder: the model, the input file, the output folder."""

    root: Path
    model: Path
    data: Path
    out: Path
    marker: Path
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    id: str
    code: int
    match: str  # a regex the single stderr line must match
    argv: Callable[[W], list[str]]
    setup: Callable[[W], None] | None = None
    needs: str | None = None  # "parser", "readonly": skipped when the machine cannot


def hinter_test(*extra: str, invariant: bool = False) -> Callable[[W], list[str]]:
    """``hinter test MODEL DATA --out OUT`` plus ``extra`` (``{root}`` expands)."""

    def argv(w: W) -> list[str]:
        base = ["test", str(w.model), str(w.data), "--out", str(w.out)]
        if not invariant:
            base.append("--no-invariant")
        return base + [a.replace("{root}", str(w.root)) for a in extra]

    return argv


def data(name: str, content: str | bytes) -> Callable[[W], None]:
    """Replace the input file by ``name`` holding ``content``."""

    def setup(w: W) -> None:
        w.data = w.root / name
        if isinstance(content, bytes):
            w.data.write_bytes(content)
        else:
            w.data.write_text(content, encoding="utf-8")

    return setup


def parquet(table: pa.Table) -> Callable[[W], None]:
    def setup(w: W) -> None:
        w.data = w.root / "texts.parquet"
        pq.write_table(table, w.data)

    return setup


def model(change: Callable[[Path], None]) -> Callable[[W], None]:
    """A copy of the tiny model, broken by ``change``."""

    def setup(w: W) -> None:
        w.model = copy_model(w.model, w.root / "model-copy")
        change(w.model)

    return setup


def both(*setups: Callable[[W], None]) -> Callable[[W], None]:
    def setup(w: W) -> None:
        for s in setups:
            s(w)

    return setup


def _auto_map(file: str, model_type: str | None = None) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        evil_module(folder, folder.parent / "MARKER")
        auto = {
            "AutoConfig": "evil.EvilConfig",
            "AutoModelForSequenceClassification": "evil.EvilModel",
        }
        if file == "tokenizer_config.json":
            auto = {"AutoTokenizer": ["evil.EvilTokenizer", None]}
        edit_json(folder / file, auto_map=auto)
        if model_type:
            edit_json(folder / "config.json", model_type=model_type)

    return change


def _truncate(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])


def _drop_head(folder: Path) -> None:
    from safetensors.numpy import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    save_file(
        {k: v for k, v in tensors.items() if not k.startswith("classifier")},
        folder / "model.safetensors",
    )


def _wrong_head(folder: Path) -> None:
    import numpy as np
    from safetensors.numpy import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    tensors["classifier.weight"] = np.zeros((3, tensors["classifier.weight"].shape[1]), "float32")
    tensors["classifier.bias"] = np.zeros(3, "float32")
    save_file(tensors, folder / "model.safetensors")


def _sharded_missing(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"classifier.weight": "model-00001-of-00002.safetensors"}})
    )


def _numeric_names(folder: Path) -> None:
    edit_json(folder / "hinter.json", label_names=["1", "2"])


def _readonly(path_of: Callable[[W], Path]) -> Callable[[W], None]:
    def setup(w: W) -> None:
        path = path_of(w)
        path.mkdir(parents=True, exist_ok=True)
        make_read_only(path)
        w.extra.setdefault("read_only", []).append(path)

    return setup


def make_read_only(path: Path) -> None:
    """A folder nobody may write in: chmod for a normal user; immutable (chattr) for root."""
    import os

    if os.geteuid() != 0:
        path.chmod(0o555)
        return
    proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("cannot make a folder read-only for root here (no chattr)")


def undo_read_only(path: Path) -> None:
    import os

    if os.geteuid() != 0:
        path.chmod(0o755)
    else:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)


def _other_run_holds_lock(w: W) -> None:
    import fcntl

    w.out.mkdir()
    handle = open(w.out / cli.LOCK, "a+")  # noqa: SIM115 - released in teardown
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    w.extra["lock"] = handle


def _not_empty_out(w: W) -> None:
    w.out.mkdir()
    (w.out / "thesis.tex").write_text("mine")


def _config(text: str) -> Callable[[W], None]:
    def setup(w: W) -> None:
        (w.root / "override.yaml").write_text(text.replace("{root}", str(w.root)), encoding="utf-8")

    return setup


def check_config(*files: str) -> Callable[[W], list[str]]:
    """``hinter check-config`` on the demo config merged with ``override.yaml``."""

    def argv(w: W) -> list[str]:
        names = [str(REPO / "config" / "demo.yaml"), str(w.root / "override.yaml")]
        return ["check-config", *(f.replace("{root}", str(w.root)) for f in files or names)]

    return argv


def _pipeline_without_parser(w: W) -> None:
    import spacy

    spacy.blank("en").to_disk(w.root / "blank-pipeline")


def _finetuned_with_auto_map(w: W) -> None:
    folder = copy_model(w.model, w.root / "custom")
    _auto_map("config.json")(folder)


MULTI = "text,label\n"
CSV4 = "".join(f'"{t}",negative\n' for t in TEXTS[:4])

CASES = [
    # ---------------------------------------------------------------- arguments of hinter test
    Case("batch-size-0", 1, r"--batch-size: .*≥ 1, got 0", hinter_test("--batch-size", "0")),
    Case(
        "batch-size-negative", 1, r"--batch-size: .*≥ 1, got -3", hinter_test("--batch-size", "-3")
    ),
    Case(
        "batch-size-text",
        1,
        r"--batch-size: expected an integer, got 'x'",
        hinter_test("--batch-size", "x"),
    ),
    Case(
        "max-documents-0", 1, r"--max-documents: .*≥ 1, got 0", hinter_test("--max-documents", "0")
    ),
    Case(
        "max-documents-negative",
        1,
        r"--max-documents: .*got -1",
        hinter_test("--max-documents", "-1"),
    ),
    Case(
        "max-mutants-0",
        1,
        r"--max-mutants-per-document: .*got 0",
        hinter_test("--max-mutants-per-document", "0"),
    ),
    Case(
        "max-mutants-negative",
        1,
        r"--max-mutants-per-document: .*got -1",
        hinter_test("--max-mutants-per-document", "-1"),
    ),
    Case("examples-negative", 1, r"--examples: .*≥ 0, got -1", hinter_test("--examples", "-1")),
    Case(
        "max-sentence-chars-negative",
        1,
        r"--max-sentence-chars: .*got -5",
        hinter_test("--max-sentence-chars", "-5"),
    ),
    Case(
        "max-sentence-chars-0",
        1,
        r"--max-sentence-chars: .*got 0",
        hinter_test("--max-sentence-chars", "0"),
    ),
    Case(
        "threshold-2",
        1,
        r"--threshold: expected a number in 0\.\.1, got 2",
        hinter_test("--threshold", "2"),
    ),
    Case("threshold-negative", 1, r"--threshold: .*0\.\.1", hinter_test("--threshold", "-0.1")),
    Case("threshold-text", 1, r"--threshold: .*got 'abc'", hinter_test("--threshold", "abc")),
    Case("orders-letter", 1, r"--orders: 'a' is not an order", hinter_test("--orders", "a")),
    Case(
        "orders-beyond-attributes",
        1,
        r"--orders: order 4 needs 4 attributes, but --attributes has 3",
        hinter_test("--orders", "1,4"),
    ),
    Case("orders-mixed", 1, r"--orders: 'x' is not an order", hinter_test("--orders", "1,x")),
    Case("orders-empty", 1, r"--orders: expected orders like 1,2", hinter_test("--orders", "")),
    Case("orders-zero", 1, r"--orders: '0' is not an order", hinter_test("--orders", "0")),
    Case("orders-repeated", 1, r"--orders: an order is repeated", hinter_test("--orders", "1,1")),
    Case(
        "orders-3-of-2-attributes",
        1,
        r"--orders: order 3 needs 3 attributes",
        hinter_test("--orders", "3", "--attributes", "race,gender"),
    ),
    Case(
        "attributes-unknown",
        1,
        r"--attributes: unknown attribute\(s\) 'religion'",
        hinter_test("--attributes", "religion"),
    ),
    Case(
        "attributes-empty", 1, r"--attributes: expected attributes", hinter_test("--attributes", "")
    ),
    Case(
        "attributes-repeated",
        1,
        r"--attributes: an attribute is repeated",
        hinter_test("--attributes", "race,race"),
    ),
    Case(
        "attributes-trailing-comma",
        1,
        r"--attributes: expected attributes",
        hinter_test("--attributes", "race,"),
    ),
    Case("seed-negative", 1, r"--seed: .*got -1", hinter_test("--seed", "-1")),
    Case(
        "task-type-unknown",
        1,
        r"--task-type: invalid choice: 'both'",
        hinter_test("--task-type", "both"),
    ),
    Case(
        "pairing-unknown", 1, r"--pairing: invalid choice: 'full'", hinter_test("--pairing", "full")
    ),
    Case(
        "label-format-unknown",
        1,
        r"--label-format: invalid choice",
        hinter_test("--label-format", "guess"),
    ),
    Case(
        "fail-above-no-value",
        1,
        r"--fail-above: expected RATE=PERCENT",
        hinter_test("--fail-above", "hidden"),
    ),
    Case(
        "fail-above-not-number",
        1,
        r"--fail-above: hidden: 'abc' is not a percentage",
        hinter_test("--fail-above", "hidden=abc"),
    ),
    Case(
        "fail-above-over-100",
        1,
        r"--fail-above: hidden: '150' is not a percentage in 0\.\.100",
        hinter_test("--fail-above", "hidden=150"),
    ),
    Case(
        "fail-above-unknown-rate",
        1,
        r"--fail-above: unknown rate 'bogus' \(known: atomic, intersectional, hidden",
        hinter_test("--fail-above", "bogus=5"),
    ),
    Case(
        "fail-above-twice",
        1,
        r"--fail-above: rate 'hidden' is given twice",
        hinter_test("--fail-above", "hidden=5", "--fail-above", "hidden=6"),
    ),
    Case(
        "fail-above-unplanned-suite",
        1,
        r"--fail-above: unknown rate 'inter-race\+gender'",
        hinter_test("--orders", "1", "--fail-above", "inter-race+gender=5"),
    ),
    # review 2026-11-25 (G02): a gate on an aggregate no planned suite computes passes on nothing
    Case(
        "fail-above-unplanned-aggregate",
        1,
        r"--fail-above intersectional: no intersectional suite is planned",
        hinter_test("--orders", "1", "--fail-above", "intersectional=0"),
    ),
    Case(
        "fail-above-hidden-without-intersections",
        1,
        r"--fail-above hidden: no intersectional suite is planned",
        hinter_test("--orders", "1", "--fail-above", "hidden=0"),
    ),
    # review 2026-11-25 (G03): --json is guarded as --out is
    Case(
        "json-is-the-input-file",
        1,
        r"--json .*texts\.csv: is the input file",
        lambda w: hinter_test("--json", str(w.data))(w),
    ),
    Case(
        "json-inside-the-model-folder",
        1,
        r"--json .*config\.json: inside the model folder",
        lambda w: hinter_test("--json", str(w.model / "config.json"))(w),
    ),
    Case(
        "json-over-a-result-of-the-run",
        1,
        r"--json .*: would overwrite rq1/truth_table\.csv of the run",
        lambda w: hinter_test("--json", RunLayout(w.out).rq_output(1, "truth_table", "csv"))(w),
        setup=lambda w: (
            Path(RunLayout(w.out).rq_dir(1)).mkdir(parents=True),
            (w.out / cli.LOCK).write_text(""),
            Path(RunLayout(w.out).rq_output(1, "truth_table", "csv")).write_text("x"),
        ),
    ),
    Case(
        "fail-above-no-name",
        1,
        r"--fail-above: expected RATE=PERCENT",
        hinter_test("--fail-above", "=5"),
    ),
    Case("unknown-flag", 1, r"unrecognized arguments: --frobnicate", hinter_test("--frobnicate")),
    Case("missing-data-argument", 1, r"required: data", lambda w: ["test", str(w.model)]),
    Case(
        "text-column-empty",
        1,
        r"--text-column: the column name is empty",
        hinter_test("--text-column", " "),
    ),
    Case("no-subcommand", 1, r"required: command", lambda w: []),
    Case("unknown-subcommand", 1, r"invalid choice: 'tset'", lambda w: ["tset"]),
    # ---------------------------------------------------------------- paths
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
        setup=_readonly(lambda w: w.out),
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
        setup=_readonly(lambda w: w.root / "ro-cache"),
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
    # ---------------------------------------------------------------- the input file
    Case(
        "csv-unclosed-quote-row-2-of-4",
        1,
        r"texts\.csv:3: row 2: malformed CSV .*never closed",
        hinter_test(),
        setup=data("texts.csv", 'text\nThe man.\n"A black woman\nThe girl.\nHe said.\n'),
    ),
    Case(
        "csv-unclosed-quote-swallowing-quoted-rows",
        1,
        r"texts\.csv:3: row 2: malformed CSV \(',' expected",
        hinter_test(),
        setup=data("texts.csv", 'text\n"The man."\n"A black woman\n"The girl."\n"He."\n'),
    ),
    Case(
        "csv-unclosed-quote-last-row",
        1,
        r"texts\.csv:4: row 3: malformed CSV .*never closed",
        hinter_test(),
        setup=data("texts.csv", 'text\nThe man.\nThe girl.\n"He said\n'),
    ),
    Case(
        "csv-stray-quote",
        1,
        r"texts\.csv:3: row 2: malformed CSV",
        hinter_test(),
        setup=data("texts.csv", 'text\nThe man.\n"The" girl.\n'),
    ),
    Case(
        "csv-too-many-fields",
        1,
        r"texts\.csv:3: row 2: 3 fields, but the header has 2",
        hinter_test(),
        setup=data("texts.csv", "text,label\nThe man.,negative\nA woman, a man.,positive\n"),
    ),
    Case(
        "csv-too-few-fields",
        1,
        r"texts\.csv:2: row 1: 1 fields, but the header has 2",
        hinter_test(),
        setup=data("texts.csv", "text,label\nThe man.\n"),
    ),
    Case(
        "csv-header-only",
        1,
        r"texts\.csv: no rows of texts \(only a header\)",
        hinter_test(),
        setup=data("texts.csv", "text,label\n"),
    ),
    Case(
        "csv-empty-file",
        1,
        r"texts\.csv: the file is empty",
        hinter_test(),
        setup=data("texts.csv", ""),
    ),
    Case(
        "csv-blank-file",
        1,
        r"texts\.csv: the file is empty",
        hinter_test(),
        setup=data("texts.csv", "\n \n"),
    ),
    Case(
        "csv-utf16",
        1,
        r"texts\.csv: the file is UTF-16; save it as UTF-8",
        hinter_test(),
        setup=data("texts.csv", "text\nThe man.\n".encode("utf-16")),
    ),
    Case(
        "csv-latin1",
        1,
        r"texts\.csv:3: not UTF-8 \(byte 0xe9 at column 4\)",
        hinter_test(),
        setup=data("texts.csv", "text\nThe man.\nCaf\xe9 au lait.\n".encode("latin-1")),
    ),
    Case(
        "csv-duplicate-header",
        1,
        r"texts\.csv:1: column 'text' appears twice",
        hinter_test(),
        setup=data("texts.csv", "text,text\na,b\n"),
    ),
    Case(
        "csv-empty-header-name",
        1,
        r"texts\.csv:1: column 2 of the header has no name",
        hinter_test(),
        setup=data("texts.csv", "text,\na,b\n"),
    ),
    Case(
        "csv-gz-corrupt",
        1,
        r"texts\.csv\.gz: cannot be read",
        hinter_test(),
        setup=data("texts.csv.gz", b"\x1f\x8b\x08 not really gzip"),
    ),
    Case(
        "tsv-too-many-fields",
        1,
        r"texts\.tsv:3: row 2: 3 fields, but the header has 2 \(an unquoted tab",
        hinter_test(),
        setup=data("texts.tsv", "text\tlabel\nThe man.\tnegative\nA\tb\tc\n"),
    ),
    Case(
        "no-text-column",
        1,
        r"texts\.csv: no column 'text' for --text-column \(columns: review\)",
        hinter_test(),
        setup=data("texts.csv", "review\nA British man.\n"),
    ),
    Case(
        "no-label-column",
        1,
        r"no column 'gold' for --label-column",
        hinter_test("--label-column", "gold"),
    ),
    Case("no-id-column", 1, r"no column 'id' for --id-column", hinter_test("--id-column", "id")),
    Case(
        "label-column-is-text-column",
        1,
        r"--label-column 'text' is also the --text-column",
        hinter_test("--label-column", "text"),
    ),
    Case(
        "empty-text",
        1,
        r"texts\.csv:3: row 2: the text is empty \(remove the row, or pass --skip-empty",
        hinter_test(),
        setup=data("texts.csv", 'text\nThe man.\n"  "\nThe woman.\n'),
    ),
    Case(
        "every-text-empty-skipped",
        1,
        r"texts\.csv: every text is empty",
        hinter_test("--skip-empty"),
        setup=data("texts.csv", 'text\n" "\n""\n'),
    ),
    Case(
        "nul-in-text",
        1,
        r"texts\.csv:2: row 1: the text contains a NUL",
        hinter_test(),
        setup=data("texts.csv", "text\nThe\x00man.\n"),
    ),
    Case(
        "duplicate-ids",
        1,
        r"texts\.csv:3: row 2: duplicate id 'a' in column 'id' \(also row 1\)",
        hinter_test("--id-column", "id"),
        setup=data("texts.csv", "id,text\na,The man.\na,The woman.\n"),
    ),
    Case(
        "empty-id",
        1,
        r"texts\.csv:3: row 2: column 'id' \(the id\) is empty",
        hinter_test("--id-column", "id"),
        setup=data("texts.csv", "id,text\na,The man.\n,The woman.\n"),
    ),
    Case(
        "label-unknown-name",
        1,
        r"texts\.csv:3: row 2: label 'neutral' is neither a label name",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", "text,label\nThe man.,negative\nThe woman.,neutral\n"),
    ),
    Case(
        "label-id-out-of-range",
        1,
        r"texts\.csv:3: row 2: label id 5 outside 0\.\.1",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", "text,label\nThe man.,0\nThe woman.,5\n"),
    ),
    Case(
        "label-id-negative",
        1,
        r"row 1: label id -1 outside 0\.\.1",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", "text,label\nThe man.,-1\n"),
    ),
    Case(
        "label-broken-json-list",
        1,
        r"texts\.csv:2: row 1: labels '\[0,' are not a JSON list",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", 'text,label\nThe man.,"[0,"\n'),
    ),
    Case(
        "label-nested-list",
        1,
        r"row 1: labels .* nest a list",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", 'text,label\nThe man.,"[[0]]"\n'),
    ),
    Case(
        "label-two-for-multi-class",
        1,
        r"row 1: 2 labels, but the model is multi_class",
        hinter_test("--label-column", "label"),
        setup=data("texts.csv", 'text,label\nThe man.,"[0, 1]"\n'),
    ),
    Case(
        "label-ids-and-names-disagree",
        1,
        r"--label-column 'label': every label is both a label name and a label id",
        hinter_test("--label-column", "label"),
        setup=both(
            model(_numeric_names), data("texts.csv", "text,label\nThe man.,1\nA woman.,1\n")
        ),
    ),
    Case(
        "label-format-names-given-ids",
        1,
        r"row 1: unknown label name '0'",
        hinter_test("--label-column", "label", "--label-format", "names"),
        setup=data("texts.csv", "text,label\nThe man.,0\n"),
    ),
    Case(
        "label-format-ids-given-names",
        1,
        r"row 1: label 'negative' is not a label id \(ids 0\.\.1\)",
        hinter_test("--label-column", "label", "--label-format", "ids"),
        setup=data("texts.csv", "text,label\nThe man.,negative\n"),
    ),
    Case(
        "label-a-json-object",
        1,
        r"row 1: labels .* are an object",
        hinter_test("--label-column", "label"),
        setup=data("texts.jsonl", '{"text": "The man.", "label": {"a": 1}}\n'),
    ),
    Case(
        "jsonl-invalid-line",
        1,
        r"texts\.jsonl:2: row 2: invalid JSON",
        hinter_test(),
        setup=data("texts.jsonl", '{"text": "The man."}\n{"text": "The woman.\n'),
    ),
    Case(
        "jsonl-not-an-object",
        1,
        r"texts\.jsonl:1: row 1: a JSON object is expected, got list",
        hinter_test(),
        setup=data("texts.jsonl", '["The man."]\n'),
    ),
    Case(
        "jsonl-text-is-a-number",
        1,
        r"texts\.jsonl:2: row 2: column 'text' holds int 42, not a text",
        hinter_test(),
        setup=data("texts.jsonl", '{"text": "The man."}\n{"text": 42}\n'),
    ),
    Case(
        "jsonl-text-null",
        1,
        r"texts\.jsonl:1: row 1: column 'text' is empty \(no text\)",
        hinter_test(),
        setup=data("texts.jsonl", '{"text": null}\n'),
    ),
    Case(
        "jsonl-empty",
        1,
        r"texts\.jsonl: the file is empty",
        hinter_test(),
        setup=data("texts.jsonl", "\n"),
    ),
    Case(
        "jsonl-utf8-invalid",
        1,
        r"texts\.jsonl:2: not UTF-8",
        hinter_test(),
        setup=data("texts.jsonl", b'{"text": "a"}\n{"text": "\xff"}\n'),
    ),
    Case(
        "parquet-text-is-int",
        1,
        r"texts\.parquet: row 1: column 'text' holds int 5, not a text",
        hinter_test(),
        setup=parquet(pa.table({"text": pa.array([5, 7])})),
    ),
    Case(
        "parquet-text-is-binary",
        1,
        r"texts\.parquet: row 1: column 'text' holds bytes",
        hinter_test(),
        setup=parquet(pa.table({"text": pa.array([b"\xff\xfe"], pa.binary())})),
    ),
    Case(
        "parquet-corrupt",
        1,
        r"texts\.parquet: not a readable Parquet file",
        hinter_test(),
        setup=data("texts.parquet", b"PAR1 garbage"),
    ),
    Case(
        "parquet-no-rows",
        1,
        r"texts\.parquet: no rows of texts",
        hinter_test(),
        setup=parquet(pa.table({"text": pa.array([], pa.string())})),
    ),
    # ---------------------------------------------------------------- the model folder
    Case(
        "model-no-config",
        1,
        r"model directory .*model-copy: config\.json missing",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").unlink()),
    ),
    Case(
        "model-config-not-json",
        1,
        r"model-copy: config\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").write_text("{nope")),
    ),
    Case(
        "model-config-a-list",
        1,
        r"model-copy: config\.json is not a JSON object",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").write_text("[1, 2]")),
    ),
    Case(
        "model-remote-code-custom-type",
        1,
        r"model-copy: config\.json declares custom code \(auto_map: evil\)",
        hinter_test(),
        setup=model(_auto_map("config.json", model_type="evil")),
    ),
    Case(
        "model-remote-code-builtin-type",
        1,
        r"model-copy: config\.json declares custom code",
        hinter_test(),
        setup=model(_auto_map("config.json")),
    ),
    Case(
        "model-remote-code-tokenizer",
        1,
        r"model-copy: tokenizer_config\.json declares custom code",
        hinter_test(),
        setup=model(_auto_map("tokenizer_config.json")),
    ),
    Case(
        "model-pickle-only",
        1,
        r"no safetensors weights .*refusing pickle-based pytorch_model\.bin",
        hinter_test(),
        setup=model(lambda f: (f / "model.safetensors").rename(f / "pytorch_model.bin")),
    ),
    Case(
        "model-weights-truncated",
        1,
        r"model\.safetensors is corrupt \(the tensors need \d+ bytes but the file has",
        hinter_test(),
        setup=model(_truncate),
    ),
    Case(
        "model-weights-garbage",
        1,
        r"model\.safetensors is corrupt",
        hinter_test(),
        setup=model(lambda f: (f / "model.safetensors").write_bytes(b"\x00garbage" * 10)),
    ),
    Case(
        "model-weights-sharded-missing",
        1,
        r"weights file model-00001-of-00002\.safetensors missing",
        hinter_test(),
        setup=model(_sharded_missing),
    ),
    Case(
        "model-no-tokenizer",
        1,
        r"model-copy: no tokenizer files",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer.json").unlink()),
    ),
    Case(
        "model-tokenizer-corrupt",
        1,
        r"model folder .*model-copy: cannot load tokenizer",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer.json").write_text('{"broken": ')),
    ),
    Case(
        "model-tokenizer-config-not-json",
        1,
        r"tokenizer_config\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer_config.json").write_text("{")),
    ),
    Case(
        "model-sidecar-not-json",
        1,
        r"model-copy: hinter\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "hinter.json").write_text("{")),
    ),
    Case(
        "model-sidecar-label-count",
        1,
        r"hinter\.json says 5 labels, config\.json 2",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", n_labels=5)),
    ),
    Case(
        "model-sidecar-label-names",
        1,
        r"hinter\.json label_names must list the model's 2 labels",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", label_names=["a", "b", "c"])),
    ),
    Case(
        "model-sidecar-task-type",
        1,
        r"hinter\.json task_type 'regression' is not",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", task_type="regression")),
    ),
    Case(
        "model-num-labels-vs-id2label",
        1,
        r"config\.json has num_labels 3 but 2 id2label entries",
        hinter_test(),
        setup=model(
            lambda f: edit_json(f / "config.json", num_labels=3, id2label={"0": "a", "1": "b"})
        ),
    ),
    Case(
        "model-not-a-classifier",
        1,
        r"not a sequence classifier \(architectures: BertModel\)",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "config.json", architectures=["BertModel"])),
    ),
    Case(
        "model-no-model-type",
        1,
        r"config\.json has no model_type",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "config.json", model_type=None)),
    ),
    Case(
        "model-head-missing",
        1,
        r"the weights lack 2 of the model's tensors \(e\.g\. classifier\.bias\)",
        hinter_test(),
        setup=model(_drop_head),
    ),
    Case(
        "model-head-wrong-size",
        1,
        r"the weights' classifier\.(weight|bias) has 3 outputs, but config\.json has 2",
        hinter_test(),
        setup=model(_wrong_head),
    ),
    Case(
        "task-type-contradicts-model",
        1,
        r"--task-type multi_label: the model folder .* declares multi_class",
        hinter_test("--task-type", "multi_label"),
    ),
    # ---------------------------------------------------------------- hinter mutate
    Case("mutate-empty-text", 1, r"text: the text is empty", lambda w: ["mutate", "  "]),
    Case(
        "mutate-orders-mixed",
        1,
        r"--orders: 'x' is not an order",
        lambda w: ["mutate", "A man.", "--orders", "1,x"],
    ),
    Case(
        "mutate-orders-beyond",
        1,
        r"--orders: order 4 needs 4 attributes",
        lambda w: ["mutate", "A man.", "--orders", "4"],
    ),
    Case(
        "mutate-attributes-unknown",
        1,
        r"--attributes: unknown attribute",
        lambda w: ["mutate", "A man.", "--attributes", "age"],
    ),
    Case(
        "mutate-limit-0",
        1,
        r"--limit: .*≥ 1, got 0",
        lambda w: ["mutate", "A man.", "--limit", "0"],
    ),
    Case(
        "mutate-dictionary-missing",
        1,
        r"--dictionary .*nowhere: folder not found",
        lambda w: ["mutate", "A man.", "--dictionary", str(w.root / "nowhere")],
    ),
    # ---------------------------------------------------------------- workflow start-up checks
    Case(
        "config-yaml-syntax-error",
        1,
        r"override\.yaml:3: invalid YAML",
        check_config(),
        setup=_config("run_name: x\ndatasets: [imdb\nseed: 1\n"),
    ),
    Case(
        "config-top-level-list",
        1,
        r"override\.yaml: a config file must be a mapping of keys",
        check_config(),
        setup=_config("- a\n- b\n"),
    ),
    Case(
        "config-file-missing",
        1,
        r"nowhere\.yaml: config file not found",
        check_config("{root}/nowhere.yaml"),
    ),
    Case(
        "config-demo-sentences-reversed",
        1,
        r"config key 'data\.demo\.sentences': \[min, max\] expected, got \[7, 3\]",
        check_config(),
        setup=_config("data: {demo: {sentences: [7, 3]}}\n"),
    ),
    Case(
        "config-parser-not-installed",
        1,
        r"config key 'parser\.pipeline': spaCy pipeline 'en_core_web_zz' is not installed",
        check_config(),
        setup=_config("parser: {pipeline: en_core_web_zz}\n"),
    ),
    Case(
        "config-parser-folder-missing",
        1,
        r"config key 'parser\.pipeline': pipeline folder .*nope not found",
        check_config(),
        setup=_config("parser: {pipeline: {root}/nope}\n"),
    ),
    Case(
        "config-finetuned-folder-missing",
        1,
        r"config key 'models\.encoders\.mine\.checkpoint': model folder .*gone not found",
        check_config(),
        setup=_config(
            "models: {encoders: {mine: {init: finetuned, checkpoint: {root}/gone,"
            " datasets: [imdb]}}}\n"
        ),
    ),
    Case(
        "config-finetuned-folder-remote-code",
        1,
        r"config key 'models\.encoders\.mine\.checkpoint': .*declares custom code",
        check_config(),
        setup=both(
            _finetuned_with_auto_map,
            _config(
                "models: {encoders: {mine: {init: finetuned, checkpoint: {root}/custom,"
                " datasets: [imdb]}}}\n"
            ),
        ),
    ),
    Case(
        "config-model-name-is-a-path",
        1,
        r"config key 'models\.encoders\.bad name/x': 'bad name/x' is not a valid name",
        check_config(),
        setup=_config("models: {encoders: {'bad name/x': {checkpoint: x, datasets: [imdb]}}}\n"),
    ),
    Case(
        "config-track-name-is-a-path",
        1,
        r"config key 'mutation\.tracks\.a/b': 'a/b' is not a valid name",
        check_config(),
        setup=_config("mutation: {tracks: {a/b: {tokenizer: words, max_tokens: 5}}}\n"),
    ),
    Case(
        "config-max-mutants-0",
        1,
        r"config key 'mutation\.max_mutants_per_document': 0 would keep nothing",
        check_config(),
        setup=_config("mutation: {max_mutants_per_document: 0}\n"),
    ),
    Case(
        "config-max-documents-0",
        1,
        r"config key 'data\.max_documents': 0 would keep nothing",
        check_config(),
        setup=_config("data: {max_documents: 0}\n"),
    ),
    Case(
        "config-threshold-2",
        1,
        r"config key 'oracle\.confidence_threshold': 2 is greater than the maximum",
        check_config(),
        setup=_config("oracle: {confidence_threshold: 2}\n"),
    ),
    Case(
        "config-orders-beyond-attributes",
        1,
        r"config key 'mutation\.orders': order 4 needs 4 attributes",
        check_config(),
        setup=_config("mutation: {orders: [1, 4]}\n"),
    ),
    Case(
        "config-unknown-key",
        1,
        r"config key 'mutaton': unknown key",
        check_config(),
        setup=_config("mutaton: {}\n"),
    ),
    Case(
        "config-unknown-dataset",
        1,
        r"config key 'datasets': unknown dataset 'sst2'",
        check_config(),
        setup=_config("datasets: [sst2]\n"),
    ),
    Case(
        "config-results-dir-is-a-file",
        1,
        r"config key 'results_dir': .*afile is a file",
        check_config(),
        setup=both(
            lambda w: (w.root / "afile").write_text("x"), _config("results_dir: {root}/afile\n")
        ),
    ),
    # review 2026-11-25: names, sizes, YAML (C04-C08, C10, C11, C13, D04, L22, L23)
    Case(
        "config-name-trailing-newline",
        1,
        r"config key 'run_name': 'demo\\n' does not match",
        check_config(),
        setup=_config('run_name: "demo\\n"\n'),
    ),
    Case(
        "config-model-name-newline",
        1,
        r"config key 'models\.llms\.gpt\\n': 'gpt\\n' is not a valid name",
        check_config(),
        setup=_config('models: {llms: {"gpt\\n": {backend: openai, model: m, tokenizer: t}}}\n'),
    ),
    Case(
        "config-attribute-name-with-dot",
        1,
        r"config key 'dictionary\.custom\.re\.ligion': 're\.ligion' is not a valid name "
        r"\(letters, digits, '_', '-',",
        check_config(),
        setup=_config("dictionary: {custom: {re.ligion: {pairs: p.csv}}}\n"),
    ),
    Case(
        "config-shards-over-999",
        1,
        r"config key 'mutation\.default_shards': 1001 is greater than the maximum of 999",
        check_config(),
        setup=_config("mutation: {default_shards: 1001}\n"),
    ),
    Case(
        "config-runs-huge",
        1,
        r"config key 'sensitivity\.runs': 1000000 is greater than the maximum of 100",
        check_config(),
        setup=_config("sensitivity: {runs: 1000000}\n"),
    ),
    Case(
        "config-plan-too-large",
        1,
        r"config: the plan has over 100000 jobs",
        check_config(),
        setup=_config("mutation: {default_shards: 999}\nsensitivity: {runs: 100}\n"),
    ),
    Case(
        "config-timeout-infinite",
        1,
        r"config key 'models\.llms\.gpt\.timeout': inf is greater than the maximum of 3600",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "timeout: .inf}}}\n"
        ),
    ),
    Case(
        "config-concurrency-huge",
        1,
        r"config key 'models\.llms\.gpt\.concurrency': 1000000 is greater than the maximum",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "concurrency: 1000000}}}\n"
        ),
    ),
    Case(
        "config-api-key-env-empty",
        1,
        r"config key 'models\.llms\.gpt\.api_key_env': '' does not match",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "api_key_env: ''}}}\n"
        ),
    ),
    Case(
        "config-base-url-not-a-url",
        1,
        r"config key 'models\.llms\.gpt\.base_url': 'notaurl' does not match",
        check_config(),
        setup=_config(
            "models: {llms: {gpt: {backend: openai, model: m, tokenizer: t, datasets: [imdb], "
            "base_url: notaurl}}}\n"
        ),
    ),
    Case(
        "config-grammar-unknown-model",
        1,
        r"config key 'grammar\.models': unknown model 'nosuchmodel'",
        check_config(),
        setup=_config("grammar: {models: [nosuchmodel]}\n"),
    ),
    Case(
        "config-duplicate-key",
        1,
        r"override\.yaml:3: invalid YAML \(duplicate key 'seed' \(first on line 2\)\)",
        check_config(),
        setup=_config("datasets: [imdb]\nseed: 7\nseed: 8\n"),
    ),
    Case(
        "config-alias-bomb",
        1,
        r"override\.yaml:4: YAML alias \*a0 is not supported",
        check_config(),
        setup=_config(
            "models:\n  encoders: {}\n  x: &a0 [x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"  y{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10))
        ),
    ),
    Case(
        "config-custom-pairs-too-many",
        1,
        r"config key 'dictionary\.custom\.faith\.pairings': 18,000,000 directed pairs",
        check_config(),
        setup=both(
            lambda w: (w.root / "a.txt").write_text("".join(f"alpha{i}\n" for i in range(3000))),
            lambda w: (w.root / "b.txt").write_text("".join(f"beta{i}\n" for i in range(3000))),
            _config(
                "dictionary: {custom: {faith: {classes: {a: '{root}/a.txt', b: '{root}/b.txt'}, "
                "pairings: [[a, b], [b, a]]}}}\n"
            ),
        ),
    ),
    Case(
        "config-cache-dir-read-only",
        1,
        r"config key 'cache_dir': .*ro is not writable",
        check_config(),
        setup=both(_readonly(lambda w: w.root / "ro"), _config("cache_dir: {root}/ro\n")),
        needs="readonly",
    ),
]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's errors and --help
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return make_classifier(tmp_path_factory.mktemp("catalogue") / "model")


@pytest.fixture
def workspace(tmp_path, tiny_model) -> W:
    w = W(
        root=tmp_path,
        model=tiny_model,
        data=write_csv(tmp_path / "texts.csv"),
        out=tmp_path / "out",
        marker=tmp_path / "MARKER",
    )
    yield w
    for path in w.extra.get("read_only", []):
        undo_read_only(path)
    if "lock" in w.extra:
        w.extra["lock"].close()


def test_the_catalogue_is_large_and_unique():
    assert len(CASES) >= 100
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    w = workspace
    if case.needs == "parser" and PARSER is None:
        pytest.skip("spaCy's en_core_web_sm is not installed")
    if case.setup is not None:
        case.setup(w)
    argv = case.argv(w)
    before, model_before = files_under(w.root), files_under(tiny_model)
    code, out, err = _run(argv, capsys)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("hinter"), lines[0]
    assert re.search(case.match, lines[0]), lines[0]
    assert code == case.code, (code, lines[0])
    assert out == ""
    assert files_under(w.root) == before  # nothing new, nothing half-written
    assert files_under(tiny_model) == model_before
    assert not w.marker.exists() and not (w.root / "MARKER").exists()


# ------------------------------------------------------------------------- faults during work


def _fault_run(w: W, capsys, *extra: str) -> tuple[int, str]:
    """A run that passes validation and fails during work: its last stderr line is the one
    error line (status lines come before it), with no traceback and no temporary file left."""
    code, _out, err = _run(hinter_test(*extra)(w), capsys)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert all(line.startswith("hinter: ") for line in lines), err
    assert not list(w.root.rglob("*.tmp")), "a temporary file was left behind"
    return code, lines[-1]


def test_disk_full_while_writing_says_so(workspace, capsys, monkeypatch):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(args[1]))

    monkeypatch.setattr(io.pq, "write_table", full)
    code, line = _fault_run(workspace, capsys)
    assert code == 1
    assert re.search(r"000\.parquet\..*\.tmp: no space left on the device \(free some space", line)
    assert [p.name for p in workspace.out.rglob("*") if p.is_file()] == [cli.LOCK]


def test_full_disk_in_the_prediction_cache_is_not_called_corrupt(workspace, capsys, monkeypatch):
    import sqlite3

    from hinter.errors import DataError, sqlite_error
    from hinter.models import cache

    def full(self, texts, outputs):
        raise DataError(
            sqlite_error(
                self.path, sqlite3.OperationalError("database or disk is full"), "prediction cache"
            )
        )

    monkeypatch.setattr(cache.PredictionCache, "put", full)
    code, line = _fault_run(workspace, capsys)
    assert code == 1
    assert "no space left on the device for the prediction cache" in line and "delete" not in line
    assert not (workspace.out / "predictions").exists() or not any(
        p.is_file() for p in (workspace.out / "predictions").rglob("*")
    )


def test_corrupt_prediction_cache_is_named_with_the_fix(workspace, capsys, monkeypatch):
    cache_dir = workspace.root / "cache"
    (cache_dir / "predictions").mkdir(parents=True)
    from hinter.models import cache

    real_init = cache.PredictionCache.__init__

    def corrupt_then_open(self, cache_dir, fingerprint, n_labels, timeout=600):
        path = Path(cache_dir) / "predictions" / f"{fingerprint[:40]}.sqlite"
        path.write_bytes(b"not a database" * 100)
        real_init(self, cache_dir, fingerprint, n_labels, timeout)

    monkeypatch.setattr(cache.PredictionCache, "__init__", corrupt_then_open)
    code, line = _fault_run(workspace, capsys, "--cache-dir", str(cache_dir))
    assert code == 1
    assert re.search(
        r"\.sqlite: unusable prediction cache \(.*\); delete the file to rebuild it", line
    )


def test_unexpected_failure_is_one_line_with_the_way_to_the_traceback(
    workspace, capsys, monkeypatch
):
    from hinter import oracle

    def bug(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(oracle, "write_suite_outcomes", bug)
    code, line = _fault_run(workspace, capsys)
    assert code == cli.EXIT_INTERNAL
    assert line == (
        "hinter: internal error (ZeroDivisionError: division by zero); rerun with --debug "
        "for the traceback and report it"
    )


# ------------------------------------------------------------------------- code from a model folder


def _evil_folder(tiny_model: Path, root: Path, model_type: str | None) -> Path:
    folder = copy_model(tiny_model, root / "evil-model")
    _auto_map("config.json", model_type=model_type)(folder)
    return folder


@pytest.mark.parametrize("model_type", ["evil", None], ids=["custom-type", "builtin-type"])
def test_no_loader_runs_a_model_folders_code_even_without_the_up_front_check(
    tiny_model, tmp_path, monkeypatch, model_type
):
    """Every from_pretrained refuses remote code by itself: with the up-front refusal switched
    off, loading still fails or ignores the code, and the marker never appears."""
    from hinter import model_dir
    from hinter.errors import HinterError
    from hinter.models import loading
    from hinter.mutation import window

    folder = _evil_folder(tiny_model, tmp_path, model_type)
    marker = tmp_path / "MARKER"
    monkeypatch.setattr(model_dir, "refuse_remote_code", lambda path: None)
    for load in (
        lambda: window.load_tokenizer(str(folder)),
        lambda: loading.load_classifier(folder),
    ):
        with contextlib.suppress(HinterError):
            load()
    assert not marker.exists()


def test_every_from_pretrained_in_the_package_refuses_remote_code():
    """Each ``*.from_pretrained(...)`` call of the package passes ``trust_remote_code=False``
    (or ``**checkpoint.from_pretrained_kwargs()``, which does)."""
    import ast

    offenders, calls = [], 0
    for path in sorted((REPO / "src" / "hinter").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "from_pretrained"
            ):
                continue
            calls += 1
            safe = any(
                (
                    k.arg == "trust_remote_code"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is False
                )
                or (k.arg is None and "from_pretrained_kwargs" in ast.unparse(k.value))
                for k in node.keywords
            )
            if not safe:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert calls >= 4
    assert offenders == []


def test_cli_subprocess_prints_one_line_and_exit_code(tmp_path, tiny_model):
    """The same promise through the installed entry point (no in-process shortcuts)."""
    bad = tmp_path / "texts.csv"
    bad.write_text('text\nThe man.\n"A black woman\nThe girl.\n', encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hinter.cli",
            "test",
            str(tiny_model),
            str(bad),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"hinter: {bad}:3: row 2: malformed CSV (unexpected end of data; a quote opened here "
        "is never closed)"
    ]
    assert not (tmp_path / "out").exists()


def test_gz_and_bom_inputs_are_read(tmp_path):
    from hinter import inputs

    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress("\ufefftext\nThe man.\n".encode("utf-8")))
    read = inputs.read_file(path)
    assert read.columns == ["text"] and read.rows[0].values == {"text": "The man."}


def test_an_alias_bomb_loaded_by_snakemake_is_refused_at_once():
    """C06 through the Snakefile: Snakemake's loader expands aliases into shared objects, which
    validation refuses before any walk (9 levels of 9: 387 million paths)."""
    import time

    import yaml

    from hinter.config import REPO_ROOT, ConfigError, load_yaml, validate_config

    text = "lol0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
    )
    config = load_yaml(REPO_ROOT / "config" / "demo.yaml")
    config["models"]["encoders"]["bomb"] = {"size": yaml.safe_load(text)}
    start = time.monotonic()
    with pytest.raises(ConfigError, match=r"models\.encoders\.bomb\.size\.lol1\.0': a repeated"):
        validate_config(config)
    assert time.monotonic() - start < 5
