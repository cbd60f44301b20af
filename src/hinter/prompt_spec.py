"""A dataset's prompt file (``resources/prompts/``), read and checked: templates and examples.

Per dataset, ``<dataset>.yaml`` holds the few-shot examples (001 Table 8: train-split indices, or
for IMDB the sha256 of each review's exact text), how many words of each example text the prompt
shows, and named templates (a system instruction and a question; ``default`` is the paper's,
001 Table 7, the others are RQ6.2's alternatives). ``format.yaml`` holds the chat format shared
by every dataset. Every problem is one ConfigError naming the file and key.

This is the files' format only, light enough for config validation
(:func:`hinter.config.validate_config` checks RQ6's template names here); resolving the examples
and rendering the chats is :mod:`hinter.models.prompts`'.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hinter.errors import ConfigError
from hinter.paths import RESOURCES

PROMPTS_DIR = RESOURCES / "prompts"
DEFAULT_TEMPLATE = "default"
N_EXAMPLES = 3


@dataclass(frozen=True)
class ExampleSpec:
    """A few-shot example as the paper names it: a train index, or the sha256 of its exact text
    (``source`` names the original file, for messages); and what the paper shows."""

    index: int | None
    starts: str | None = None
    answer: tuple[str, ...] | None = None
    sha256: str | None = None
    source: str | None = None

    @property
    def name(self) -> str:
        if self.sha256 is not None:
            return f"{self.source or 'review'} (sha256 {self.sha256[:16]}…)"
        return f"train row {self.index}"


@dataclass(frozen=True)
class Template:
    name: str
    system: str
    question: str


@dataclass(frozen=True)
class ChatFormat:
    user: str
    answer: str
    none: str


@dataclass(frozen=True)
class PromptSpec:
    """One dataset's prompt file, checked."""

    dataset: str
    examples: tuple[ExampleSpec, ...]
    example_words: int
    templates: Mapping[str, Template]
    format: ChatFormat
    source: str  # the file, for messages

    def template(self, name: str) -> Template:
        try:
            return self.templates[name]
        except KeyError:
            known = ", ".join(self.templates)
            raise ConfigError(
                f"{self.source}: no prompt template {name!r} (templates: {known})"
            ) from None


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: prompt file not found") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a prompt file must be a mapping")
    return data


