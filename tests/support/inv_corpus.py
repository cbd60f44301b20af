"""Shared by the invariant's tests and benchmark: the real pipeline, corpora and mutants.

Every test of the invariant parses with spaCy's real ``en_core_web_sm`` 3.8.0 (the paper's
pipeline, installed offline by ``make env``), loaded once per process.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass
from itertools import combinations, pairwise
from pathlib import Path

from hinter.edits import Edit, mutant_id

# Sentence frames; {slots} are single tokens.
_TEMPLATES = [
    "The {adj} {noun} saw {poss} {thing} .",
    "{pron} likes the {adj} {noun} .",
    "A {noun} from {place} visited us yesterday .",
    "{poss} {noun} is a {adj} {noun2} .",
    "The court found that the {noun} had been {adj} .",
    "She gave {obj} the {thing} .",
    "The {adj} {noun} left early !",
    "Why did the {noun} call {obj} ?",
]
_SLOTS = {
    "adj": ["old", "young", "British", "Pakistani", "white", "black", "tall", "short", "thin"],
    "noun": ["man", "woman", "boy", "girl", "father", "mother", "applicant", "doctor", "nurse"],
    "noun2": ["doctor", "nurse", "teacher", "man", "woman"],
    "poss": ["his", "her", "their"],
    "pron": ["He", "She", "They"],
    "obj": ["him", "her", "them"],
    "thing": ["dog", "book", "house", "car"],
    "place": ["London", "Lahore", "Paris", "Nairobi"],
}
# Sentences without dictionary words: most of a long legal text.
_NEUTRAL = [
    "The court adjourned the {event} until {day} .",
    "The {thing} was sold in {year} .",
    "The government submitted its observations on {day} .",
    "The {event} lasted {n} hours .",
    "Witnesses described the {thing} in detail .",
    "On {day} the registry received a letter about the {thing} .",
    "The {event} was postponed twice , and the parties agreed .",
]
_SLOTS.update(
    event=["hearing", "session", "trial", "meeting", "inquiry"],
    day=["Monday", "Tuesday", "Friday", "12 May", "3 June"],
    year=["1998", "2004", "2011", "2017"],
    n=["two", "three", "five", "eleven"],
)
# Directed pairs per attribute, with the paper's Fig. 3 cases (his -> him, man -> disabled man).
PAIRS = {
    "gender": [("man", "woman"), ("his", "her"), ("his", "him"), ("boy", "girl"), ("he", "she")],
    "race": [("British", "Pakistani"), ("white", "black"), ("London", "Lahore")],
    "body": [("man", "disabled man"), ("tall", "short"), ("thin", "fat"), ("nurse", "fat nurse")],
}


def _fill(template: str, rng: random.Random) -> list[str]:
    return [rng.choice(_SLOTS[w[1:-1]]) if w.startswith("{") else w for w in template.split()]


@functools.cache
def real_pipeline():
    """spaCy's en_core_web_sm 3.8.0 as the workflow loads it (tagger and parser only)."""
    from hinter.invariant import load_pipeline

    return load_pipeline("en_core_web_sm")


def sentence(rng: random.Random, neutral: bool = False) -> str:
    template = rng.choice(_NEUTRAL) if neutral else rng.choice(_TEMPLATES)
    text = " ".join(_fill(template, rng))
    for p in ".!?,":
        text = text.replace(f" {p}", p)
    return text[0].upper() + text[1:]


def corpus(
    n_docs: int, sentences: tuple[int, int], seed: int, neutral: float = 0.0
) -> dict[str, str]:
    """``doc_id -> text``: documents of a random number of sentences, a share ``neutral`` of
    them without dictionary words."""
    rng = random.Random(seed)
    docs = {}
    for d in range(n_docs):
        k = rng.randint(*sentences)
        parts = []
        for _ in range(k):
            parts.append(sentence(rng, rng.random() < neutral))
            parts.append(rng.choice([" ", " ", " ", "  ", "\n"]))
        docs[f"d{d:04d}"] = "".join(parts).rstrip()
    return docs


def _occurrences(text: str, source: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"\b{re.escape(source)}\b", text, re.IGNORECASE)]


