"""Deterministic sentence splitting, identical for originals and mutants.

The splitter is spaCy's tokenizer followed by the rule of spaCy's rule-based ``Sentencizer``
(a token that is neither punctuation nor a sentence-final character starts a sentence when a
sentence-final character was seen since the previous start). We do not use the parser's or a
statistical ``senter``'s boundaries: those are guesses that move when a word changes, so the
sentence-count check would measure parser noise, and they would need a full parse of every
mutant text, which is exactly the cost the incremental check avoids.

The rule is evaluated on arrays rather than token by token: token ``t`` starts a sentence iff it
is the first token, or it is a "word" (neither punctuation nor a sentence-final character) and a
sentence-final character occurs after the previous word. (After any word the rule's
``seen_period`` flag is false, whether that word started a sentence or not, so the flag at ``t``
only depends on the tokens since the previous word.) ``tests/unit/test_invariant_split.py``
checks the equivalence with spaCy's component on generated texts.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# spaCy is imported where a splitter is built: importing hinter.invariant (e.g. to summarise
# validity files) then loads neither spaCy nor the torch its thinc imports.


class SentenceSplitter:
    """Split texts into sentence strings with a tokenizer and the Sentencizer's rule."""

    def __init__(self, tokenizer, punct_chars: Iterable[str] | None = None):
        from spacy.attrs import IDX, IS_PUNCT, LENGTH, ORTH
        from spacy.pipeline import Sentencizer

        self.tokenizer = tokenizer
        self._attrs = [IDX, LENGTH, ORTH, IS_PUNCT]
        chars = sorted(set(punct_chars or Sentencizer.default_punct_chars))
        self.punct_chars = tuple(chars)
        strings = tokenizer.vocab.strings
        self._punct_orths = np.array([strings.add(c) for c in chars], dtype=np.uint64)

    @classmethod
    def for_pipeline(cls, nlp) -> SentenceSplitter:
        """The pipeline's tokenizer, and its sentencizer's characters if it has one."""
        from spacy.pipeline import Sentencizer

        punct = None
        for _name, pipe in nlp.pipeline:
            if isinstance(pipe, Sentencizer):
                punct = pipe.punct_chars
                break
        return cls(nlp.tokenizer, punct)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans ``[start, end)`` of the sentences (as ``Span.start_char/end_char``)."""
        doc = self.tokenizer(text)
        n = len(doc)
        if n == 0:
            return []
        arr = doc.to_array(self._attrs)
        idx = arr[:, 0].astype(np.int64)
        ends = idx + arr[:, 1].astype(np.int64)
        final = np.isin(arr[:, 2], self._punct_orths)
        word = ~final & (arr[:, 3] == 0)
        # finals_before[k] = number of sentence-final tokens among tokens < k
        finals_before = np.concatenate(([0], np.cumsum(final)))
        words = np.flatnonzero(word)
        previous = np.concatenate(([-1], words[:-1]))
        after_final = finals_before[words] - finals_before[previous + 1] > 0
        # the first token always starts a sentence (and is never selected: no final before it)
        starts = np.concatenate(([0], words[after_final]))
        last = np.concatenate((starts[1:], [n])) - 1
        return list(zip(idx[starts].tolist(), ends[last].tolist(), strict=True))

    def split(self, text: str) -> list[str]:
        """The sentences of ``text`` (each one's text without its trailing whitespace)."""
        return [text[a:b] for a, b in self.spans(text)]
