"""Config validation: defaults, one-line errors naming the key, cross-references."""

from __future__ import annotations

import copy

import pytest

from hinter.config import load_yaml, validate_config
from hinter.errors import ConfigError


@pytest.fixture(scope="module")
def paper(repo):
    return load_yaml(repo / "config" / "config.yaml")


@pytest.fixture(scope="module")
def demo(repo):
    return load_yaml(repo / "config" / "demo.yaml")


def test_shipped_configs_validate_and_get_defaults(paper, demo):
    cfg = validate_config(paper)
    assert cfg["invariant"]["batch_size"] == 256  # default filled in
    assert cfg["models"]["llms"]["llama2"]["max_new_tokens"]["ecthr_a"] == 40
    assert cfg["mutation"]["higher_orders"][0]["order"] == 3
    assert validate_config(demo)["data"]["source"] == "demo"


def test_validation_does_not_modify_its_input(paper):
    before = copy.deepcopy(paper)
    validate_config(paper)
    assert paper == before


def _error(cfg) -> str:
    with pytest.raises(ConfigError) as info:
        validate_config(cfg)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"mutation": {"shardz": 3}}, "config key 'mutation.shardz': unknown key"),
        (
            {"mutation": {"default_shards": "abc"}},
            "config key 'mutation.default_shards': expected integer",
        ),
        ({"data": {"source": "web"}}, "config key 'data.source': 'web' is not one of"),
        ({"datasets": ["imdb", "sst2"]}, "config key 'datasets': unknown dataset 'sst2'"),
        (
            {"attributes": ["race", "religion"]},
            "config key 'attributes': unknown attribute 'religion'",
        ),
        ({"oracle": {"confidence_threshold": 2}}, "config key 'oracle.confidence_threshold'"),
        (
            {"mutation": {"shards": {"sst2": 2}}},
            "config key 'mutation.shards.sst2': unknown dataset",
        ),
        (
            {"mutation": {"orders": [1, 4]}},
            "config key 'mutation.orders': order 4 needs 4 attributes",
        ),
        ({"run_name": "a b"}, "config key 'run_name'"),
        ({"unknown_top": 1}, "config key 'unknown_top': unknown key"),
    ],
)
def test_bad_values_name_the_key(demo, patch, expected):
    cfg = copy.deepcopy(demo)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key] = {**cfg[key], **value}
        else:
            cfg[key] = value
    assert expected in _error(cfg)


def test_missing_required_key(demo):
    cfg = copy.deepcopy(demo)
    del cfg["run_name"]
    assert "config key 'run_name': required key is missing" in _error(cfg)


def test_model_references_are_checked(paper):
    cfg = copy.deepcopy(paper)
    cfg["models"]["encoders"]["bert"]["datasets"] = ["ecthr_a", "sst2"]
    assert "models.encoders.bert.datasets" in _error(cfg)
    cfg = copy.deepcopy(paper)
    cfg["mutation"]["higher_orders"][0]["models"] = ["llama3"]
    assert "unknown model 'llama3'" in _error(cfg)
    cfg = copy.deepcopy(paper)
    cfg["models"]["encoders"]["bert"]["track"] = "vision"
    assert "unknown track 'vision'" in _error(cfg)


def test_custom_attribute_makes_its_name_known(demo, tmp_path):
    (tmp_path / "my").mkdir()
    (tmp_path / "my" / "religion.csv").write_text("source;target\nchristian;muslim\n")
    cfg = copy.deepcopy(demo)
    cfg["attributes"] = ["race", "religion"]
    cfg["mutation"] = {**cfg["mutation"], "higher_orders": []}
    cfg["dictionary"] = {**cfg["dictionary"], "custom": {"religion": {"pairs": "my/religion.csv"}}}
    assert validate_config(cfg, base_dir=tmp_path)["attributes"] == ["race", "religion"]


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("run_name: x\ndatasets: [imdb\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml:\d+: invalid YAML"):
        load_yaml(bad)


def _llm_error(paper, patch) -> str:
    cfg = copy.deepcopy(paper)
    patch(cfg)
    return _error(cfg)


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        (
            lambda c: c["models"]["llms"]["gpt35"].pop("tokenizer"),
            "config key 'models.llms.gpt35.tokenizer': required for an openai model",
        ),
        (
            lambda c: c["models"]["llms"]["llama2"].update(tokenizer="x"),
            "config key 'models.llms.llama2.tokenizer': a transformers model always counts",
        ),
        (
            lambda c: c["models"]["llms"]["llama2"].update(max_new_tokens={"imdb": 7}),
            "config key 'models.llms.llama2.max_new_tokens': no answer budget for ecthr_a",
        ),
        (
            lambda c: c["sensitivity"].update(models=["bert"]),
            "config key 'sensitivity.models': unknown LLM 'bert'",
        ),
        (
            lambda c: c["sensitivity"].update(prompts=["alt1", "alt9"]),
            "config key 'sensitivity.prompts': unknown imdb prompt template 'alt9'",
        ),
        (
            lambda c: c["sensitivity"].update(prompts=["default"]),
            "config key 'sensitivity.prompts': 'default' is always run",
        ),
        (
            lambda c: c["mutation"]["tracks"].update(llm={"max_tokens": 100}),
            "config key 'mutation.tracks.llm.tokenizer': required unless from_models",
        ),
        (
            lambda c: c["models"]["encoders"]["bert"].update(track="llm"),
            "config key 'models.encoders.bert.track': track 'llm' takes its window from LLMs",
        ),
        (
            lambda c: c["models"]["llms"]["gpt35"].update(backend="vllm"),
            "config key 'models.llms.gpt35.backend': 'vllm' is not one of",
        ),
    ],
)
def test_llm_and_sensitivity_errors_name_the_key(paper, patch, expected):
    assert _llm_error(paper, patch).startswith(expected)
