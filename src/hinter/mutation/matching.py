"""Finding dictionary terms in a text: one Aho–Corasick pass for every attribute at once.

Matching is literal (a term with ``+``, ``(`` or ``.`` means those characters), case-insensitive,
whole-word and leftmost-longest per attribute, so ``trans women`` is one occurrence rather than
an occurrence of ``women``. Attributes are matched independently: the same span may belong to a
term of two attributes, and the intersectional suites skip (and count) such overlaps.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import ahocorasick

# Whitespace that may separate the words of a multi-word term (what str.split splits on).
_SPACES = "".join(c for c in map(chr, range(0x3001)) if c.isspace() and c != " ")
_SPACE_TABLE = str.maketrans(dict.fromkeys(_SPACES, " "))

Span = tuple[int, int]


def match_key(term: str) -> str:
    """The matching key of a dictionary term: lower-case, words separated by single spaces."""
    return " ".join(term.split()).lower()


def is_word_char(char: str) -> bool:
    """Letters, digits, underscore and combining marks belong to words (like regex ``\\w``)."""
    return char.isalnum() or char == "_" or unicodedata.category(char).startswith("M")


def fold(text: str) -> str:
    """Lower-case ``text`` without changing its length, with every whitespace a plain space.

    A few characters lower-case to two code points (``İ``); they are kept as they are so that
    offsets into the folded text are offsets into the original.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(c if len(low := c.lower()) != 1 else low for c in text)
    return lowered.translate(_SPACE_TABLE)


def transfer_case(occurrence: str, source: str, target: str, sentence_start: bool = False) -> str:
    """``target`` written as a reader would write it in place of ``occurrence``.

    ``source`` and ``target`` are the terms' canonical forms (the dictionary's: how each is
    written mid-sentence, ``Native American``, ``people with mental illness``, ``CEO``), and
    ``occurrence`` is the text matched for ``source``:

    - written as ``source`` itself → ``target`` (at a sentence start, with its first letter
      capitalised when ``source`` begins with a capital: ``British`` → ``Mixed race``);
    - lower-case → ``target``;
    - UPPER (two or more letters) → ``TARGET``;
    - ``source`` with its first letter capitalised (a sentence start) → ``target`` so too:
      ``People`` → ``People with mental illness``, never ``People With Mental Illness``;
    - Title Case of a multi-word ``source`` (a heading) → every word of ``target`` capitalised;
    - anything else → ``target``, capitalised when the occurrence begins with a capital.

    Capitals of the canonical ``target`` are never lowered (``British`` → ``Native American``,
    not ``Native american``), except by the UPPER rule, which only raises.
    """
    cased = [c for c in occurrence if _is_cased(c)]
    if not cased:
        return target
    if occurrence == source:
        return _capitalise(target) if sentence_start and cased[0].isupper() else target
    if all(c.islower() for c in cased):
        return target
    if len(cased) >= 2 and all(c.isupper() for c in cased):
        return target.upper()
    if occurrence == _capitalise(source):
        return _capitalise(target)
    words = occurrence.split()
    if len(words) > 1 and all(_is_capitalised(w) for w in words):
        return " ".join(_capitalise(w) for w in target.split(" "))
    return _capitalise(target) if cased[0].isupper() else target


_SENTENCE_END = ".!?…"
_OPENERS = "\"'“”‘’«»()[]"  # quotes and brackets between a sentence end and the next word
_LINE_BREAK_TAG = re.compile(r"<br\s*/?>\Z", re.IGNORECASE)  # IMDB's line breaks


def at_sentence_start(text: str, start: int) -> bool:
    """Whether the word at ``text[start]`` begins a sentence: before it, past whitespace,
    quotes, brackets and ``<br />`` tags, comes the text's start, a sentence-final character or
    a line break. Looks back only over that gap (cheap on long documents)."""
    i = start
    while i > 0:
        c = text[i - 1]
        if c == "\n":
            return True
        if c.isspace() or c in _OPENERS:
            i -= 1
        elif c == ">" and _LINE_BREAK_TAG.search(text, max(0, i - 8), i):
            return True
        else:
            return c in _SENTENCE_END
    return True


def _is_cased(c: str) -> bool:
    return c.lower() != c.upper()


def _is_capitalised(word: str) -> bool:
    cased = [c for c in word if _is_cased(c)]
    return bool(cased) and cased[0].isupper() and all(c.islower() for c in cased[1:])


def _capitalise(text: str) -> str:
    for i, c in enumerate(text):
        if _is_cased(c):
            return text[:i] + c.upper() + text[i + 1 :]
    return text


@dataclass(frozen=True)
class _Term:
    key: str
    attributes: tuple[str, ...]
    length: int
    word_start: bool  # the term starts with a word character: needs a boundary before it
    word_end: bool


class Matcher:
    """Every term of every attribute, compiled once into one Aho–Corasick automaton."""

    def __init__(self, terms: Mapping[str, Iterable[str]]):
        by_key: dict[str, list[str]] = {}
        for attribute, attribute_terms in terms.items():
            for term in attribute_terms:
                key = match_key(term)
                if not key:
                    raise ValueError(f"empty term in attribute {attribute!r}")
                owners = by_key.setdefault(key, [])
                if attribute not in owners:
                    owners.append(attribute)
        self.attributes = tuple(terms)
        self._automaton = ahocorasick.Automaton()
        for key, owners in by_key.items():
            self._automaton.add_word(
                key,
                _Term(key, tuple(owners), len(key), is_word_char(key[0]), is_word_char(key[-1])),
            )
        if by_key:
            self._automaton.make_automaton()
        self._empty = not by_key

    def find(
        self,
        text: str,
        end: int | None = None,
        attributes: Iterable[str] | None = None,
        folded: str | None = None,
    ) -> dict[str, dict[str, list[Span]]]:
        """Occurrences per attribute and term key: whole words ending at or before ``end``.

        Within an attribute the occurrences are leftmost-longest and never overlap; the
        word-boundary test looks at the full text, so a window ending inside a word hides it.
        """
        wanted = set(self.attributes if attributes is None else attributes)
        found: dict[str, list[tuple[int, int, str]]] = {a: [] for a in wanted}
        stop = len(text) if end is None else min(end, len(text))
        if self._empty or stop <= 0:
            return {a: {} for a in wanted}
        haystack = fold(text) if folded is None else folded
        n = len(text)
        for last, term in self._automaton.iter(haystack, 0, stop):
            start = last - term.length + 1
            after = last + 1
            if term.word_start and start > 0 and is_word_char(text[start - 1]):
                continue
            if term.word_end and after < n and is_word_char(text[after]):
                continue
            for attribute in term.attributes:
                if attribute in wanted:
                    found[attribute].append((start, after, term.key))
        return {a: _leftmost_longest(matches) for a, matches in found.items()}


def _leftmost_longest(matches: list[tuple[int, int, str]]) -> dict[str, list[Span]]:
    """Greedy left-to-right choice of the longest match at each position; no overlaps."""
    matches.sort(key=lambda m: (m[0], -m[1]))
    chosen: dict[str, list[Span]] = {}
    previous_end = 0
    for start, end, key in matches:
        if start >= previous_end:
            chosen.setdefault(key, []).append((start, end))
            previous_end = end
    return chosen
