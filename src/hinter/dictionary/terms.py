"""Term normalisation and checks shared by the curated lists, custom lists and SBIC extraction.

Case policy: every term has one **canonical form**, the way it is written in the middle of a
sentence: lower-case for common words (``people with mental illness``), capitals where English
writes them (``Native American``, ``Mr``, ``CEO``). Matching in texts is case-insensitive
(docs/design.md §8); the canonical form decides how a *replacement* is written
(:func:`hinter.mutation.matching.transfer_case`). The published lists are lower-case (acronyms
aside), so the built-in attributes take their capitals from ``resources/dictionary/spelling.tsv``;
custom lists are taken as written.
"""

from __future__ import annotations

import re

# A term must be matchable as a whole word: it starts and ends with a letter or digit, and inside
# holds only letters, digits, single spaces, hyphens, apostrophes and periods. Anything else (a
# bracket, a slash, a trailing dot, a quote) sits at a word boundary in unpredictable ways.
_WORD_TERM = re.compile(r"[^\W_](?:[\w'’.\- ]*[^\W_])?")
_SPACES = re.compile(r"\s+")

# Head nouns that carry grammatical gender in the body templates ("disabled women").
FEMALE_HEADS = frozenset({"woman", "women", "girl", "girls", "lady", "ladies"})
MALE_HEADS = frozenset({"man", "men", "boy", "boys", "gentleman", "gentlemen"})


def canonical_case(term: str) -> str:
    """The published lists' case: lower-case, except an all-capitals acronym (``CEO``)."""
    return term if term.isupper() else term.lower()


def normalise_term(raw: str) -> str:
    """Strip, collapse inner whitespace and apply the published lists' case policy."""
    return canonical_case(collapse(raw))


def collapse(raw: str) -> str:
    """Strip and collapse inner whitespace, keeping the case (a custom list's canonical form)."""
    return _SPACES.sub(" ", raw.strip())


def term_problem(term: str) -> str | None:
    """Why ``term`` (already normalised) cannot be a dictionary term, or None when it can."""
    if not term:
        return "empty term"
    if not _WORD_TERM.fullmatch(term):
        return (
            f"term {term!r} cannot be matched as a whole word (it must start and end with a letter "
            "or digit and contain only letters, digits, spaces, hyphens, apostrophes and periods)"
        )
    if "  " in term:
        return f"term {term!r} contains repeated spaces"
    return None


def head_gender(term: str) -> str | None:
    """'female' / 'male' when the term names a gendered head noun, else None (neutral)."""
    words = set(term.lower().split())
    if words & FEMALE_HEADS:
        return "female"
    if words & MALE_HEADS:
        return "male"
    return None


def contains_term(phrase: str, term: str) -> bool:
    """Whether ``term`` occurs in ``phrase`` as a whole-word sequence (case-insensitive)."""
    return f" {term.lower()} " in f" {phrase.lower()} "


# SBIC group descriptions are free text typed by annotators: "Black folks.", "(women)",
# "\"feminists\"", "jews, muslims". Lists are split on commas and semicolons (not on slashes:
# "9/11 victims" is one group).
_LIST_SEPARATORS = re.compile(r"[,;\n]")
_DROP_ANYWHERE = re.compile(r"[\"“”„`´()\[\]{}<>]")
_EDGE_JUNK = " .'’‘*:!?-_"


def split_groups(cell: str) -> list[str]:
    """Normalised, de-duplicated group terms of one SBIC ``targetMinority`` value (order kept)."""
    out: list[str] = []
    for part in _LIST_SEPARATORS.split(cell):
        term = _DROP_ANYWHERE.sub(" ", part.lower())
        term = _SPACES.sub(" ", term).strip(_EDGE_JUNK)
        term = _SPACES.sub(" ", term).strip()
        if term and term not in out:
            out.append(term)
    return out


def split_categories(cell: str) -> list[str]:
    """Normalised SBIC ``targetCategory`` values (one per annotation row in the real data)."""
    return split_groups(cell)