def _case(replacement: str, original: str) -> str:
    return replacement[0].upper() + replacement[1:] if original[:1].isupper() else replacement


def atomic_edits(text: str, source: str, target: str) -> list[Edit]:
    return [Edit(a, b, _case(target, text[a:b])) for a, b in _occurrences(text, source)]


def mutants(docs: dict[str, str], max_inter: int = 12, seed: int = 0, order3: bool = True):
    """Mutant rows (the MUTANTS contract) per document: atomic, then intersectional ones.

    Intersectional mutants combine pairs of distinct attributes whose spans do not overlap;
    their atomic parents are the atomic mutants of the same pairs.
    """
    rng = random.Random(seed)
    rows = []
    for doc_id, text in docs.items():
        atomic = {}
        for attribute, pairs in PAIRS.items():
            for source, target in pairs:
                edits = atomic_edits(text, source, target)
                if edits:
                    mid = mutant_id(doc_id, edits)
                    atomic[(attribute, source, target)] = (mid, edits)
                    rows.append(_row(mid, doc_id, [attribute], edits, []))
        inter = []
        orders = (2, 3) if order3 else (2,)
        for order in orders:
            for combo in combinations(sorted(atomic), order):
                if len({c[0] for c in combo}) < order:
                    continue
                spans = sorted((e.start, e.end) for c in combo for e in atomic[c][1])
                if any(b[0] < a[1] for a, b in pairwise(spans)):
                    continue
                inter.append(combo)
        rng.shuffle(inter)
        for combo in sorted(inter[:max_inter]):
            edits = sorted(e for c in combo for e in atomic[c][1])
            parents = [atomic[c][0] for c in combo]
            rows.append(
                _row(mutant_id(doc_id, edits), doc_id, [c[0] for c in combo], edits, parents)
            )
    return rows


def _row(mid, doc_id, attributes, edits, parents, role="mutant") -> dict:
    return {
        "mutant_id": mid,
        "doc_id": doc_id,
        "order": len(attributes),
        "role": role,
        "attributes": attributes,
        "pair_ids": [],
        "edits": [e.as_dict() for e in edits],
        "parent_ids": parents,
    }


_NASTY = ["", ".", "!", " ", "  ", "\n", ". The", "? ", "Mr.", '"', "old man", "man.", ". . ."]


def nasty_mutants(docs: dict[str, str], per_doc: int, seed: int) -> list[dict]:
    """Random edits that move, add and remove sentence boundaries and whitespace."""
    rng = random.Random(seed)
    rows = []
    for doc_id, text in docs.items():
        for _ in range(per_doc):
            points = sorted(rng.sample(range(len(text) + 1), k=min(len(text) + 1, 4)))
            edits = []
            for a, b in zip(points[::2], points[1::2], strict=False):
                b = min(b, a + rng.choice([0, 0, 1, 2, 5]))
                edits.append(Edit(a, b, rng.choice(_NASTY)))
            rows.append(_row(mutant_id(doc_id, edits), doc_id, ["noise"], edits, []))
    return rows


# --- literal Alg. 3 against the incremental checker, and a finished run's mutants ------------


@dataclass
class Comparison:
    """Verdicts of the literal algorithm and of the incremental checker on the same mutants."""

    naive: list
    naive_seconds: float
    naive_parses: int
    ours: list
    ours_seconds: float
    ours_parses: int
    checker: object


