"""Configuration validation: JSON schema with defaults, then cross-references.

Every failure is a :class:`ConfigError` whose message is one line naming the offending key, so
the Snakefile can stop the run before any job starts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from hinter.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"

# Datasets the workflow knows how to load (hinter.data holds their facts) and built-in attributes
# (resources/dictionary). Kept here as plain names so validation needs no heavy imports.
KNOWN_DATASETS = ("ecthr_a", "scotus", "eurlex", "ledgar", "imdb")
BUILTIN_ATTRIBUTES = ("race", "gender", "body")


def _extend_with_defaults(base):
    """A validator class that fills in ``default`` values while it validates."""
    validate_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(base, {"properties": set_defaults})


_Validator = _extend_with_defaults(Draft7Validator)


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<root>"


def _describe(error: ValidationError, schema: dict) -> str:
    """Turn a jsonschema error into 'config key ...: problem'."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in known)
        key = _key([*path, extra[0]]) if extra else _key(path)
        hint = f" (known keys: {', '.join(sorted(known))})" if known else ""
        return f"config key '{key}': unknown key{hint}"
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"config key '{_key([*path, missing])}': required key is missing"
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"config key '{_key(path)}': expected {expected}, got {error.instance!r}"
    if error.validator == "enum":
        return (
            f"config key '{_key(path)}': {error.instance!r} is not one of {error.validator_value}"
        )
    return f"config key '{_key(path)}': {error.message}"


