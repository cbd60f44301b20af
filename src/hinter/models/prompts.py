"""Prompts as data (``resources/prompts/``): templates, few-shot examples, rendered chats.

Per dataset, ``<dataset>.yaml`` holds the few-shot examples (001 Table 8: train-split indices, or
for IMDB the sha256 of each review's exact text), how many words of each example text the prompt
shows, and named templates (a system
instruction and a question; ``default`` is the paper's, 001 Table 7, the others are RQ6.2's
alternatives). ``format.yaml`` holds the chat format shared by every dataset: the user turn
("Question: … Text: …") and the answer ("Answer: <labels>." or "None.").

A prompt is a list of chat messages: the system instruction, one user/assistant pair per
example, and the user turn of the document. Every placeholder is filled (``{labels}`` with the
dataset's label names) and a template that leaves one unfilled is refused, so no prompt ever
carries a literal ``[LABELS]`` as the original artifact's ECtHR prompt did.

The examples are the train documents at the paper's indices when the split has them (the real
LexGLUE datasets). IMDB's are found by content: the artifact's indices are rows of a Kaggle CSV
that mixes aclImdb's train and test, so no hub index can name them; the sha256 of each review's
text finds it in whatever order the source has, and a missing one stops the run. Otherwise (the
demo's small splits) the examples are the first documents with distinct label sets, in split
order, completed by the next ones. They are shown to the model, so they are excluded from
testing it (:func:`excluded_documents`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from hinter.errors import ConfigError, DataError

log = logging.getLogger(__name__)

PROMPTS_DIR = Path(__file__).resolve().parents[3] / "resources" / "prompts"
DEFAULT_TEMPLATE = "default"
N_EXAMPLES = 3
_PLACEHOLDERS = {"labels", "question", "text"}
_WORD = re.compile(r"\S+")


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
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as exc:
        raise ConfigError(f"{where}: malformed placeholder ({exc})") from None


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


# -- few-shot examples ----------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """A resolved few-shot example: a train document, shown truncated, with its gold labels."""

    doc_id: str
    index: int  # row of the train split
    text: str  # as shown in the prompt
    labels: tuple[int, ...]
    by_content: bool = False  # found by its text's digest


def truncate_words(text: str, n_words: int) -> str:
    """The text up to its ``n_words``-th whitespace-separated word (spacing kept), plus " …"
    when something was cut."""
    for i, match in enumerate(_WORD.finditer(text), start=1):
        if i == n_words:
            rest = text[match.end() :]
            return text[: match.end()] + (" …" if rest.strip() else "")
    return text.strip()


def text_digest(text: str) -> str:
    """sha256 of a text's UTF-8 bytes: how a few-shot example is named by content."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_examples(spec: PromptSpec, train: pa.Table, from_hub: bool = False) -> list[Example]:
    """The few-shot examples of a dataset from its loaded train split (see module docstring).

    ``from_hub``: the data are the real dataset, so the paper's examples must be there: an index
    beyond the split, or a text digest found in no row, is a :class:`DataError`
    (:func:`check_paper_examples` then compares them with what the paper shows).
    """
    ids = train.column("doc_id").to_pylist()
    texts = train.column("text").to_pylist()
    labels = train.column("labels").to_pylist()
    n = len(ids)
    by_content = spec.examples[0].sha256 is not None
    chosen: list[int] | None = None
    if by_content:
        chosen = _rows_by_digest(spec, texts, from_hub)
    else:
        indices = [e.index for e in spec.examples]
        if all(i < n for i in indices):
            chosen = indices
        elif from_hub:
            raise DataError(
                f"{spec.source}: example index {max(indices)} is beyond the {n} rows of the "
                f"{spec.dataset} train split"
            )
    found_by_content = by_content and chosen is not None
    if chosen is None:
        chosen = _distinct_label_rows(labels, N_EXAMPLES)
        if len(chosen) < N_EXAMPLES:
            raise DataError(
                f"{spec.dataset}: the train split has {n} documents; {N_EXAMPLES} few-shot "
                "examples are needed"
            )
    out = []
    for i in chosen:
        if not isinstance(texts[i], str) or not texts[i].strip():
            raise DataError(f"{spec.dataset} train row {i}: a few-shot example has no text")
        out.append(
            Example(
                ids[i],
                i,
                truncate_words(texts[i], spec.example_words),
                tuple(labels[i]),
                by_content=found_by_content,
            )
        )
    return out


def _rows_by_digest(spec: PromptSpec, texts: Sequence[Any], from_hub: bool) -> list[int] | None:
    """Rows whose text has each example's digest (the first such row), in the spec's order;
    None when one is missing and the data are not the real dataset (the demo)."""
    wanted = {e.sha256: k for k, e in enumerate(spec.examples)}
    found: dict[str, int] = {}
    for row, text in enumerate(texts):
        if isinstance(text, str):
            digest = text_digest(text)
            if digest in wanted and digest not in found:
                found[digest] = row
                if len(found) == len(wanted):
                    break
    missing = [e for e in spec.examples if e.sha256 not in found]
    if missing and from_hub:
        raise DataError(
            f"{spec.source}: few-shot example {missing[0].name} is not in the {spec.dataset} "
            f"train split ({len(texts)} rows searched by content)"
        )
    if missing:
        return None
    return [found[e.sha256] for e in spec.examples]