def compare(nlp, docs, rows, cache_path, cap=500, memoise=False) -> Comparison:
    """Run paper Alg. 3 literally and the incremental checker with a cold cache, on ``rows``
    (mutant rows whose ``doc_id`` keys ``docs``).

    ``memoise`` (for checks of correctness, not speed): every distinct text is split once for
    the literal algorithm and every distinct sentence parsed once, in one batch, for both. A
    parse is a pure function of the sentence text, so no verdict changes; every decision of the
    incremental checker (which pairs to compare, memoised pair verdicts, parents' sentences)
    is still its own.
    """
    import time

    from hinter.edits import apply_edits
    from hinter.invariant import (
        IncrementalChecker,
        ParseCache,
        SentenceSplitter,
        SpacyParser,
        inv_check,
    )

    splitter = SentenceSplitter.for_pipeline(nlp)
    split = splitter.split
    naive_parser = SpacyParser(nlp, "naive", batch_size=256)
    parse = naive_parser.parse
    parser = SpacyParser(nlp, "fresh", batch_size=256)
    if memoise:
        texts = {docs[r["doc_id"]] for r in rows}
        texts |= {apply_edits(docs[r["doc_id"]], r["edits"]) for r in rows}
        splits = {t: splitter.split(t) for t in texts}
        ordered = sorted({s for sentences in splits.values() for s in sentences})
        memo = dict(zip(ordered, naive_parser.parse(ordered), strict=True))
        parser = _MemoParser(nlp, memo)

        def split(text):
            return splits[text]

        def parse(sentences):
            return [memo[s] for s in sentences]

    start = time.perf_counter()
    naive = [
        inv_check(
            docs[r["doc_id"]],
            apply_edits(docs[r["doc_id"]], r["edits"]),
            split,
            parse,
            cap,
        )
        for r in rows
    ]
    naive_seconds = time.perf_counter() - start
    start = time.perf_counter()
    with ParseCache(cache_path, "fresh") as cache:
        checker = IncrementalChecker(splitter, parser, cache, cap)
        ours = checker.check([(r["doc_id"], docs[r["doc_id"]], r["edits"]) for r in rows])
    ours_seconds = time.perf_counter() - start
    return Comparison(
        naive, naive_seconds, naive_parser.parsed, ours, ours_seconds, parser.parsed, checker
    )


class _MemoParser:
    """A parser that answers from parses made beforehand (and counts what it is asked)."""

    def __init__(self, nlp, memo):
        from hinter.invariant import SpacyParser

        self._fallback = SpacyParser(nlp, "fresh")
        self.memo = memo
        self.parsed = 0

    def parse(self, texts):
        self.parsed += len(texts)
        missing = [t for t in texts if t not in self.memo]
        self.memo.update(zip(missing, self._fallback.parse(missing), strict=True))
        return [self.memo[t] for t in texts]


def run_mutants(run: Path, config: dict | None = None) -> tuple[dict, list, dict]:
    """Every distinct mutant of a finished run (``results/<run>``, of ``config``: the demo's by
    default): texts by ``dataset/doc_id``, mutant rows (``doc_id`` rewritten to that key), and
    the workflow's recorded verdicts. Files are found through the plan and the run layout."""
    from hinter import plan, tables
    from hinter.config import REPO_ROOT, load_yaml, validate_config
    from hinter.io import read_parquet
    from hinter.layout import RunLayout

    if config is None:
        config = validate_config(load_yaml(REPO_ROOT / "config" / "demo.yaml"))
    layout = RunLayout(str(run))
    docs, rows, recorded = {}, {}, {}
    keys = sorted(
        (track, dataset, suite.name, shard)
        for dataset in config["datasets"]
        for track in plan.tracks(config, dataset)
        for suite in plan.suites(config, dataset, track)
        for shard in plan.shard_ids(config, dataset)
    )
    for track, dataset, suite, shard in keys:
        path = layout.mutants(track, dataset, suite, shard)
        tested = read_parquet(layout.tested(dataset, shard))
        for doc_id, text in zip(
            tested.column("doc_id").to_pylist(), tested.column("text").to_pylist(), strict=True
        ):
            docs[f"{dataset}/{doc_id}"] = text
        validity = layout.validity(track, dataset, suite, shard)
        for row, verdict in zip(
            read_parquet(path, tables.MUTANTS).to_pylist(),
            read_parquet(validity, tables.VALIDITY).to_pylist(),
            strict=True,
        ):
            assert row["mutant_id"] == verdict["mutant_id"], path
            key = f"{dataset}/{row['mutant_id']}"
            rows.setdefault(key, {**row, "doc_id": f"{dataset}/{row['doc_id']}", "key": key})
            recorded[key] = (verdict["valid"], verdict["reason"], verdict["sentence_index"])
    return docs, sorted(rows.values(), key=lambda r: (r["doc_id"], r["key"])), recorded
