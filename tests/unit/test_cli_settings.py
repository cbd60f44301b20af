"""``hinter test`` takes its stage settings from the workflow's config schema: one source of
truth, so the command line, the API and the workflow cannot drift apart."""

from __future__ import annotations

from types import SimpleNamespace

import yaml

from hinter import config, testrun
from hinter.cli import build_parser


def test_the_command_line_defaults_are_the_schemas():
    args = build_parser().parse_args(["test", "model", "texts.csv"])
    d = config.with_defaults({})
    assert args.batch_size == d["models"]["inference"]["batch_size"]
    assert args.max_sentence_chars == d["invariant"]["max_sentence_chars"]
    assert args.threshold == d["oracle"]["confidence_threshold"]
    assert args.examples == d["oracle"]["examples"]
    assert args.seed == d["seed"]
    assert args.attributes == d["attributes"] and args.orders == d["mutation"]["orders"]
    assert args.pairing == d["dictionary"]["pairing"] and args.parser == d["parser"]["pipeline"]


def test_every_stage_setting_comes_from_the_schema_unless_given():
    settings = testrun.Options(model="m", data="d", batch_size=7, invariant=False).settings()
    d = config.with_defaults({})
    assert settings["models"]["inference"] == {**d["models"]["inference"], "batch_size": 7}
    assert settings["invariant"] == {**d["invariant"], "enabled": False}
    assert settings["mutation"]["mode"] == d["mutation"]["mode"]
    assert settings["oracle"] == d["oracle"]


def test_a_changed_schema_default_changes_the_run(tmp_path):
    schema = yaml.safe_load(config.SCHEMA_PATH.read_text(encoding="utf-8"))
    inference = schema["properties"]["models"]["properties"]["inference"]["properties"]
    inference["chunk_size"]["default"] = 123
    path = tmp_path / "schema.yaml"
    path.write_text(yaml.safe_dump(schema), encoding="utf-8")
    assert config.with_defaults({}, schema_path=path)["models"]["inference"]["chunk_size"] == 123


def test_the_summary_shows_mutants_unchanged_in_the_window_only_when_there_are_some(
    capsys, tmp_path
):
    """Beside the rates: how many valid mutants the model saw unchanged (edits beyond its
    window), with a line saying they count as benign; absent when there are none."""
    import pandas as pd

    from hinter.cli.test import print_summary

    def result(skipped: int):
        suites = pd.DataFrame(
            [{"model": "m", "suite": "atomic-race", "order": 1, "mutants": 40, "valid": 30,
              "valid_share_pct": 75.0, "skipped_identical": skipped, "errors": 3,
              "error_rate_pct": 10.0, "hidden": 0, "hidden_rate_pct": float("nan")}]
        )  # fmt: skip
        quality = pd.DataFrame(
            [{"model": "m", "originals": 10, "accuracy": 80.0, "macro_f1": 79.0,
              "majority": "pos", "constant_share": 60.0, "unparsable_share": None}]
        )  # fmt: skip
        pooled = pd.DataFrame(
            [{"model": "m", "rate": "error rate", "numerator": 3, "denominator": 30,
              "percent": 10.0, "lo": 2.1, "hi": 26.5, "too_few": False}]
        )  # fmt: skip
        return SimpleNamespace(suites=suites, quality=quality, comparison=None, rates=pooled,
                               out=tmp_path)  # fmt: skip

    print_summary(result(17))
    shown = capsys.readouterr().out
    assert "unchanged" in shown and "counted as benign" in shown
    row = next(line for line in shown.splitlines() if "atomic-race" in line)
    assert row.split("│")[1:-1][4].strip() == "17"  # after suite, mutants, valid, valid%
    print_summary(result(0))
    assert "unchanged" not in capsys.readouterr().out
