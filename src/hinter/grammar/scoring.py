"""The grammatical validity score (RQ2, RQ3.3), defined once for every checker.

    score = 100 * max(0, 1 - counted issues / words)

- *words*: runs of letters or digits, with inner apostrophes and hyphens (``don't``,
  ``forty-two``), counted by :func:`count_words` — the same count whichever checker runs;
- *issues*: the checker's findings, each mapped to one of :data:`CATEGORIES`; only
  :data:`COUNTED` categories lower the score.

Why these categories count: the score asks whether a text is *grammatical*, and a mutation
changes grammar (``a Andorran``, ``his`` -> ``him``, ``she were``), punctuation next to the
swapped words, and capitalisation (case transfer); those are ``grammar``, ``punctuation`` and
``casing``. Not counted: ``spelling`` (a checker's vocabulary, not grammar: legal texts are full
of names, and the dictionary inserts demonyms a checker may not know, so an unknown word would
penalise a mutant for the checker's lexicon), ``typography`` (spacing and quotes of the source
text, which mutation never touches), ``style`` (taste: redundancy, readability, regional
variants) and ``other``. Every category's count is kept next to the score, so another choice
can be evaluated from the same table.

The pooled score of a set of texts, ``100 * (1 - sum(issues) / sum(words))``, is the
word-weighted mean of their scores (when none is clipped at 0): the paper's "weighted mean".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

CATEGORIES = ("grammar", "spelling", "punctuation", "casing", "typography", "style", "other")
COUNTED = ("grammar", "punctuation", "casing")

_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


@dataclass(frozen=True)
class Issue:
    """One finding of a checker: the shared category and the checker's own rule name."""

    category: str
    rule: str
    start: int = 0
    length: int = 0

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown issue category {self.category!r}")


def count_words(text: str) -> int:
    """Words of ``text``: letter/digit runs, joined across inner apostrophes and hyphens."""
    return len(_WORD.findall(text))


def counted_issues(counts: Mapping[str, int]) -> int:
    """The issues that lower the score (:data:`COUNTED` categories)."""
    return int(sum(counts.get(c, 0) for c in COUNTED))


def score(issues: int, words: int) -> float:
    """``100 * max(0, 1 - issues / words)``; NaN for a text without words."""
    if words <= 0:
        return math.nan
    return 100.0 * max(0.0, 1.0 - issues / words)


def pooled_score(issues: Iterable[int], words: Iterable[int]) -> float:
    """The score of a set of texts pooled: ``100 * (1 - sum(issues) / sum(words))``."""
    total_issues = sum(int(i) for i in issues)
    total_words = sum(int(w) for w in words)
    return score(total_issues, total_words)
