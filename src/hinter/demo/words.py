"""The demo grammar's word lists (``resources/demo/words.tsv``): words outside the dictionary.

Each row is ``list<TAB>word``; a word has as many ``/``-separated fields as its list says
(``FIELDS``). The lists keep the file's order, which the seeded draws depend on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from hinter.demo.tags import DEP_LABELS, PTB_TAGS
from hinter.errors import DataError

VERB_FORMS = ("past", "participle", "base", "present")
#: The fields of one word of each list (a one-field word is a plain string).
FIELDS: dict[str, tuple[str, ...]] = {
    "surnames": ("text",),
    "neutral_persons": ("text",),
    "neutral_plurals": ("text",),
    "things": ("text",),
    "things_pl": ("text",),
    "thing_adj": ("text",),
    "verbs_person": VERB_FORMS,
    "verbs_thing": VERB_FORMS,
    "verbs_intrans": ("text",),
    "verbs_plural_present": ("text",),
    "verbs_ditrans": ("text",),
    "verbs_say": ("text",),
    "verbs_reflexive": ("text",),
    "adj_pred": ("text",),
    "adverbs": ("text",),
    "places": ("text",),
    "quantifiers": ("text", "tag", "dep"),
    "positive": ("text",),
    "negative": ("text",),
    "like_pos": ("text",),
    "like_neg": ("text",),
    "degree": ("text",),
    "film_nouns": ("text",),
    "film_parts": ("text",),
}

Word = str | tuple[str, ...]


def read_tsv(path: Path) -> Iterable[tuple[int, list[str]]]:
    """(1-based line number, columns) of the data rows of a resources/demo file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    for n, line in enumerate(lines, 1):
        if line.strip() and not line.startswith("#"):
            yield n, line.split("\t")


@dataclass(frozen=True)
class Words:
    """One tuple per list of ``FIELDS``, in file order."""

    surnames: tuple[str, ...]
    neutral_persons: tuple[str, ...]
    neutral_plurals: tuple[str, ...]
    things: tuple[str, ...]
    things_pl: tuple[str, ...]
    thing_adj: tuple[str, ...]
    verbs_person: tuple[tuple[str, str, str, str], ...]
    verbs_thing: tuple[tuple[str, str, str, str], ...]
    verbs_intrans: tuple[str, ...]
    verbs_plural_present: tuple[str, ...]
    verbs_ditrans: tuple[str, ...]
    verbs_say: tuple[str, ...]
    verbs_reflexive: tuple[str, ...]
    adj_pred: tuple[str, ...]
    adverbs: tuple[str, ...]
    places: tuple[str, ...]
    quantifiers: tuple[tuple[str, str, str], ...]
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    like_pos: tuple[str, ...]
    like_neg: tuple[str, ...]
    degree: tuple[str, ...]
    film_nouns: tuple[str, ...]
    film_parts: tuple[str, ...]

    def like(self, polarity: str) -> tuple[str, ...]:
        """Verbs of liking ('pos') or disliking ('neg')."""
        return self.like_pos if polarity == "pos" else self.like_neg

    @classmethod
    def load(cls, path: Path) -> Words:
        lists: dict[str, list[Word]] = {name: [] for name in FIELDS}
        for n, cols in read_tsv(path):
            where = f"{path}:{n}"
            if len(cols) != 2:
                raise DataError(f"{where}: {len(cols)} columns, expected 2 (list, word)")
            name, word = cols
            if name not in FIELDS:
                raise DataError(f"{where}: unknown list {name!r} (one of {', '.join(FIELDS)})")
            parts = tuple(word.split("/"))
            expected = FIELDS[name]
            if len(parts) != len(expected) or not all(p.strip() == p != "" for p in parts):
                raise DataError(f"{where}: {word!r} is not a word of {name} ({'/'.join(expected)})")
            if name == "quantifiers" and (parts[1] not in PTB_TAGS or parts[2] not in DEP_LABELS):
                raise DataError(f"{where}: {word!r}: unknown PTB tag or dependency label")
            value: Word = parts if len(parts) > 1 else parts[0]
            if value in lists[name]:
                raise DataError(f"{where}: {word!r} is already in {name} (it would be drawn twice)")
            lists[name].append(value)
        empty = [name for name, words in lists.items() if not words]
        if empty:
            raise DataError(f"{path}: no words in the list(s) {', '.join(empty)}")
        return cls(**{f.name: tuple(lists[f.name]) for f in fields(cls)})