def _fields(text: str, where: str) -> set[str]:
    """The placeholders of a template. Only plain ``{name}`` is a placeholder: a conversion
    (``{labels!r}``) or a format spec (``{labels:>400000000}``, ``{labels:%}``) is refused, as
    it would pad the prompt to gigabytes or fail only when the prompt is built (N17, N18)."""
    names = set()
    try:
        for _, name, spec, conversion in string.Formatter().parse(text):
            if name is None:
                continue
            if conversion is not None or spec:
                shown = "{" + name + (f"!{conversion}" if conversion else "") + (
                    f":{spec}" if spec else "") + "}"  # fmt: skip
                raise ConfigError(
                    f"{where}: placeholder {shown[:60]} has a "
                    f"{'conversion' if conversion else 'format spec'}; write {{{name}}} alone"
                )
            names.add(name)
    except ValueError as exc:
        raise ConfigError(f"{where}: malformed placeholder ({exc})") from None
    return names


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each checked ``{name}`` replaced by its value, literally: no format spec,
    conversion or attribute is ever interpreted (the file was checked by :func:`_fields`)."""
    out = []
    for literal, name, _, _ in string.Formatter().parse(text):
        out.append(literal)
        if name is not None:
            out.append(values[name])
    return "".join(out)


def _text(data: Mapping, key: str, where: str, allowed: set[str]) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}.{key}: a non-empty string is required")
    unknown = _fields(value, f"{where}.{key}") - allowed
    if unknown:
        raise ConfigError(
            f"{where}.{key}: unknown placeholder {{{sorted(unknown)[0]}}} "
            f"(allowed: {', '.join('{' + a + '}' for a in sorted(allowed))})"
        )
    return value


def load_format(prompts_dir: str | Path | None = None) -> ChatFormat:
    path = Path(prompts_dir or PROMPTS_DIR) / "format.yaml"
    data = _read_yaml(path)
    fmt = ChatFormat(
        user=_text(data, "user", str(path), {"question", "text"}),
        answer=_text(data, "answer", str(path), {"labels"}),
        none=_text(data, "none", str(path), set()),
    )
    if "text" not in _fields(fmt.user, str(path)):
        raise ConfigError(f"{path}.user: the user turn needs a {{text}} placeholder")
    return fmt


def load_prompt_spec(dataset: str, prompts_dir: str | Path | None = None) -> PromptSpec:
    """Read and check ``<prompts_dir>/<dataset>.yaml`` (one-line ConfigError naming the key)."""
    folder = Path(prompts_dir or PROMPTS_DIR)
    path = folder / f"{dataset}.yaml"
    data = _read_yaml(path)
    where = str(path)
    unknown = set(data) - {"examples", "example_words", "templates"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    raw_examples = data.get("examples")
    if not isinstance(raw_examples, list) or len(raw_examples) != N_EXAMPLES:
        raise ConfigError(f"{where}.examples: a list of {N_EXAMPLES} examples is required")
    examples = [
        _example_spec(item, f"{where}.examples[{i}]") for i, item in enumerate(raw_examples)
    ]
    if len({e.sha256 is None for e in examples}) > 1:
        raise ConfigError(
            f"{where}.examples: name every example by 'index' or every one by 'sha256'"
        )
    words = data.get("example_words", 150)
    if not isinstance(words, int) or words < 1:
        raise ConfigError(f"{where}.example_words: a positive integer is required")
    raw_templates = data.get("templates")
    if not isinstance(raw_templates, dict) or DEFAULT_TEMPLATE not in raw_templates:
        raise ConfigError(f"{where}.templates: a '{DEFAULT_TEMPLATE}' template is required")
    templates = {}
    for name, spec in raw_templates.items():
        key = f"{where}.templates.{name}"
        if not re.fullmatch(r"[A-Za-z0-9_]+", str(name)):
            raise ConfigError(f"{key}: template names use letters, digits and _")
        if not isinstance(spec, dict) or set(spec) - {"system", "question"}:
            raise ConfigError(f"{key}: a mapping with 'system' and 'question' is required")
        templates[name] = Template(
            name,
            _text(spec, "system", key, {"labels"}).strip(),
            _text(spec, "question", key, {"labels"}).strip(),
        )
    return PromptSpec(dataset, tuple(examples), words, templates, load_format(folder), source=where)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _example_spec(item: Any, key: str) -> ExampleSpec:
    if not isinstance(item, dict) or set(item) - {"index", "sha256", "source", "starts", "answer"}:
        raise ConfigError(f"{key}: a mapping with 'index' or 'sha256' (and 'answer') is required")
    index, digest = item.get("index"), item.get("sha256")
    if (index is None) == (digest is None):
        raise ConfigError(f"{key}: give either 'index' (train-split row) or 'sha256' (of the text)")
    if index is not None and (not isinstance(index, int) or index < 0):
        raise ConfigError(f"{key}.index: an integer >= 0 (train-split row) is required")
    if digest is not None and not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
        raise ConfigError(f"{key}.sha256: 64 lowercase hex digits are required")
    answer = item.get("answer")
    if answer is not None and not (
        isinstance(answer, list) and all(isinstance(a, str) for a in answer)
    ):
        raise ConfigError(f"{key}.answer: a list of label names is required")
    return ExampleSpec(
        index,
        item.get("starts"),
        tuple(answer) if answer is not None else None,
        digest,
        item.get("source"),
    )


def template_names(dataset: str, prompts_dir: str | Path | None = None) -> list[str]:
    return list(load_prompt_spec(dataset, prompts_dir).templates)


# -- label names: compared as the answer parser reads them (hinter.models.answers) ----------

_TRANSLATE = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "–": "-",
        "—": "-",
        "−": "-",
    }
)
_LINE_BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"


def normalise(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the end offset in ``text`` of the
    character it came from (so a match can be mapped back to the raw answer). A run of
    whitespace becomes one newline if it holds a line break, else one space."""
    out: list[str] = []
    ends: list[int] = []
    gap: list | None = None  # pending whitespace run: [character, end offset]
    for i, char in enumerate(text):
        for c in unicodedata.normalize("NFKC", char).translate(_TRANSLATE).casefold():
            if c.isspace():
                if gap is None:
                    gap = [" ", i + 1]
                if c in _LINE_BREAKS:
                    gap = ["\n", i + 1]
                continue
            if gap is not None and out:
                out.append(gap[0])
                ends.append(gap[1])
            gap = None
            out.append(c)
            ends.append(i + 1)
    return "".join(out), ends


def normalise_name(name: str) -> str:
    return normalise(name)[0]


MAX_LABEL_CHARS = 200


def check_label_names(names: Sequence[str], where: str) -> None:
    """Label names an answer can tell apart: no two equal once normalised as answers are (case,
    Unicode width, typographic quotes and dashes, spaces), e.g. ``Positive`` and ``positive``
    (review 2026-11-28, N22: they were merged into one label, then the run failed); none named
    ``None`` (the answer for no label, N23) or longer than :data:`MAX_LABEL_CHARS` (N21)."""
    seen: dict[str, str] = {}
    for name in names:
        key = normalise_name(str(name))
        if len(str(name)) > MAX_LABEL_CHARS:  # N21: every message naming it would be huge
            raise ConfigError(
                f"{where}: a label name of {len(str(name)):,} characters ({str(name)[:40]!r}…); "
                f"at most {MAX_LABEL_CHARS}"
            )
        if key == "none":  # N23: "Answer: None." is the empty answer, never this label
            raise ConfigError(
                f"{where}: a label named {str(name)!r} cannot be answered ('None' is the answer "
                "for no label); rename it"
            )
        if key in seen:
            raise ConfigError(
                f"{where}: labels {seen[key]!r} and {str(name)!r} are the same name to the answer "
                "parser (case, width, quotes and dashes are ignored); rename one"
            )
        seen[key] = str(name)
