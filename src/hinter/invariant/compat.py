"""Artifact compatibility: the inputs the original artifact gave the invariant, factor by factor.

Paper Alg. 3 compares the sentences of an original and of its mutant. The published artifact
(reviewed in docs/reconciliation.md; the fidelity review's G2, G3 and G10) fed it other inputs,
which this module reproduces one switch at a time (``invariant.compatibility``):

- ``truncated_vs_full``: the mutant is the model-visible window only (the encoder path mutated
  the 512-token truncated text) but the original is the full text, so every mutant of a
  document longer than the window fails the sentence count (or the cut last sentence's parse);
- ``lowercase_capitalize``: both texts are lower-cased before splitting, and each sentence is
  parsed as ``sentence.capitalize()``;
- ``mutant_char_cap``: a changed sentence whose *mutant* side is longer than this many
  characters discards the mutant (the artifact's ``limit_sentence_length=500``), in addition to
  ``invariant.max_sentence_chars``;
- ``cap_unchanged_sentences``: ``mutant_char_cap`` applies to every mutant sentence, unchanged
  ones too (whether the artifact's loop did is not known here: this is the upper bound);
- ``artifact_markup``: ``<br />`` (any spelling) becomes a space, ``;`` and newlines become
  ``.``, as the artifact's dataset formatting did, before splitting.

The artifact's sequential application of pairs is ``mutation.mode: sequential`` (it changes
which mutants exist, not the invariant's inputs). Every switch off (the default) is Alg. 3 as
the paper states it: :attr:`Compatibility.active` is then False and the checker takes none of
these paths.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from hinter.edits import Edit
from hinter.errors import ConfigError

_BREAK = re.compile(r"<\s*br\s*/?\s*>", re.IGNORECASE)
_TO_PERIOD = str.maketrans({";": ".", "\n": "."})

#: The switches, in the order the reconciliation adds them (``mutation.mode`` is the fifth).
FACTORS = ("truncated_vs_full", "lowercase_capitalize", "mutant_char_cap", "artifact_markup")
#: The artifact's cap on a mutant sentence, in characters.
ARTIFACT_CHAR_CAP = 500


def rewrite_markup(text: str) -> str:
    """The artifact's formatting of a text: line breaks as spaces, ``;`` and newlines as periods."""
    return _BREAK.sub(" ", text).translate(_TO_PERIOD)


def mutant_window_end(window_end: int, edits: Sequence[Edit]) -> int:
    """Where the window of the original ends in the mutant's text (edits all lie inside it)."""
    return window_end + sum(len(e.replacement) - (e.end - e.start) for e in edits)


@dataclass(frozen=True)
class Compatibility:
    """Which of the artifact's inputs to reproduce; all off = paper Alg. 3."""

    truncated_vs_full: bool = False
    lowercase_capitalize: bool = False
    mutant_char_cap: int | None = None
    cap_unchanged_sentences: bool = False
    artifact_markup: bool = False

    @classmethod
    def from_config(cls, section: Mapping | None, key: str = "invariant.compatibility"):
        """From the config section (absent or empty: every switch off)."""
        section = dict(section or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(section) - known)
        if unknown:
            raise ConfigError(f"config key '{key}.{unknown[0]}': unknown compatibility switch")
        cap = section.get("mutant_char_cap")
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise ConfigError(f"config key '{key}.mutant_char_cap': {cap!r} is not null or >= 1")
        return cls(**section)

    @property
    def active(self) -> bool:
        return self != Compatibility()

    def texts(
        self, original: str, mutant: str, edits: Sequence[Edit], window_end: int | None
    ) -> tuple[str, str]:
        """The two texts the artifact split: the full original, the (truncated) mutant."""
        if self.truncated_vs_full and window_end is not None:
            mutant = mutant[: mutant_window_end(window_end, edits)]
        return self.document(original), self.document(mutant)

    def document(self, text: str) -> str:
        """A text as the artifact held it before splitting (markup, then lower-casing)."""
        if self.artifact_markup:
            text = rewrite_markup(text)
        if self.lowercase_capitalize:
            text = text.lower()
        return text

    def parse_input(self, sentence: str) -> str:
        """What the parser reads of a sentence."""
        return sentence.capitalize() if self.lowercase_capitalize else sentence

    def first_too_long(self, mutant_sentences: Sequence[str]) -> int | None:
        """With ``cap_unchanged_sentences``: the first mutant sentence over the cap, if any."""
        if not self.cap_unchanged_sentences:
            return None
        return next((i for i, s in enumerate(mutant_sentences) if self.mutant_too_long(s)), None)

    def mutant_too_long(self, mutant_sentence: str) -> bool:
        """The artifact's cap, on the mutant side of a changed sentence only."""
        return self.mutant_char_cap is not None and len(mutant_sentence) > self.mutant_char_cap


def workflow_compatibility(invariant: Mapping) -> Compatibility:
    """``invariant.compatibility`` as the validity stage applies it; a one-line ConfigError for
    ``truncated_vs_full``, which needs the windows only the reconciliation computes."""
    compat = Compatibility.from_config(invariant.get("compatibility"))
    if compat.truncated_vs_full:
        raise ConfigError(
            "config key 'invariant.compatibility.truncated_vs_full': the workflow's validity "
            "stage keeps no window ends; measure it with `snakemake reconciliation` "
            "(docs/reconciliation.md)"
        )
    return compat
