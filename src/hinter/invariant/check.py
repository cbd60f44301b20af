"""InvCheck (paper Alg. 3): the literal reference and the incremental, cached implementation.

:func:`inv_check` is the algorithm as the paper states it: split original and mutant, compare
the sentence counts, parse every sentence of both and compare each pair. It is the
specification, and the baseline of the differential test and the benchmark.

:class:`IncrementalChecker` returns the same verdict for every mutant with far fewer parses.
Why it is exact:

- A sentence is parsed on its own, so its parse is a function of its text (and the pipeline:
  spaCy's CNN pipelines do not depend on what else is in a batch; a transformer pipeline's
  padding could, in a near-tie, which the cache then settles for good); two identical
  sentences always pass the comparison. Only sentences that differ need parsing, and a parse
  can be reused wherever the same text occurs (the original's sentences by all its mutants, a
  parent's changed sentence by its intersectional children, any sentence across suites and
  reruns through the persistent :class:`~hinter.invariant.cache.ParseCache`).
- Splitting is not incremental: every mutant text is split in full with the same splitter as
  the original, so sentence counts and alignment are those of Alg. 3 by construction. This costs
  a tokenizer pass (about 0.1 ms for a 40-sentence document), far less than one parse; splicing
  windows of the original would save little and would have to rely on the tokenizer being
  local, which spaCy's special cases do not guarantee across whitespace.
- The verdict of a sentence pair is a function of the two texts, so it is memoised: an
  intersectional mutant whose edits fall in different sentences consists of its parents'
  changed sentences, and gets its verdict from their memoised pair verdicts without parsing.
- Pairs are examined in sentence order and a mutant stops at its first failing pair, like
  Alg. 3; pairs that no undecided mutant needs are never parsed. Each round parses the next
  undecided pair of every pending mutant in one ``nlp.pipe`` call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from hinter.edits import Edit, apply_edits, as_edits
from hinter.invariant.cache import ParseCache
from hinter.invariant.compare import (
    DISCARDED_SENTENCE_COUNT,
    TOO_LONG,
    VALID,
    Parse,
    Verdict,
    compare_parses,
    too_long,
)
from hinter.invariant.compat import Compatibility
from hinter.invariant.parse import SpacyParser
from hinter.invariant.split import SentenceSplitter

_MISSING = object()
_MAX_ORIGINALS = 20_000  # documents whose split is kept (a shard's documents, usually)


def inv_check(
    original: str,
    mutant: str,
    split: Callable[[str], list[str]],
    parse: Callable[[list[str]], list[Parse]],
    max_sentence_chars: int | None = None,
) -> Verdict:
    """Paper Algorithm 3, literally: every sentence of both texts is parsed.

    ``split`` is the sentence splitter, ``parse`` parses a list of sentences (each on its own).
    A changed sentence longer than ``max_sentence_chars`` is discarded as ``too_long`` before
    it is compared; the first failing sentence decides the reason.
    """
    cs = split(original)
    ms = split(mutant)
    if len(cs) != len(ms):
        return DISCARDED_SENTENCE_COUNT
    parses = parse([*cs, *ms])
    n = len(cs)
    for i in range(n):
        if cs[i] != ms[i] and too_long(cs[i], ms[i], max_sentence_chars):
            return Verdict(False, TOO_LONG, i)
        reason = compare_parses(parses[i], parses[n + i])
        if reason is not None:
            return Verdict(False, reason, i)
    return VALID


@dataclass
class CheckStats:
    """Work done by an :class:`IncrementalChecker` (for logs and the benchmark)."""

    mutants: int = 0
    unchanged: int = 0
    sentence_count: int = 0
    rounds: int = 0
    pairs_compared: int = 0
    memo_hits: int = 0
    texts_needed: int = 0
    cache_hits: int = 0
    parsed: int = 0
    seconds: dict[str, float] = field(default_factory=lambda: {"split": 0.0, "parse": 0.0})

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def _same(text: str) -> str:
    return text


class IncrementalChecker:
    """Verdicts identical to :func:`inv_check`, parsing each distinct changed sentence once.

    Memory is bounded: the in-process memos are dropped when they exceed ``memo_limit`` entries
    (the persistent cache still holds every parse).
    """

    def __init__(
        self,
        splitter: SentenceSplitter,
        parser: SpacyParser,
        cache: ParseCache | None = None,
        max_sentence_chars: int | None = None,
        memo_limit: int = 200_000,
        compat: Compatibility | None = None,
    ):
        self.compat = compat if compat is not None and compat.active else None
        self.splitter = splitter
        self.parser = parser
        self.cache = cache
        self.max_sentence_chars = max_sentence_chars
        self.memo_limit = memo_limit
        self.stats = CheckStats()
        self._originals: dict[str, tuple[str, list[str]]] = {}
        self._parses: dict[str, Parse] = {}
        self._pairs: dict[tuple[str, str], str | None] = {}  # pair -> failing reason or None

    def original_sentences(self, doc_id: str, text: str) -> list[str]:
        """The original's sentences, split once per document."""
        known = self._originals.get(doc_id)
        if known is not None and known[0] == text:
            return known[1]
        if len(self._originals) >= _MAX_ORIGINALS:
            self._originals.clear()
        sentences = self.splitter.split(text)
        self._originals[doc_id] = (text, sentences)
        return sentences

    def check(
        self,
        mutants: Sequence[tuple[str, str, Sequence[Edit | Mapping]]],
        window_ends: Mapping[str, int] | None = None,
    ) -> list[Verdict]:
        """Verdicts of ``(doc_id, original text, edits)`` mutants, in order.

        Mutants of the same document (and intersectional mutants with their parents) are best
        checked in one call: their shared sentences are then compared once. ``window_ends``
        (doc_id -> end of the model-visible window) is read by ``compat.truncated_vs_full`` only.
        """
        verdicts: list[Verdict | None] = [None] * len(mutants)
        pending: list[list] = []  # [position, changed pairs, next pair]
        start = time.perf_counter()
        for k, (doc_id, text, edits) in enumerate(mutants):
            self.stats.mutants += 1
            mutant_text = apply_edits(text, edits)
            if mutant_text == text:
                self.stats.unchanged += 1
                verdicts[k] = VALID
                continue
            if self.compat is None:
                cs = self.original_sentences(doc_id, text)
            else:
                end = None if window_ends is None else window_ends.get(doc_id)
                original, mutant_text = self.compat.texts(text, mutant_text, as_edits(edits), end)
                cs = self.original_sentences(doc_id, original)
            ms = self.splitter.split(mutant_text)
            if len(ms) != len(cs):
                self.stats.sentence_count += 1
                verdicts[k] = DISCARDED_SENTENCE_COUNT
                continue
            over = self.compat.first_too_long(ms) if self.compat is not None else None
            if over is not None:
                verdicts[k] = Verdict(False, TOO_LONG, over)
                continue
            pairs = [(i, a, b) for i, (a, b) in enumerate(zip(cs, ms, strict=True)) if a != b]
            pending.append([k, pairs, 0])
        self.stats.seconds["split"] += time.perf_counter() - start

        first_round = True
        while pending:
            self.stats.rounds += 1
            needed: dict[tuple[str, str], None] = {}
            undecided = []
            for item in pending:
                k, pairs, p = item
                waited = -1 if first_round else p  # the pair compared for it last round
                while p < len(pairs):
                    i, a, b = pairs[p]
                    reason = self._pairs.get((a, b), _MISSING)
                    if reason is _MISSING:
                        if too_long(a, b, self.max_sentence_chars) or (
                            self.compat is not None and self.compat.mutant_too_long(b)
                        ):
                            reason = TOO_LONG
                        else:
                            needed[(a, b)] = None
                            break
                    elif p != waited:
                        self.stats.memo_hits += 1
                    if reason is not None:
                        verdicts[k] = Verdict(False, reason, i)
                        break
                    p += 1
                else:
                    verdicts[k] = VALID
                if verdicts[k] is None:
                    item[2] = p
                    undecided.append(item)
            if needed:
                self._compare(list(needed))
            pending = undecided
            first_round = False
        return verdicts  # type: ignore[return-value]

    def _compare(self, pairs: list[tuple[str, str]]) -> None:
        view = self.compat.parse_input if self.compat is not None else _same
        texts = list(dict.fromkeys(view(t) for pair in pairs for t in pair))
        parses = self._parse(texts)
        if len(self._pairs) + len(pairs) > self.memo_limit:
            self._pairs.clear()
        for a, b in pairs:
            self._pairs[(a, b)] = compare_parses(parses[view(a)], parses[view(b)])
        self.stats.pairs_compared += len(pairs)

    def _parse(self, texts: list[str]) -> dict[str, Parse]:
        """Parses of ``texts``: from memory, then the persistent cache, then the parser."""
        start = time.perf_counter()
        self.stats.texts_needed += len(texts)
        if len(self._parses) + len(texts) > self.memo_limit:
            self._parses.clear()
        found = {t: self._parses[t] for t in texts if t in self._parses}
        missing = [t for t in texts if t not in found]
        if missing and self.cache is not None:
            cached = self.cache.get_many(missing)
            self.stats.cache_hits += len(cached)
            found.update(cached)
            missing = [t for t in missing if t not in cached]
        if missing:
            parsed = self.parser.parse(missing)
            self.stats.parsed += len(missing)
            fresh = list(zip(missing, parsed, strict=True))
            found.update(fresh)
            if self.cache is not None:
                self.cache.put_many(fresh)
        self._parses.update(found)
        self.stats.seconds["parse"] += time.perf_counter() - start
        return found
