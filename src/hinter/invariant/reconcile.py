"""The reconciliation: Alg. 3's pass rates on real text, faithful and with the artifact's inputs.

``002`` Table 5 reports that 12.52% / 1.40% / 0.54% of IMDB's atomic / pair / triple mutants
pass the invariant (97.58% of all mutants discarded); a faithful Alg. 3 keeps far more. Each
variant here adds one of the original artifact's inputs (:mod:`hinter.invariant.compat`, and
``mutation.mode: sequential``) to the faithful check, then all of them together, on the same
documents and dictionary, so the table says how much of the gap each explains
(docs/reconciliation.md). Mutants are generated in memory (never written); parses go through
the persistent parse cache, so a rerun or a larger run reparses only new sentences.
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from hinter.invariant.check import IncrementalChecker
from hinter.invariant.compare import REASONS
from hinter.invariant.compat import ARTIFACT_CHAR_CAP, Compatibility
from hinter.mutation.generate import Pair, SuiteMutator

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Variant:
    """One row of the ablation: the invariant's inputs and the mutation mode."""

    name: str
    compat: Compatibility = field(default_factory=Compatibility)
    sequential: bool = False
    max_sentence_chars: int | None = None  # the project's both-sides cap (faithful: none)


_ALL = Compatibility(
    truncated_vs_full=True,
    lowercase_capitalize=True,
    mutant_char_cap=ARTIFACT_CHAR_CAP,
    artifact_markup=True,
)
#: The rows, in order: faithful Alg. 3, each factor alone, the artifact's LLM path (every
#: factor but the truncation, which only its encoder path had), every factor (with the cap on
#: changed sentences, then on every sentence: the bounds of what the artifact's loop did), and
#: hinter's default (max_sentence_chars 500 on either side of a changed sentence).
VARIANTS = (
    Variant("faithful"),
    Variant("+truncated_vs_full", Compatibility(truncated_vs_full=True)),
    Variant("+lowercase_capitalize", Compatibility(lowercase_capitalize=True)),
    Variant("+mutant_char_cap", Compatibility(mutant_char_cap=ARTIFACT_CHAR_CAP)),
    Variant(
        "+mutant_char_cap, every sentence",
        Compatibility(mutant_char_cap=ARTIFACT_CHAR_CAP, cap_unchanged_sentences=True),
    ),
    Variant("+artifact_markup", Compatibility(artifact_markup=True)),
    Variant("+sequential_mutation", sequential=True),
    Variant("artifact LLM path", replace(_ALL, truncated_vs_full=False), sequential=True),
    Variant("artifact (all)", _ALL, sequential=True),
    Variant(
        "artifact (all), every-sentence cap",
        replace(_ALL, cap_unchanged_sentences=True),
        sequential=True,
    ),
    Variant("hinter default", max_sentence_chars=ARTIFACT_CHAR_CAP),
)
COUNTED = [r for r in REASONS if r != "disabled"]


def suites(attributes: Sequence[str], orders: Sequence[int]) -> list[tuple[str, ...]]:
    """Every combination of ``attributes`` of each order, in a stable order."""
    from itertools import combinations

    return [c for n in sorted(orders) for c in combinations(sorted(attributes), n)]


def mutants_of(
    documents: Sequence[tuple[str, str]],
    pairs: Sequence[Pair],
    attributes: Sequence[str],
    window_ends: Mapping[str, int],
    sequential: bool,
) -> list[tuple[str, str, tuple]]:
    """``(doc_id, text, edits)`` of every distinct mutant of one suite (parents not repeated)."""
    mode = "sequential" if sequential and len(attributes) > 1 else "simultaneous"
    mutator = SuiteMutator(pairs, attributes, mode=mode)
    out = []
    for doc_id, text in documents:
        for mutant in mutator.mutants(doc_id, text, window_ends.get(doc_id)):
            out.append((doc_id, text, mutant.edits))
    return out


def measure(
    corpus: str,
    documents: Sequence[tuple[str, str]],
    pairs: Sequence[Pair],
    attributes: Sequence[str],
    orders: Sequence[int],
    window_ends: Mapping[str, int],
    make_checker: Callable[[Variant], IncrementalChecker],
    variants: Sequence[Variant] = VARIANTS,
    max_mutants_per_suite: int | None = None,
    seed: int = 0,
) -> list[dict]:
    """One row per (variant, order): mutants generated, checked, kept, and discarded by reason.

    A suite with more than ``max_mutants_per_suite`` mutants is checked on a seeded uniform
    sample of them (the same sample for every variant that generates the same mutants), which
    estimates its pass rate without bias; ``generated`` counts them all, ``checked`` the sample.
    """
    rows = []
    generated: dict[tuple[tuple[str, ...], bool], tuple[int, list]] = {}
    for variant in variants:
        start = time.perf_counter()
        checker = make_checker(variant)
        by_order: dict[int, Counter] = {}
        totals: dict[int, int] = {}
        for suite in suites(attributes, orders):
            sequential = variant.sequential and len(suite) > 1
            key = (suite, sequential)
            if key not in generated:
                items = mutants_of(documents, pairs, suite, window_ends, sequential)
                tag = f"{seed}:{corpus}:{'+'.join(suite)}:{sequential}"
                generated[key] = (len(items), sample(items, max_mutants_per_suite, tag))
            population, items = generated[key]
            counts = by_order.setdefault(len(suite), Counter())
            totals[len(suite)] = totals.get(len(suite), 0) + population
            for verdict in checker.check(items, window_ends):
                counts[verdict.reason] += 1
        for order, counts in sorted(by_order.items()):
            rows.append(_row(corpus, len(documents), variant.name, order, totals[order], counts))
        log.info(
            "%s %s: %s (%.1f s)",
            corpus,
            variant.name,
            {o: f"{c['ok']}/{sum(c.values())}" for o, c in sorted(by_order.items())},
            time.perf_counter() - start,
        )
    return rows


def sample(items: list, k: int | None, tag: str) -> list:
    """At most ``k`` of ``items``, drawn uniformly with a seed from ``tag``, in their order."""
    if k is None or len(items) <= k:
        return items
    keep = sorted(random.Random(tag).sample(range(len(items)), k))
    return [items[i] for i in keep]


def _row(corpus, documents, variant, order, population: int, counts: Counter) -> dict:
    total = sum(counts.values())
    return {
        "corpus": corpus,
        "documents": documents,
        "variant": variant,
        "order": order,
        "generated": population,
        "checked": total,
        "valid": counts["ok"],
        "pass_rate": round(counts["ok"] / total, 4) if total else None,
        **{f"discarded_{r}": counts[r] for r in COUNTED if r != "ok"},
    }