def check_paper_examples(
    spec: PromptSpec, examples: Sequence[Example], label_names: Sequence[str]
) -> list[str]:
    """Where the resolved examples differ from what the paper shows (001 Table 8): the opening
    words of an example named by index, and the labels of every example."""
    problems = []
    for want, got in zip(spec.examples, examples, strict=True):
        if want.sha256 is None and want.index != got.index:
            continue  # not the paper's rows (demo)
        if want.sha256 is not None and not got.by_content:
            continue  # the demo's stand-ins
        if want.starts and not " ".join(got.text.split()).startswith(want.starts):
            problems.append(f"{want.name} does not start with {want.starts!r}")
        if want.answer is not None:
            names = sorted(label_names[i] for i in got.labels)
            if names != sorted(want.answer):
                problems.append(f"{want.name} has labels {names}, the paper {list(want.answer)}")
    return problems


def _distinct_label_rows(labels: Sequence[Sequence[int]], k: int) -> list[int]:
    """First rows with label sets not seen before, completed by the next rows, in that order
    (binary labels give A, B, A, like the paper's IMDB examples, not A, A, B)."""
    chosen: list[int] = []
    seen: set[tuple[int, ...]] = set()
    for i, row in enumerate(labels):
        key = tuple(sorted(row or []))
        if key not in seen:
            seen.add(key)
            chosen.append(i)
        if len(chosen) == k:
            return chosen
    for i in range(len(labels)):
        if len(chosen) == k:
            break
        if i not in chosen:
            chosen.append(i)
    return chosen


def excluded_documents(examples: Sequence[Example]) -> list[str]:
    """Documents shown to the model as examples: never tested with it."""
    return [e.doc_id for e in examples]


# -- rendering ------------------------------------------------------------------------------


def _fill(text: str, values: Mapping[str, str]) -> str:
    return text.format_map(dict(values))


def answer_text(labels: Sequence[int], label_names: Sequence[str], fmt: ChatFormat) -> str:
    """The expected answer for a label set: "Answer: A, B." (label order), or "None."."""
    if not labels:
        return fmt.none
    return _fill(fmt.answer, {"labels": ", ".join(label_names[i] for i in sorted(labels))})


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt of one (dataset, template): every message but the document's."""

    dataset: str
    template: str
    context: tuple[dict[str, str], ...]  # system + few-shot turns
    user: str  # the last user turn, with "{text}" where the document goes
    examples: tuple[Example, ...]
    answer_prefix: str = ""  # the start of the model's reply, primed (``models.llms.*``)

    def messages(self, document: str) -> list[dict[str, str]]:
        """The chat for one document (the document inserted verbatim, never formatted)."""
        before, _, after = self.user.partition("{text}")
        return [*map(dict, self.context), {"role": "user", "content": before + document + after}]

    @property
    def digest(self) -> str:
        """Hash of everything the model reads besides the document (for cache keys)."""
        parts: list[Any] = [list(self.context), self.user]
        if self.answer_prefix:  # (no priming keeps the digests of earlier runs)
            parts.append({"answer_prefix": self.answer_prefix})
        body = json.dumps(parts, ensure_ascii=False)
        return hashlib.sha256(body.encode()).hexdigest()


def build_prompt(
    spec: PromptSpec,
    template: str,
    label_names: Sequence[str],
    examples: Sequence[Example],
    answer_prefix: str = "",
) -> Prompt:
    """Fill a template for the dataset's label names and examples; ``answer_prefix`` is the
    start of the reply the model is primed with (none by default, as in the paper)."""
    tpl = spec.template(template)
    values = {"labels": ", ".join(label_names)}
    system = _fill(tpl.system, values)
    question = _fill(tpl.question, values)
    fmt = spec.format

    def user(text: str) -> str:
        return fmt.user.replace("{question}", question).replace("{text}", text)

    context: list[dict[str, str]] = [{"role": "system", "content": system}]
    for ex in examples:
        context.append({"role": "user", "content": user(ex.text)})
        context.append({"role": "assistant", "content": answer_text(ex.labels, label_names, fmt)})
    last = user("{text}")
    # Only what the templates wrote is checked: a document may contain anything.
    for text in (system, question, last.replace("{text}", "", 1)):
        _check_filled(text, f"{spec.source} ({template})")
    return Prompt(spec.dataset, template, tuple(context), last, tuple(examples), answer_prefix)


def _check_filled(text: str, where: str) -> None:
    left = re.search(r"\[LABELS\]|\{(labels|question|text)\}", text)
    if left:
        raise ConfigError(f"{where}: placeholder {left.group(0)} left unfilled")


def label_names_of(meta: Mapping[str, Any]) -> list[str]:
    """The names the prompts and the answer parser use: display names (resources/labels),
    else the dataset's own label names."""
    names = meta.get("display_names") or meta.get("label_names")
    if not names:
        raise DataError(f"meta.json of {meta.get('dataset', 'the dataset')}: no label names")
    return list(names)
