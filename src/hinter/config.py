"""Configuration validation: JSON schema with defaults, then cross-references.

Every failure is a :class:`ConfigError` whose message is one line naming the offending key, so
the Snakefile can stop the run before any job starts. ``hinter check-config`` and the Snakefile
share this one path (:func:`validate_config`), plan-time checks included, so they cannot
disagree. What is refused beyond the schema's types:

- YAML duplicate keys and aliases (``&a`` / ``*a``): a duplicate silently took the last value,
  and a 2 KB alias bomb expands to billions of values (:func:`load_yaml`; a config that reaches
  here with shared or too many values — Snakemake's own loader expands aliases — is refused by
  :func:`check_shape` before any walk);
- names with a control character (``"gpt\n"``: a pattern's ``$`` matches before a final line
  break, so every pattern is matched in full) or a character a Snakemake wildcard cannot hold;
- sizes that multiply jobs, pairs or memory: :data:`MAX_JOBS`, ``MAX_CUSTOM_PAIRS`` (custom
  dictionaries) and the schema's maxima (shards, runs, prompts, timeout, concurrency).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from hinter import costs, paths, schema_keywords
from hinter.errors import ConfigError
from hinter.layout import KNOWN_DATASETS
from hinter.plan import known_dataset_names

MAX_CONFIG_VALUES = 200_000  # values in a config tree (a real one has a few hundred)
MAX_DEPTH = 50  # levels of nested mappings and lists in a config file (a real one has 6)
MAX_JOBS = 100_000  # planned per-shard jobs (mutate, invariant, predict): the paper plans ~11,000

REPO_ROOT = paths.ROOT
SCHEMA_PATH = paths.SCHEMAS / "config.schema.yaml"

# Built-in attributes (resources/dictionary), as plain names so validation needs no heavy imports;
# the known datasets are hinter.layout.KNOWN_DATASETS.
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


_Validator = schema_keywords.extend(_extend_with_defaults(Draft7Validator))


def _key(path) -> str:
    """A config key for a message: one line even when a name holds a control character."""
    text = ".".join(str(p) for p in path) or "<root>"
    return text if text.isprintable() else repr(text)[1:-1]


def _describe(error: ValidationError, schema: dict) -> str:
    """Turn a jsonschema error into 'config key ...: problem'."""
    path = list(error.absolute_path)
    if (worded := schema_keywords.describe(error, _key)) is not None:
        return worded
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
    if error.validator == "propertyNames" or (
        error.validator == "pattern" and error.schema_path and "propertyNames" in error.schema_path
    ):
        name = error.instance
        dot = "." in str(error.validator_value if error.validator == "pattern" else "")
        allowed = "letters, digits, '_', '.', '-'" if dot else "letters, digits, '_', '-'"
        return (
            f"config key '{_key([*path, name])}': {name!r} is not a valid name ({allowed}, "
            "starting with a letter or digit; it becomes a folder name or part of one)"
        )
    if error.validator == "minimum" and error.validator_value == 1 and error.instance == 0:
        return f"config key '{_key(path)}': 0 would keep nothing; use a number >= 1, or null"
    if error.validator == "enum":
        return (
            f"config key '{_key(path)}': {error.instance!r} is not one of {error.validator_value}"
        )
    return f"config key '{_key(path)}': {error.message}"


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing duplicate keys (it keeps the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                continue  # the base class reports an unhashable key
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {seen[key]})",
                    key_node.start_mark,
                )  # fmt: skip
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: str | Path) -> dict:
    """Read a YAML config file; a syntax error, a duplicate key or an alias names the file and
    line. Aliases are refused before anything is built (an alias bomb never expands)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        depth = 0
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            depth += isinstance(event, yaml.CollectionStartEvent)
            depth -= isinstance(event, yaml.CollectionEndEvent)
            if depth > MAX_DEPTH:  # the loader recurses: 3,000 levels were a RecursionError
                raise ConfigError(f"{path}:{event.start_mark.line + 1}: nested deeper than "
                                  f"{MAX_DEPTH} levels (a config has a few)")  # fmt: skip
            if isinstance(event, yaml.AliasEvent):
                raise ConfigError(
                    f"{path}:{event.start_mark.line + 1}: YAML alias *{event.anchor} is not "
                    "supported in a config (write the value out)"
                )
        data = yaml.load(text, Loader=_StrictLoader)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys")
    return data


