"""The paper's comparison of two parses: tolerantTableComp (Alg. 4) and the per-sentence verdict.

Kept free of spaCy so that the semantics can be pinned by unit tests on hand-made sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

# Reason codes of the validity table (hinter.tables.VALIDITY), in the order they are checked.
OK = "ok"
SENTENCE_COUNT = "sentence_count"
TOO_LONG = "too_long"
POS = "pos"
DEP = "dep"
DISABLED = "disabled"
REASONS = (OK, SENTENCE_COUNT, TOO_LONG, POS, DEP, DISABLED)


class Parse(NamedTuple):
    """What the invariant reads from a parsed sentence: PTB tags and dependency labels."""

    tags: tuple[str, ...]
    deps: tuple[str, ...]


class Verdict(NamedTuple):
    """Validity of one mutant; ``sentence_index`` names the failing sentence (None if none)."""

    valid: bool
    reason: str
    sentence_index: int | None


VALID = Verdict(True, OK, None)
DISCARDED_SENTENCE_COUNT = Verdict(False, SENTENCE_COUNT, None)


def tolerant_errors(s1: Sequence[str], s2: Sequence[str]) -> tuple[int, int]:
    """Paper Algorithm 4 lines 1-20, literally: ``(errors, error limit)`` of two sequences.

    On a mismatch the longer sequence may skip one extra element, at most ``limit`` times;
    unmatched leftovers count as errors. (So ``errors >= limit`` always: a shift follows every
    error until the limit is reached, and the leftovers make up the unused shifts.)
    """
    i1 = 0
    i2 = 0
    st1 = len(s1)
    st2 = len(s2)
    error_limit = abs(st1 - st2)
    error = 0
    shift = 0
    while i1 < st1 and i2 < st2:
        if s1[i1] != s2[i2]:
            error += 1
            if shift < error_limit:
                shift += 1
                if st1 > st2:
                    i1 += 1
                elif st1 < st2:
                    i2 += 1
        i1 += 1
        i2 += 1
    error += (st1 - i1) + (st2 - i2)
    return error, error_limit


def tolerant_table_comp(s1: Sequence[str], s2: Sequence[str]) -> bool:
    """Paper Algorithm 4: similar within a tolerance of ``|len(s1) - len(s2)|`` (line 21).

    Equal lengths therefore require an exact match, while a single inserted token
    (``man`` -> ``disabled man``) passes.
    """
    error, error_limit = tolerant_errors(s1, s2)
    return error <= error_limit


def compare_parses(original: Parse, mutant: Parse) -> str | None:
    """Alg. 3 lines 14-21 for one sentence pair: ``"pos"``, ``"dep"`` or None when similar."""
    if not tolerant_table_comp(original.tags, mutant.tags):
        return POS
    if not tolerant_table_comp(original.deps, mutant.deps):
        return DEP
    return None


def too_long(original_sentence: str, mutant_sentence: str, max_chars: int | None) -> bool:
    """The cap on a changed sentence: either side longer than ``max_chars`` (None = no cap)."""
    return max_chars is not None and max(len(original_sentence), len(mutant_sentence)) > max_chars
