"""Catalogue rows: the input file (formats, encodings, columns, rows, labels)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pytest
from cli_inputs import edit_json

from .cases import (
    Case,
    W,
    assert_one_line_before_any_work,
    both,
    data,
    hinter_test,
    model,
    parquet,
)


def _numeric_names(folder: Path) -> None:
    edit_json(folder / "hinter.json", label_names=["1", "2"])


CASES = [
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
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)


def test_gz_and_bom_inputs_are_read(tmp_path):
    from hinter import inputs

    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress("\ufefftext\nThe man.\n".encode("utf-8")))
    read = inputs.read_file(path)
    assert read.columns == ["text"] and read.rows[0].values == {"text": "The man."}
