"""From an LLM's raw answer to a label set, exactly; and the answer's confidence (RQ6.3).

Parsing (the original artifact tested whether each label name was a *substring* of the answer,
so ``Waivers`` counted inside ``No Waivers`` and ``trade`` inside ``trade policy``):

1. The answer and the label names are normalised alike: Unicode NFKC, case-folded, typographic
   quotes and dashes made plain, runs of whitespace made one space.
2. The answer proper starts after the first ``Answer:`` marker (markdown emphasis allowed), or
   at the start of the text when there is none.
3. *List mode*: from there, label names are read one after the other, separated by commas,
   semicolons, ``and``, ``or``, ``&``, ``/``, quotes or emphasis. At each position the
   **longest** label name that matches **whole words** wins, so ``No Waivers`` is one label
   and ``Article 1`` never matches inside ``Article 10``. A parenthesis right after a label
   that does not start with a label name is a comment and is skipped (``Article 6 (right to a
   fair trial), Article 8``). The list ends at the first text
   that is not a label name (``.``, an explanation, an unknown label). ``None`` at the start
   is the empty set, given as an answer. A second list right after it on the same line that
   names another label (``Positive. Negative.``, ``Positive. Answer: Negative.``) contradicts
   it: no answer. An explanation after it (``Positive. Some would call it negative.``) is not
   a list and is ignored. A retraction on that line — a negation and another label that no
   negation stands right before (``Positive? No. Negative.``) — is no answer (``Positive, not
   Negative.`` stays Positive).
4. *Free-form mode*, when the list is empty: the first non-empty line of the answer proper is
   searched for whole-word label names, longest first, without overlaps ("The sentiment of this
   review is negative" → Negative). A negation on that line outside the label names (``not``,
   ``no``, ``never``, ``n't``, ..., and the prefixes ``non-``/``un-``: ``Non-toxic.``) makes it
   no answer: ``Not positive.`` must never read as Positive, nor ``Non-toxic.`` as toxic, and
   reading it as the other class would be a guess the parser does not make.
5. Official citation spellings of a label are read as the label: ``Article 1 of Protocol 1``
   (001 Table 6) also as ``Article 1 of Protocol No. 1`` (the Convention's own spelling, with
   ``No``, ``Nr.`` or ``Number``) and ``P1-1`` (the Court's short form, LexGLUE's class name).
6. A single-label dataset needs exactly one label: two or more is ambiguous, hence no answer.
   Nothing found is **no answer**: the empty set, status ``no_answer``, kept and counted (the
   oracle reports it as ``no_answer``, RQ1 Fig. 6).

Confidence of an answer: the probability the model gave to generating it, i.e. the product of
the probabilities of its generated tokens from the first one up to the token that completes the
parsed answer (``Answer: Positive`` — not the trailing text); for no answer, of every generated
token. Greedy decoding picks each token's most probable continuation, so this is the model's
certainty in the exact answer it gave, in 0..1 like the encoders' confidence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hinter.layout import MULTI_CLASS
from hinter.models.decisions import check_task_type
from hinter.prompt_spec import normalise, normalise_name  # label names and answers alike

ANSWER = "answer"  # one or more labels
NONE = "none"  # an explicit "None.": the empty set, given as an answer
NO_ANSWER = "no_answer"  # nothing parseable: the empty set, not an answer
ANSWER_STATUSES = (ANSWER, NONE, NO_ANSWER)

_MARKER = re.compile(r"answer\s*[*_]*\s*:")
_SEPARATOR = re.compile(r"(?:[\s,;&*_\"'`()\[\]{}/]|\band\b|\bor\b|:)+")
_NONE = re.compile(r"none\b")
_SPACE = re.compile(r"\s*")
# "non-toxic", "non toxic", "un-toxic": a prefixed negation is a negation (review N38)
_NEGATION = re.compile(r"\b(?:not|no|non|un|never|neither|nor|hardly|cannot|without)\b|n't\b")
_DIRECT_NEGATION = re.compile(r"(?:\b(?:not|no|never|non|un)|n't)[\s-]*$")  # "not Negative"
_SENTENCE_GAP = re.compile(r"[ .!?;,:*_\"'`()\[\]-]*")  # between two lists on one line
_OPEN = re.compile(r"[ ,;]*\(")  # a parenthesis after a label
_PROTOCOL = re.compile(r"article (\d+) of protocol (\d+)")  # ECHR citation (normalised name)
_NUMBER_WORDS = ("no.", "no", "nr.", "nr", "number")  # "Protocol No. 1"


def aliases(name: str) -> list[str]:
    """Other official spellings of a normalised label name (module docstring, 5)."""
    match = _PROTOCOL.fullmatch(name)
    if match is None:
        return []
    article, protocol = match.groups()
    spelled = [f"article {article} of protocol {no} {protocol}" for no in _NUMBER_WORDS]
    return [*spelled, f"p{protocol}-{article}"]


@dataclass(frozen=True)
class Answer:
    labels: tuple[int, ...]  # sorted label ids; empty for none / no answer
    status: str  # answer | none | no_answer
    end: int  # offset in the raw text just past the parsed answer (0 when none was found)


class AnswerParser:
    """Parses answers against one dataset's label names (see the module docstring)."""

    def __init__(self, label_names: Sequence[str], task_type: str):
        self.task_type = check_task_type(task_type)
        by_name: dict[str, int] = {}
        for i, name in enumerate(label_names):
            key = normalise_name(name)
            if not key:
                raise ValueError(f"label {i} has an empty name")
            if key in by_name:
                raise ValueError(f"labels {by_name[key]} and {i} have the same name {name!r}")
            by_name[key] = i
        for key, i in list(by_name.items()):
            for alias in aliases(key):
                by_name.setdefault(alias, i)  # a real label name always wins over an alias
        # longest first: a longer name always wins over a name it contains
        self.names = sorted(by_name.items(), key=lambda kv: (-len(kv[0]), kv[0]))

    @staticmethod
    def _bounded(text: str, start: int, end: int) -> bool:
        before = start == 0 or not text[start - 1].isalnum()
        after = end == len(text) or not text[end].isalnum()
        return before and after

    def _label_at(self, text: str, pos: int) -> tuple[int, int] | None:
        for name, label in self.names:
            end = pos + len(name)
            if text.startswith(name, pos) and self._bounded(text, pos, end):
                return label, end
        return None

    def _comment_end(self, text: str, pos: int) -> int | None:
        """The end of a parenthesised comment at ``pos`` (one that does not start with a label
        name and closes on its line), or None."""
        opened = _OPEN.match(text, pos)
        if opened is None:
            return None
        inner = _SPACE.match(text, opened.end()).end()
        if _NONE.match(text, inner) or self._label_at(text, inner) is not None:
            return None
        depth = 1
        for i in range(opened.end(), len(text)):
            if text[i] == "\n":
                return None
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                return i + 1
        return None

    def _list(self, text: str, pos: int) -> tuple[list[int], int, bool, int]:
        """Labels read one after the other from ``pos``; (labels, end, explicit None, where the
        list's text ends: after a skipped comment, else ``end``)."""
        labels: list[int] = []
        end = after = pos
        while True:
            while labels and (comment := self._comment_end(text, pos)) is not None:
                pos = after = comment
            skip = _SEPARATOR.match(text, pos)
            if skip:
                pos = skip.end()
            if not labels and _NONE.match(text, pos):
                return [], pos + 4, True, pos + 4
            found = self._label_at(text, pos)
            if found is None:
                return labels, end, False, max(end, after)
            label, pos = found
            end = after = pos
            if label not in labels:
                labels.append(label)

    def _scan(self, text: str, start: int, stop: int) -> tuple[list[int], int]:
        """Whole-word label names anywhere in text[start:stop], longest first, no overlaps."""
        taken: list[tuple[int, int]] = []
        found: dict[int, int] = {}
        for name, label in self.names:
            pos = text.find(name, start, stop)
            while pos != -1:
                end = pos + len(name)
                if self._bounded(text, pos, end) and not any(pos < b and a < end for a, b in taken):
                    taken.append((pos, end))
                    found[label] = max(found.get(label, 0), end)
                pos = text.find(name, pos + 1, stop)
        return sorted(found), max(found.values(), default=start)

    def _contradicted(self, text: str, end: int, labels: list[int]) -> bool:
        """A second list on the same line right after the answer names another label."""
        pos = _SENTENCE_GAP.match(text, end).end()
        marker = _MARKER.match(text, pos)
        if marker:
            pos = _SENTENCE_GAP.match(text, marker.end()).end()
        again, _, none, _ = self._list(text, pos)
        return none or any(label not in labels for label in again)

    def _retracted(self, text: str, after: int, labels: list[int]) -> bool:
        """The rest of the answer's line withdraws it (review N39): a negation, and a label the
        list did not give that no negation stands right before ("Positive? No. Negative.",
        "Positive isn't right; Negative." — but not "Positive, not negative.")."""
        stop = text.find("\n", after)
        stop = len(text) if stop == -1 else stop
        if not self._negated(text, after, stop):
            return False
        others, _ = self._scan(text, after, stop)
        for name, label in self.names:
            if label not in others or label in labels:
                continue
            for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text[after:stop]):
                if not _DIRECT_NEGATION.search(text, after, after + match.start()):
                    return True
        return False

    def _negated(self, text: str, start: int, stop: int) -> bool:
        """A negation word in text[start:stop] outside every label name."""
        masked = text[start:stop]
        for name, _ in self.names:  # label names may hold negations ("No Waivers")
            masked = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", masked)
        return _NEGATION.search(masked) is not None

    def parse(self, raw: str | None) -> Answer:
        if not raw:
            return Answer((), NO_ANSWER, 0)
        text, ends = normalise(raw)
        marker = _MARKER.search(text)
        start = marker.end() if marker else 0
        labels, end, none, after = self._list(text, start)
        if none:
            return Answer((), NONE, ends[end - 1])
        if labels and (
            self._contradicted(text, after, labels) or self._retracted(text, after, labels)
        ):
            return Answer((), NO_ANSWER, 0)
        if not labels:
            line_start = _SPACE.match(text, start).end()
            newline = text.find("\n", line_start)
            stop = len(text) if newline == -1 else newline
            labels, end = self._scan(text, line_start, stop)
            if labels and self._negated(text, line_start, stop):
                return Answer((), NO_ANSWER, 0)
        if not labels or (self.task_type == MULTI_CLASS and len(labels) > 1):
            return Answer((), NO_ANSWER, 0)
        return Answer(tuple(sorted(labels)), ANSWER, ends[end - 1])


def answer_confidence(
    answer: Answer, token_ends: Sequence[int], logprobs: Sequence[float]
) -> float:
    """The probability of the generated tokens that make up the answer (module docstring).

    ``token_ends[k]`` is the offset in the raw answer just past generated token ``k`` and
    ``logprobs[k]`` its natural-log probability.
    """
    if len(token_ends) != len(logprobs):
        raise ValueError("token_ends and logprobs differ in length")
    total = 0.0
    start = 0
    for end, logprob in zip(token_ends, logprobs, strict=True):
        if answer.status != NO_ANSWER and start >= answer.end:
            break
        total += float(logprob)
        start = end
    return float(math.exp(total))
