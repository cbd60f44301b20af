"""``hinter test`` takes its stage settings from the workflow's config schema: one source of
truth, so the command line, the API and the workflow cannot drift apart."""

from __future__ import annotations

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