def check_shape(config: Any) -> None:
    """A config is a tree of at most :data:`MAX_CONFIG_VALUES` values with no shared parts:
    checked before anything walks it (Snakemake's YAML loader expands aliases into shared
    objects, which a walk would visit once per path — billions of times for an alias bomb)."""
    from collections import deque

    seen: set[int] = set()
    queue: deque[tuple[Any, str]] = deque([(config, "<root>")])  # breadth first: the shortest key
    count = 0
    while queue:
        value, key = queue.popleft()
        count += 1
        if count > MAX_CONFIG_VALUES:
            raise ConfigError(f"config: more than {MAX_CONFIG_VALUES} values; is it a config?")
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                raise ConfigError(
                    f"config key '{key}': a repeated part (a YAML alias *name); write the value out"
                )
            seen.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                queue.append((v, f"{key}.{k}" if key != "<root>" else str(k)))


def validate_config(
    config: Mapping[str, Any],
    schema_path: str | Path = SCHEMA_PATH,
    base_dir: str | Path = REPO_ROOT,
) -> dict:
    """Validate ``config`` against the schema, fill defaults, check cross-references.

    ``base_dir`` resolves custom dictionary files' relative paths. Returns a new dict.
    """
    check_shape(config)
    from hinter import userdata, visible_window

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    cfg = _schema_checked(userdata.normalise_config(copy.deepcopy(dict(config))), schema)
    _check_references(cfg)
    visible_window.check(cfg)  # the window a model reads is the window mutated (G1)
    from hinter.dictionary.custom import check_custom_config, check_custom_sizes

    check_custom_config(cfg["dictionary"]["custom"], base_dir)
    check_custom_sizes(cfg["dictionary"]["custom"], base_dir)
    userdata.check_config(cfg, base_dir)
    _check_plan(cfg)
    return cfg


def _check_plan(cfg: dict) -> None:
    """The checks the Snakefile's planning makes (so check-config says what snakemake would)
    and the size of the plan: per-shard jobs at most :data:`MAX_JOBS`."""
    from hinter import plan

    plan.grammar_runs(cfg)
    jobs = 0
    for dataset in cfg["datasets"]:
        shards = cfg["mutation"]["shards"].get(dataset, cfg["mutation"]["default_shards"])
        for track in plan.tracks(cfg, dataset):
            suites = len(plan.suites(cfg, dataset, track))
            jobs += 2 * shards * suites  # mutate + invariant
        for run in plan.model_runs(cfg):
            if run.dataset == dataset:
                jobs += shards * len(plan.variants(cfg, run.model, dataset))
        if jobs > MAX_JOBS:
            raise ConfigError(
                f"config: the plan has over {MAX_JOBS} jobs (at dataset {dataset!r}: shards x "
                "suites x models x variants); lower mutation.default_shards, attributes, "
                "mutation.orders or sensitivity.runs"
            )


