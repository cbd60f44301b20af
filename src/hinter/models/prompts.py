"""Prompts as data (``resources/prompts/``): few-shot examples resolved, chats rendered.

The prompt files (per dataset: few-shot examples, example words, named templates; the shared
chat format: the user turn "Question: … Text: …" and the answer "Answer: <labels>." or
"None.") are read and checked by :mod:`hinter.prompt_spec`.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hinter.errors import ConfigError, DataError
from hinter.prompt_spec import N_EXAMPLES, ChatFormat, PromptSpec, fill

log = logging.getLogger(__name__)

_WORD = re.compile(r"\S+")


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


def named_examples(spec: PromptSpec, named: Sequence[Mapping[str, Any]]) -> list[Example]:
    """The examples a user dataset names (``fewshot`` in its config, recorded in its
    ``meta.json`` by :func:`hinter.userdata.fewshot_record`), in the given order; they are the
    paper's (``by_content``) when their texts have the prompt file's digests, in its order."""
    if len(named) != N_EXAMPLES:
        raise DataError(f"{spec.dataset}: {len(named)} few-shot examples named, not {N_EXAMPLES}")
    digests = [e.sha256 for e in spec.examples]
    papers = all(d is not None for d in digests) and digests == [
        text_digest(item["text"]) for item in named
    ]
    return [
        Example(
            str(item["doc_id"]),
            -1,  # not a row of the train split (a file), or found by its id
            truncate_words(item["text"], spec.example_words),
            tuple(item["labels"]),
            by_content=papers,
        )
        for item in named
    ]


def resolve_examples(
    spec: PromptSpec,
    train: pa.Table,
    from_hub: bool = False,
    named: Sequence[Mapping[str, Any]] | None = None,
) -> list[Example]:
    """The few-shot examples of a dataset from its loaded train split (see module docstring).

    ``from_hub``: the data are the real dataset, so the paper's examples must be there: an index
    beyond the split, or a text digest found in no row, is a :class:`DataError`
    (:func:`check_paper_examples` then compares them with what the paper shows). ``named``: the
    examples a user dataset names (:func:`named_examples`), used as given. A fallback to the
    first train rows of distinct labels is logged as a warning: the prompt is then not the
    paper's (review 2026-11-28 G4).
    """
    if named is not None:
        return named_examples(spec, named)
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
        log.warning(
            "%s: the paper's few-shot examples are not in the train split; the first train "
            "rows of distinct labels stand in (%s): the prompt is not the paper's (name the "
            "examples with the dataset's 'fewshot' config key)",
            spec.dataset,
            ", ".join(ids[i] for i in chosen),
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
    return fill(text, values)  # literal substitution: never a format spec (review N17, N18)


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
