"""The Python API checks what the command line checks, before anything is read or written
(review 2026-11-28 A03-A07). Two tests built at once in a fresh process (A11):
tests/benchmarks/test_integrity_bench.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inputs import TEXTS, make_classifier

from hinter.api import BiasTest
from hinter.errors import HinterError


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return make_classifier(tmp_path_factory.mktemp("api") / "model")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"max_documents": -1}, r"max_documents: expected an integer ≥ 1, got -1"),
        ({"max_documents": 0}, r"max_documents: expected an integer ≥ 1, got 0"),
        ({"max_documents": "2"}, r"max_documents: expected an integer ≥ 1, got '2'"),
        ({"max_documents": 2.0}, r"max_documents: expected an integer ≥ 1, got 2\.0"),
        ({"seed": -1}, r"seed: expected an integer ≥ 0, got -1"),
        ({"examples": True}, r"examples: expected an integer ≥ 0, got True"),
        ({"orders": 2}, r"orders: expected a list, got 2"),
        ({"orders": [1, 2.5]}, r"orders: expected a list of integers ≥ 1"),
        ({"attributes": "race,gender"}, r"attributes: expected a list, got 'race,gender'"),
        ({"compare": "tm_c"}, r"compare: expected a list, got 'tm_c' \(write \['tm_c'\]"),
        ({"fail_above": "atomic=5"}, r"fail_above: expected a list, got 'atomic=5'"),
    ],
)
def test_what_the_command_line_refuses_the_api_refuses(tiny, tmp_path, extra, message):
    with pytest.raises(HinterError, match=message) as info:
        BiasTest(tiny, TEXTS[:4], out=tmp_path / "out", invariant=False, **extra)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("model", "texts", "message"),
    [
        (None, TEXTS[:2], r"model: expected a model folder or name, got None"),
        ("m", 42, r"texts: expected a DataFrame, a file path or a list of strings, got int"),
        ("m", ["fine", "bad \udcff text"], r"<texts>: row 2: column 'text' is not valid Unicode"),
    ],
)
def test_wrong_kinds_of_model_and_texts_are_named(tmp_path, model, texts, message):
    with pytest.raises(HinterError, match=message):
        BiasTest(model, texts, out=tmp_path / "out")


def test_max_documents_keeps_the_first_n(tiny, tmp_path):
    test = BiasTest(tiny, TEXTS[:4], out=tmp_path / "out", invariant=False, max_documents=3)
    assert test.plan.docs.num_rows == 3


def test_a_results_files_never_overwrite_an_input(tmp_path):
    """N26 for the API: Result.write_json / write_report refuse the run's inputs (the plan's
    run_inputs, set by BiasTest.run)."""
    from hinter.api import Result

    data, model = tmp_path / "texts.csv", tmp_path / "chat"
    data.write_text("text\nA.\n")
    model.mkdir()
    result = object.__new__(Result)
    result.inputs = ([data], {"model": model})
    with pytest.raises(HinterError, match=r"write_json .*texts\.csv: is the input file"):
        result.write_json(data)
    with pytest.raises(HinterError, match=r"write_report .*config\.json: inside the model folder"):
        result.write_report(model / "config.json")
    assert data.read_text() == "text\nA.\n" and not any(model.iterdir())