def merge(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict:
    """``update`` merged into ``base`` key by key (as Snakemake merges config files)."""
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _resolve(schema: Any, root: dict) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def coerce(value: Any, schema: Any, root: dict) -> Any:
    """Strings where the schema wants a number, boolean or null, read as YAML scalars.

    ``snakemake --config oracle='{confidence_threshold: 0.5}'`` parses nested values with
    YAML's base loader, which leaves every scalar a string ("0.5"); a value that is a string in
    the schema is never touched.
    """
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        return {
            k: coerce(v, props.get(k, extra if isinstance(extra, dict) else {}), root)
            for k, v in value.items()
        }
    if isinstance(value, list):
        items = schema.get("items", {})
        return [coerce(v, items, root) for v in value]
    if not isinstance(value, str):
        return value
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    if "enum" in schema and value in schema["enum"]:
        return value
    wanted = {"number", "integer", "boolean", "null"} & set(types)
    if not wanted or "string" in types:
        return value
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return value
    fits = {
        "null": parsed is None,
        "boolean": isinstance(parsed, bool),
        "integer": isinstance(parsed, int) and not isinstance(parsed, bool),
        "number": isinstance(parsed, (int, float)) and not isinstance(parsed, bool),
    }
    return parsed if any(fits[t] for t in wanted) else value


def _unknown(key: str, value: str, what: str, known) -> ConfigError:
    known = sorted(known)
    return ConfigError(f"config key '{key}': unknown {what} {value!r} (known: {', '.join(known)})")


def _check_references(cfg: dict) -> None:
    """Names used in one section must exist in another (datasets, attributes, models, tracks)."""
    datasets = cfg["datasets"]
    known_datasets = known_dataset_names(cfg)
    for ds in datasets:
        if ds not in known_datasets:
            raise _unknown("datasets", ds, "dataset", known_datasets)
    for ds in cfg["data"]["hub"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown(f"data.hub.{ds}", ds, "dataset", KNOWN_DATASETS)
    for ds in cfg["data"]["order"]:
        if ds not in KNOWN_DATASETS:
            raise _unknown(f"data.order.{ds}", ds, "dataset", KNOWN_DATASETS)

    if cfg["data"]["source"] == "mirror" and not cfg["data"].get("mirror"):
        raise ConfigError(
            "config key 'data.mirror': data.source: mirror needs the mirror folder "
            "(filled where there is internet by `snakemake download --config 'data={mirror: DIR}'`)"
        )

    low, high = cfg["data"]["demo"]["sentences"]
    if low > high:
        raise ConfigError(
            f"config key 'data.demo.sentences': [min, max] expected, got [{low}, {high}]"
        )

    sbic = cfg["dictionary"]["sbic"]
    if sbic["source"] == "folder" and not sbic.get("folder"):
        raise ConfigError(
            "config key 'dictionary.sbic.folder': required with source folder (the folder of "
            "the extracted SBIC CSVs)"
        )
    attributes = set(BUILTIN_ATTRIBUTES) | set(cfg["dictionary"]["custom"])
    for attr in cfg["attributes"]:
        if attr not in attributes:
            raise _unknown("attributes", attr, "attribute", attributes)

    mutation = cfg["mutation"]
    # Per-dataset settings may name any known dataset, so that `--config datasets=[...]` can
    # narrow a run without editing every section.
    for ds in mutation["shards"]:
        if ds not in known_datasets:
            raise _unknown(f"mutation.shards.{ds}", ds, "dataset", known_datasets)
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
            if ds not in known_datasets:
                raise _unknown(
                    f"mutation.tracks.{name}.per_dataset.{ds}", ds, "dataset", known_datasets
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
                if ds not in known_datasets:
                    raise _unknown(
                        f"models.{section}.{name}.datasets", ds, "dataset", known_datasets
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
        if ds not in known_datasets:
            raise _unknown(f"models.training.per_dataset.{ds}", ds, "dataset", known_datasets)
    for name, spec in models["encoders"].items():
        if tracks[spec["track"]]["from_models"]:
            raise ConfigError(
                f"config key 'models.encoders.{name}.track': track {spec['track']!r} takes its "
                "window from LLMs (from_models); give the encoder a track with a tokenizer"
            )
    keep = cfg["invariant"]["keep_discarded"]
    for name in [] if isinstance(keep, bool) else keep:
        if name not in model_names and name not in ("encoders", "llms"):
            known = model_names | {"encoders", "llms"}
            raise _unknown("invariant.keep_discarded", name, "model or group", known)
    _check_llms(models["llms"])
    _check_sensitivity(cfg["sensitivity"], models["llms"], cfg)

    for i, extra in enumerate(mutation["higher_orders"]):
        key = f"mutation.higher_orders.{i}"
        if extra["order"] > n_attr:
            raise ConfigError(
                f"config key '{key}.order': order {extra['order']} needs more attributes "
                f"than the {n_attr} configured"
            )
        for ds in extra.get("datasets") or []:
            if ds not in known_datasets:
                raise _unknown(f"{key}.datasets", ds, "dataset", known_datasets)
        for model in extra.get("models") or []:
            if model not in model_names:
                raise _unknown(f"{key}.models", model, "model", model_names)


def _check_llms(llms: dict) -> None:
    for name, spec in llms.items():
        costs.check_costs(spec, key := f"models.llms.{name}")  # a cost cap no value switches off
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


def _check_sensitivity(sens: dict, llms: dict, cfg: Mapping[str, Any] | None = None) -> None:
    """RQ6's variants: LLMs on datasets they test, prompt templates that exist."""
    from hinter import userdata
    from hinter.prompt_spec import PROMPTS_DIR, template_names

    cfg = cfg or {}
    known_datasets = known_dataset_names(cfg)
    for model in sens["models"]:
        if model not in llms:
            raise _unknown("sensitivity.models", model, "LLM", llms)
    for ds in sens["datasets"]:
        if ds not in known_datasets:
            raise _unknown("sensitivity.datasets", ds, "dataset", known_datasets)
    if "default" in sens["prompts"]:
        raise ConfigError(
            "config key 'sensitivity.prompts': 'default' is always run; list the alternatives"
        )
    if not sens["prompts"]:
        return
    for ds in sens["datasets"]:
        if not any(ds in llms[m]["datasets"] for m in sens["models"]):
            continue
        if userdata.declared(cfg, ds) is not None:
            continue  # its own prompt file: hinter.userdata.check_declarations
        known = template_names(ds, PROMPTS_DIR)
        for prompt in sens["prompts"]:
            if prompt not in known:
                raise _unknown("sensitivity.prompts", prompt, f"{ds} prompt template", known)


# --------------------------------------------------------------------------- start-up checks


def _is_local_path(source: str) -> bool:
    return source.startswith(("/", "./", "../", "~")) or Path(source).expanduser().exists()


def _writable(path: Path) -> bool:
    """Whether ``path`` is, or can be created as, a folder this process may write in."""
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    return probe.is_dir() and can_create_file_in(probe)


def can_create_file_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder``, tried (os.access cannot tell a read-only
    mount or an immutable folder from a writable one when running as root)."""
    import os
    import tempfile

    try:
        fd, name = tempfile.mkstemp(prefix=".hinter-probe-", dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(name)
    return True


def parser_problem(pipeline: str, workdir: Path) -> str | None:
    """Why ``parser.pipeline`` cannot be loaded (checked without loading it), or None."""
    import importlib.util

    path = Path(pipeline).expanduser()
    path = path if path.is_absolute() else workdir / path
    if "/" in pipeline or "\\" in pipeline or pipeline.startswith("."):
        if not path.is_dir():
            return f"pipeline folder {pipeline} not found"
        if not (path / "meta.json").is_file() and not (path / "config.cfg").is_file():
            return f"{pipeline} is not a spaCy pipeline folder (no meta.json or config.cfg)"
        return None
    if path.is_dir():
        return None
    if importlib.util.find_spec(pipeline) is None:
        from hinter.invariant.parse import DEFAULT_PIPELINE, reupload_dir

        if pipeline == DEFAULT_PIPELINE and reupload_dir() is not None:
            return None  # the pinned offline re-upload stands in (resources/models/README.md)
        return (
            f"spaCy pipeline {pipeline!r} is not installed (python -m spacy download "
            f"{pipeline}, or set parser.pipeline to a pipeline folder)"
        )
    return None


def startup_checks(
    cfg: Mapping[str, Any],
    workdir: str | Path,
    jobs: Iterable[tuple[str, Mapping[str, str]]] | None = None,
) -> None:
    """What a validated config needs from this machine, checked before any job starts.

    Folders that are read (local model checkpoints, the parser) must exist; folders that are
    written (``results_dir``, ``cache_dir``) must be writable. Paths are relative to
    ``workdir`` (Snakemake's working directory). ``jobs``, the (rule, wildcards) of the jobs
    about to run, limits the checks to what they need (None: everything). Not for dry-runs:
    planning a paper run on a laptop without its parser or checkpoints is legitimate.
    """
    workdir = Path(workdir)
    planned = None if jobs is None else [(rule, dict(wc)) for rule, wc in jobs]

    def needed(rule: str, **wildcards: str) -> bool:
        return planned is None or any(
            r == rule and all(wc.get(k) == v for k, v in wildcards.items()) for r, wc in planned
        )

    for key in ("results_dir", "cache_dir"):
        path = Path(cfg[key]).expanduser()
        path = path if path.is_absolute() else workdir / path
        if path.exists() and not path.is_dir():
            raise ConfigError(f"config key '{key}': {path} is a file, not a folder")
        if not _writable(path):
            raise ConfigError(f"config key '{key}': {path} is not writable")
    if cfg["data"]["source"] == "mirror" and needed("download_dataset"):
        mirror = Path(cfg["data"]["mirror"]).expanduser()
        mirror = mirror if mirror.is_absolute() else workdir / mirror
        if not mirror.is_dir():
            raise ConfigError(
                f"config key 'data.mirror': {mirror} is not a folder; fill it where there is "
                "internet with `snakemake download --config 'data={mirror: DIR}'`"
            )
    if cfg["invariant"]["enabled"] and needed("check_invariant"):
        problem = parser_problem(cfg["parser"]["pipeline"], workdir)
        if problem:
            raise ConfigError(f"config key 'parser.pipeline': {problem}")
    for name, spec in cfg["models"]["encoders"].items():
        source = spec.get("checkpoint")
        if not source or source.startswith("pypi:"):
            continue
        if not needed("train_encoder", model=name):
            continue
        key = f"models.encoders.{name}.checkpoint"
        local = Path(source).expanduser()
        local = local if local.is_absolute() else workdir / local
        if spec["init"] == "finetuned" or _is_local_path(source):
            if not local.is_dir():
                raise ConfigError(f"config key '{key}': model folder {source} not found")
            if spec["init"] == "finetuned":
                from hinter.errors import DataError
                from hinter.model_dir import read_model_dir

                try:
                    read_model_dir(local)
                except DataError as exc:
                    raise ConfigError(f"config key '{key}': {exc}") from None


def with_defaults(partial: Mapping[str, Any], schema_path: str | Path = SCHEMA_PATH) -> dict:
    """``partial`` (some sections) checked and completed with the schema's defaults: the settings
    of ``hinter test`` and the API, not a workflow config, so no cross-reference checks."""
    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    schema["required"] = []
    return _schema_checked(copy.deepcopy(dict(partial)), schema)


def _schema_checked(cfg: dict, schema: dict) -> dict:
    """``cfg`` coerced, completed with the schema's defaults and validated (one-line error)."""
    cfg = coerce(cfg, schema, schema)
    errors = list(_Validator(schema).iter_errors(cfg))
    if errors:
        raise ConfigError(_describe(best_match(errors), schema))
    return cfg
