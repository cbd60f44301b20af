"""Grammatical validity of originals and mutants (RQ2, RQ3.3): one score, two checkers.

- :mod:`~hinter.grammar.scoring`: the score, ``100 * max(0, 1 - issues / words)``, the
  shared issue categories and which of them count (and why);
- :mod:`~hinter.grammar.checkers`: ``harper`` (offline, in process; the default) and
  ``languagetool`` (a LanguageTool server: the paper-faithful stand-in for Grammarly);
- :mod:`~hinter.grammar.cache`: scores cached by (checker, version, text hash);
- :mod:`~hinter.grammar.sample`: the balanced sample of originals, valid and discarded
  mutants of one (model, dataset);
- :mod:`~hinter.grammar.stage`: the workflow stage that draws, materialises, checks and
  writes the scores table;
- :mod:`~hinter.grammar.summary`: pooled (word-weighted) scores of groups of texts,
  with intervals from a bootstrap over original documents.

(Not to be confused with :mod:`hinter.demo.grammar`, the demo corpus's generator.)
"""

from hinter.grammar.checkers import CHECKERS, Checker, checker_settings, make_checker
from hinter.grammar.sample import SampleOptions, draw
from hinter.grammar.scoring import (
    CATEGORIES,
    COUNTED,
    Issue,
    count_words,
    counted_issues,
    pooled_score,
    score,
)
from hinter.grammar.stage import SCORES, score_sample
from hinter.grammar.summary import pooled_scores

__all__ = [
    "CATEGORIES",
    "CHECKERS",
    "COUNTED",
    "SCORES",
    "Checker",
    "Issue",
    "SampleOptions",
    "checker_settings",
    "count_words",
    "counted_issues",
    "draw",
    "make_checker",
    "pooled_score",
    "pooled_scores",
    "score",
    "score_sample",
]
