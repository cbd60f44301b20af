"""The config schema bounds every number, and its validator takes integers and numbers at
their word (review 2026-11-28 V01, V04, V05, N34): a class of keys, checked as a class, so a key
added later inherits the rule."""

from __future__ import annotations

import pytest
import yaml

from hinter import config
from hinter.errors import ConfigError
from hinter.schema_keywords import url_problem


def _numeric_keys(node, path=()):
    if isinstance(node, dict):
        types = node.get("type")
        types = [types] if isinstance(types, str) else list(types or [])
        if {"integer", "number"} & set(types):
            yield ".".join(path), node
        for key, sub in node.items():
            if key in ("properties", "definitions"):
                for name, child in sub.items():
                    yield from _numeric_keys(child, (*path, name))
            elif key in ("additionalProperties", "items") and isinstance(sub, dict):
                yield from _numeric_keys(sub, (*path, "*"))


def test_every_number_in_the_schema_has_a_maximum():
    """A job-, memory- or cost-multiplying key without a maximum is how 10^12 resamples got
    through to a 65 TiB allocation; seeds are 0 .. 2^32-1 (what numpy accepts)."""
    schema = yaml.safe_load(config.SCHEMA_PATH.read_text(encoding="utf-8"))
    keys = dict(_numeric_keys(schema))
    assert len(keys) > 50
    unbounded = [k for k, n in keys.items() if "maximum" not in n and "exclusiveMaximum" not in n]
    assert unbounded == []
    seeds = {k: (n.get("minimum"), n.get("maximum")) for k, n in keys.items() if k.endswith("seed")}
    assert set(seeds.values()) == {(0, 2**32 - 1)}, seeds


def test_every_name_fits_a_file_name():
    schema = yaml.safe_load(config.SCHEMA_PATH.read_text(encoding="utf-8"))
    names = {k: v for k, v in schema["definitions"].items() if k.endswith("name")}
    assert names and all(v.get("maxLength") == 100 for v in names.values()), names


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (
            {"mutation": {"default_shards": 2.0}},
            r"default_shards': 2\.0 is not an integer; write 2",
        ),
        ({"statistics": {"resamples": 10**12}}, r"resamples': 1000000000000 is greater than"),
        ({"statistics": {"seed": True}}, r"statistics\.seed': expected integer, got True"),
        ({"oracle": {"confidence_threshold": float("nan")}}, r"threshold': nan is not a number"),
        ({"run_name": "a" * 300}, r"run_name': a name of 300 characters, more than 100"),
    ],
)
def test_the_validator_refuses(section, message):
    with pytest.raises(ConfigError, match=message) as info:
        config.with_defaults(section)
    assert "\n" not in str(info.value) and "a" * 120 not in str(info.value)


def test_integers_and_bounded_values_still_pass():
    cfg = config.with_defaults({"seed": 0, "statistics": {"resamples": 100000, "seed": 2**32 - 1}})
    assert cfg["statistics"]["resamples"] == 100000


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "not a valid URL"),
        ("http://host:99999/v1", "not a valid URL"),
        ("http://host:0/v1", "port 0"),
        ("ftp://host/v1", "not an http"),
        ("http:///v1", "no host name"),
        ("https://api.openai.com/v1", None),
        ("http://[::1]:8080/v1", None),
        ("http://127.0.0.1:18531/v1", None),
    ],
)
def test_urls_are_parsed_as_a_client_would(url, problem):
    found = url_problem(url)
    assert (found is None) if problem is None else (problem in found), found
