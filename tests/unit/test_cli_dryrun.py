"""``hinter test --dry-run`` (review 2026-11-28 P3): the plan before the slow stages, with the
same count of texts to predict as the run, and the warning of a large plan."""

from __future__ import annotations

import random
import re

import pytest
from cli_inputs import TEXTS, make_classifier

from hinter import cli


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("dry-run")
    model = make_classifier(root / "model")
    rng = random.Random(5)
    rows = ["id,text,label"] + [
        f'd{i},"{" ".join(rng.sample(TEXTS, 3))}",{["negative", "positive"][i % 2]}'
        for i in range(12)
    ]
    data = root / "texts.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root, model, data


def _hinter(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


def test_dry_run_plans_what_the_run_then_does_and_writes_nothing(inputs, capsys):
    root, model, data = inputs
    out = root / "out"
    common = [
        "test", str(model), str(data), "--out", str(out), "--label-column", "label",
        "--no-invariant", "--id-column", "id", "--cache-dir", str(root / "cache"),
    ]  # fmt: skip
    code, err = _hinter(capsys, *common, "--dry-run")
    assert code == 0, err
    assert not out.exists() and not (root / "cache").exists()  # nothing written
    suites = dict(re.findall(r"hinter:   (\S+): ([\d,]+) mutants", err))
    assert set(suites) == {
        "atomic-body", "atomic-gender", "atomic-race",
        "inter-body+gender", "inter-body+race", "inter-race+gender",
    }  # fmt: skip
    plan = re.search(r"plan: 12 documents, ([\d,]+) mutants in 6 suites, up to ([\d,]+) texts", err)
    assert plan, err
    assert int(plan[1].replace(",", "")) == sum(int(n.replace(",", "")) for n in suites.values())
    assert re.search(r"projected on 2 idle CPU cores: invariant ~.*, predict ~.*; total ~", err)

    # one count of texts to predict: the originals and every mutant row (parents included),
    # which the run's plan line and its predict bar repeat (hinter.testrun.stages._mutate)
    parents = sum(int(n) for n in re.findall(r"\(\+([\d,]+) atomic parents\)", err))
    assert int(plan[2].replace(",", "")) == 12 + int(plan[1].replace(",", "")) + parents


def test_a_large_plan_is_warned_with_the_cap_to_use(inputs, capsys, monkeypatch):
    from hinter.testrun import dryrun

    monkeypatch.setattr(dryrun, "LARGE_MINUTES", 0.0)  # every plan is "large"
    root, model, data = inputs
    code, err = _hinter(
        capsys, "test", str(model), str(data), "--out", str(root / "o2"), "--no-invariant",
        "--max-mutants-per-document", "all", "--dry-run",
    )  # fmt: skip
    assert code == 0, err
    assert re.search(
        r"warning: this plan is large .*cap it with --max-mutants-per-document \d+", err
    )


def test_a_result_shows_its_summary_in_a_notebook(tmp_path):
    """P18: ``Result._repr_html_``: the verdict line and the rates and suites tables."""
    import pandas as pd

    from hinter import gate
    from hinter.api import Result

    rates = pd.DataFrame({"model": ["m"], "rate": ["hidden"], "percent": [12.5], "lo": [0.0]})
    suites = pd.DataFrame({"suite": ["inter-race+gender"], "valid": [8]})
    verdict = gate.evaluate({}, [])
    result = Result(tmp_path, ["m<1>"], rates, suites, suites, suites, {}, verdict, None)
    page = result._repr_html_()
    assert page.startswith("<p><b>hinter</b> m&lt;1&gt;: no --fail-above gate")
    assert page.count("<table") == 2 and "12.50" in page and "inter-race+gender" in page


def test_a_context_counter_does_not_warn_about_long_documents(inputs, capfd):
    """P15: counting a document longer than the tokenizer's model limit runs nothing through a
    model; transformers' "indexing errors" warning is not shown."""
    from transformers import AutoTokenizer

    from hinter.models.context import HFDocTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(inputs[1]))
    tokenizer.model_max_length = 8
    counter = HFDocTokenizer(tokenizer, "tiny")
    assert counter.count(" ".join(TEXTS * 3)) > 8
    assert "Token indices sequence length" not in capfd.readouterr().err


def test_every_flag_of_test_and_mutate_has_help_text():
    """P17: `hinter test --help` describes every option (ten had none)."""
    import argparse

    from hinter.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("test", "mutate"):
        missing = [
            action.option_strings or action.dest
            for action in sub.choices[name]._actions
            if not isinstance(action, argparse._HelpAction) and not action.help
        ]
        assert not missing, (name, missing)
    epilog = sub.choices["test"].epilog
    assert "4 internal error" in epilog and "143 terminated" in epilog