def load_yaml(path: str | Path) -> dict:
    """Read a YAML config file; a syntax error names the file and line."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys")
    return data


def validate_config(
    config: Mapping[str, Any],
    schema_path: str | Path = SCHEMA_PATH,
    base_dir: str | Path = REPO_ROOT,
) -> dict:
    """Validate ``config`` against the schema, fill defaults, check cross-references.

    ``base_dir`` resolves the relative paths of custom dictionary files. Returns a new dict; the
    input is not modified.
    """
    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    cfg = copy.deepcopy(dict(config))
    errors = list(_Validator(schema).iter_errors(cfg))
    if errors:
        raise ConfigError(_describe(best_match(errors), schema))
    _check_references(cfg)
    from hinter.dictionary.custom import check_custom_config

    check_custom_config(cfg["dictionary"]["custom"], base_dir)
    return cfg


def _unknown(key: str, value: str, what: str, known) -> ConfigError:
    known = sorted(known)
    return ConfigError(f"config key '{key}': unknown {what} {value!r} (known: {', '.join(known)})")


def _check_references(cfg: dict) -> None:
    """Names used in one section must exist in another (datasets, attributes, models, tracks)."""
    datasets = cfg["datasets"]
    for ds in datasets:
        if ds not in KNOWN_DATASETS:
            raise _unknown("datasets", ds, "dataset", KNOWN_DATASETS)
    for ds in cfg["data"]["hub"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown(f"data.hub.{ds}", ds, "dataset", KNOWN_DATASETS)

    attributes = set(BUILTIN_ATTRIBUTES) | set(cfg["dictionary"]["custom"])
    for attr in cfg["attributes"]:
        if attr not in attributes:
            raise _unknown("attributes", attr, "attribute", attributes)

    mutation = cfg["mutation"]
    # Per-dataset settings may name any known dataset, so that `--config datasets=[...]` can
    # narrow a run without editing every section.
    for ds in mutation["shards"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown(f"mutation.shards.{ds}", ds, "dataset", KNOWN_DATASETS)
    tracks = mutation["tracks"]
    for name, track in tracks.items():
        if not track["from_models"]:
            for required in ("tokenizer", "max_tokens"):
                if required not in track:
                    raise ConfigError(
                        f"config key 'mutation.tracks.{name}.{required}': required unless "
                        "from_models is true"
                    )
        for ds in track.get("per_dataset", {}):
            if ds not in KNOWN_DATASETS:
                raise _unknown(
                    f"mutation.tracks.{name}.per_dataset.{ds}", ds, "dataset", KNOWN_DATASETS
                )
    n_attr = len(cfg["attributes"])
    for order in mutation["orders"]:
        if order > n_attr:
            raise ConfigError(
                f"config key 'mutation.orders': order {order} needs {order} attributes, "
                f"but only {n_attr} are configured"
            )

    models = cfg["models"]
    model_names: set[str] = set()
    for section in ("encoders", "llms"):
        for name, spec in models[section].items():
            if name in model_names:
                raise ConfigError(f"config key 'models.{section}.{name}': duplicate model name")
            model_names.add(name)
            for ds in spec["datasets"]:
                if ds not in KNOWN_DATASETS:
                    raise _unknown(
                        f"models.{section}.{name}.datasets", ds, "dataset", KNOWN_DATASETS
                    )
            track = spec.get("track", "encoder" if section == "encoders" else "llm")
            if track not in tracks:
                raise _unknown(f"models.{section}.{name}.track", track, "track", tracks)
    for name, spec in models["encoders"].items():
        key = f"models.encoders.{name}"
        if spec["init"] in ("pretrained", "finetuned") and "checkpoint" not in spec:
            raise ConfigError(
                f"config key '{key}.checkpoint': required for a {spec['init']} encoder"
            )
        if spec["init"] == "random" and "architecture" not in spec:
            raise ConfigError(f"config key '{key}.architecture': required for a random init")
    for ds in models["training"]["per_dataset"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown(f"models.training.per_dataset.{ds}", ds, "dataset", KNOWN_DATASETS)
    for name, spec in models["encoders"].items():
        if tracks[spec["track"]]["from_models"]:
            raise ConfigError(
                f"config key 'models.encoders.{name}.track': track {spec['track']!r} takes its "
                "window from LLMs (from_models); give the encoder a track with a tokenizer"
            )
    _check_llms(models["llms"])
    _check_sensitivity(cfg["sensitivity"], models["llms"])

    for i, extra in enumerate(mutation["higher_orders"]):
        key = f"mutation.higher_orders.{i}"
        if extra["order"] > n_attr:
            raise ConfigError(
                f"config key '{key}.order': order {extra['order']} needs more attributes "
                f"than the {n_attr} configured"
            )
        for ds in extra.get("datasets") or []:
            if ds not in KNOWN_DATASETS:
                raise _unknown(f"{key}.datasets", ds, "dataset", KNOWN_DATASETS)
        for model in extra.get("models") or []:
            if model not in model_names:
                raise _unknown(f"{key}.models", model, "model", model_names)


def _check_llms(llms: dict) -> None:
    for name, spec in llms.items():
        key = f"models.llms.{name}"
        for ds in spec["datasets"]:
            if ds not in spec["max_new_tokens"]:
                raise ConfigError(f"config key '{key}.max_new_tokens': no answer budget for {ds}")
        if spec["backend"] == "openai" and not spec.get("tokenizer"):
            raise ConfigError(
                f"config key '{key}.tokenizer': required for an openai model (tiktoken:<encoding>"
                ", e.g. tiktoken:cl100k_base for gpt-3.5, or a HuggingFace tokenizer)"
            )
        if spec["backend"] == "transformers" and spec.get("tokenizer"):
            raise ConfigError(
                f"config key '{key}.tokenizer': a transformers model always counts with its own "
                "tokenizer; remove the key"
            )


def _check_sensitivity(sens: dict, llms: dict) -> None:
    """RQ6's variants: LLMs on datasets they test, prompt templates that exist."""
    from hinter.models.prompts import PROMPTS_DIR, template_names

    for model in sens["models"]:
        if model not in llms:
            raise _unknown("sensitivity.models", model, "LLM", llms)
    for ds in sens["datasets"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown("sensitivity.datasets", ds, "dataset", KNOWN_DATASETS)
    if "default" in sens["prompts"]:
        raise ConfigError(
            "config key 'sensitivity.prompts': 'default' is always run; list the alternatives"
        )
    if not sens["prompts"]:
        return
    for ds in sens["datasets"]:
        if not any(ds in llms[m]["datasets"] for m in sens["models"]):
            continue
        known = template_names(ds, PROMPTS_DIR)
        for prompt in sens["prompts"]:
            if prompt not in known:
                raise _unknown("sensitivity.prompts", prompt, f"{ds} prompt template", known)
