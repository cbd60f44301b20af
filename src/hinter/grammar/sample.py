"""The balanced sample of texts whose grammar is scored (paper RQ2 and RQ3.3).

The paper sampled originals and their mutants, balanced across sensitive attributes and
mutation type (atomic, intersectional), valid mutants for RQ2 and discarded ones for RQ3.3
(about 68K valid and 67K discarded mutants of about 10K originals). Here, per (model,
dataset):

- every suite (attribute combination: ``atomic-race`` ... ``inter-race+gender`` ...) gets an
  equal share of ``valid`` valid and of ``discarded`` discarded mutants (a suite with fewer
  takes them all; the shortfall is not moved elsewhere, which would unbalance the sample);
- within each (suite, validity) cell, ``bias_share`` of the quota (about a quarter) is drawn
  from the bias-inducing mutants of the model and the rest from the benign ones; a pool that
  runs short is filled from the other, then from mutants without a known outcome;
- documents come first: candidates are ordered by a seeded hash of their document, then of
  their id, and a document gives at most ``per_document`` mutants to a pool (unless the pool
  has too few documents to fill its share otherwise) — so, as in the paper, a set of
  originals is drawn with some of their mutants, and the originals of different cells
  overlap (fewer originals to score);
- documents whose original is longer than ``max_chars`` are skipped with all their mutants,
  and counted;
- with ``parts`` > 1 (``grammar.sample.disjoint``), the model draws only from its seeded share
  of the documents, so the samples of a dataset's models hold distinct texts and, pooled, form
  one sample of the dataset per suite (the paper drew per dataset and mutation type). Without
  it, every model draws the same seeded documents and mutants.

Every original of a sampled mutant of order k is scored too, as the reference of order k: it
is *bias-inducing* for order k when at least one of its valid mutants of that order is
(``hinter.rates.document_flags``, over the whole suites, not just the sample).
The draw is deterministic (bottom-k of seeded hashes): the same seed gives the same sample
whatever the order of the input rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from hinter import rates
from hinter.oracle import suite_attributes

# Outcome columns the sample reads (the rates.verdicts inputs and the mutant's keys; the
# attributes follow from the suite's name).
OUTCOME_COLUMNS = [
    "mutant_id",
    "doc_id",
    "order",
    "valid",
    "biased",
    "parents_valid",
    "parent_biased",
]
POOLS = ("bias", "benign", "unknown")


@dataclass(frozen=True)
class SampleOptions:
    """Sizes (mutants per (model, dataset)), the bias-inducing share, caps and the seed."""

    valid: int = 2800
    discarded: int = 2800
    bias_share: float = 0.25
    per_document: int = 2
    max_chars: int | None = 20000
    seed: int = 42
    # this model's share of the documents: those whose seeded key is ``part`` modulo ``parts``
    # (``grammar.sample.disjoint``: the models of a dataset draw from disjoint documents)
    part: int = 0
    parts: int = 1

    def __post_init__(self) -> None:
        if self.valid < 0 or self.discarded < 0:
            raise ValueError("sample sizes must be >= 0")
        if not 0 <= self.bias_share <= 1:
            raise ValueError(f"bias_share {self.bias_share} outside [0, 1]")
        if self.per_document < 1:
            raise ValueError("per_document must be >= 1")
        if not 0 <= self.part < self.parts:
            raise ValueError(f"document share {self.part} outside 0..{self.parts - 1}")

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_config(cls, config: Mapping, share: tuple[int, int] = (0, 1)) -> SampleOptions:
        """The draw's options of the ``grammar`` config section; ``share`` = (part, parts): the
        model's share of the documents (:func:`hinter.plan.document_share`)."""
        grammar = config["grammar"]
        sample = {k: v for k, v in grammar["sample"].items() if k != "disjoint"}
        return cls(
            **sample, max_chars=grammar["max_chars"], part=int(share[0]), parts=int(share[1])
        )


@dataclass
class Sample:
    """The drawn mutants and originals, and what the draw saw (for the summary)."""

    mutants: pd.DataFrame  # suite, mutant_id, doc_id, order, attributes, valid, biased
    originals: pd.DataFrame  # doc_id, order, biased
    stats: dict


def seeded_keys(ids: pd.Series, seed: int, salt: str) -> np.ndarray:
    """A uint64 sampling key per id: the first 8 bytes of blake2b(seed, salt, id)."""
    prefix = f"{seed}\x00{salt}\x00".encode()
    out = np.empty(len(ids), dtype=np.uint64)
    for i, value in enumerate(ids.astype(str)):
        digest = hashlib.blake2b(prefix + value.encode("utf-8"), digest_size=8).digest()
        out[i] = int.from_bytes(digest, "big")
    return out


def in_share(doc_ids: pd.Series, options: SampleOptions) -> np.ndarray:
    """Whether each document is in the model's share (seeded, the same for every suite)."""
    keys = seeded_keys(doc_ids, options.seed, "share")
    return (keys % np.uint64(options.parts)) == np.uint64(options.part)


def _quotas(total: int, suites: list[str]) -> dict[str, int]:
    """``total`` split as evenly as possible over the suites (the first ones get the rest)."""
    if not suites:
        return {}
    base, extra = divmod(total, len(suites))
    return {s: base + (1 if i < extra else 0) for i, s in enumerate(suites)}


def _take(pool: pd.DataFrame, k: int, per_document: int) -> pd.DataFrame:
    """The first ``k`` rows of a key-ordered pool, at most ``per_document`` per document as
    long as the pool allows (then the next rows in key order, whatever their document)."""
    if k <= 0 or pool.empty:
        return pool.iloc[:0]
    within = (pool.groupby("doc_id", sort=False).cumcount() < per_document).to_numpy()
    first = pool[within].iloc[:k]
    if len(first) == k:
        return first
    return pd.concat([first, pool[~within].iloc[: k - len(first)]])


def _lengths(doc_chars: Mapping[str, int] | pd.Series) -> pd.Series:
    if isinstance(doc_chars, pd.Series):
        return doc_chars
    return pd.Series(doc_chars, dtype="int64")


def _draw_suite(
    suite: str,
    outcomes: pd.DataFrame,
    chars: pd.Series,
    options: SampleOptions,
    quotas: Mapping[bool, int],
    stats: dict,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sampled mutants of one suite and the suite's document flags (per order)."""
    frame = outcomes.reset_index(drop=True)
    missing = sorted(set(frame["doc_id"]) - set(chars.index))
    if missing:
        raise ValueError(
            f"{suite}: {len(missing)} document(s) of the outcomes are not among the tested "
            f"documents, e.g. {missing[0]}"
        )
    too_long = np.zeros(len(frame), dtype=bool)
    if options.max_chars is not None:
        too_long = frame["doc_id"].map(chars).to_numpy() > options.max_chars
    stats["skipped_long"]["mutants"] += int(too_long.sum())
    stats["_long_docs"].update(frame.loc[too_long, "doc_id"])
    frame = frame[~too_long].reset_index(drop=True)
    if options.parts > 1:  # only this model's share of the documents
        share = in_share(frame["doc_id"], options)
        stats["other_shares"] = stats.get("other_shares", 0) + int((~share).sum())
        frame = frame[share].reset_index(drop=True)

    v = rates.verdicts(frame)
    known = v["known"].to_numpy()
    label = np.where(known & v["biased"].to_numpy(), "bias", np.where(known, "benign", "unknown"))
    doc_ids = pd.Series(frame["doc_id"].unique())
    doc_key = dict(zip(doc_ids, seeded_keys(doc_ids, options.seed, "document"), strict=True))
    pool_frame = pd.DataFrame(
        {
            "suite": suite,
            "mutant_id": frame["mutant_id"],
            "doc_id": frame["doc_id"],
            "order": frame["order"].astype(np.int64),
            "valid": frame["valid"].astype(bool),
            "biased": pd.Series(v["biased"].to_numpy(), dtype="boolean").mask(~known),
            "pool": label,
            "doc_key": frame["doc_id"].map(doc_key).astype(np.uint64),
            "key": seeded_keys(frame["mutant_id"], options.seed, "mutant"),
        }
    ).sort_values(["doc_key", "key", "mutant_id"], kind="stable")

    chosen = []
    cap = options.per_document
    for valid in (True, False):
        cell = pool_frame[pool_frame["valid"] == valid]
        quota = quotas[valid]
        pools = {p: cell[cell["pool"] == p] for p in POOLS}
        want_bias = round(options.bias_share * quota)
        taken = {p: pools[p].iloc[:0] for p in POOLS}
        taken["bias"] = _take(pools["bias"], want_bias, cap)
        taken["benign"] = _take(pools["benign"], quota - len(taken["bias"]), cap)
        short = quota - len(taken["bias"]) - len(taken["benign"])
        if short > 0:  # fill from the rest of the bias pool, then from unknown outcomes
            more = _take(pools["bias"], want_bias + short, cap)
            short -= len(more) - len(taken["bias"])
            taken["bias"] = more
            taken["unknown"] = _take(pools["unknown"], short, cap)
        chosen.extend(taken[p] for p in POOLS)
        stats["cells"].setdefault(suite, {})["valid" if valid else "discarded"] = {
            "available": {p: len(pools[p]) for p in POOLS},
            "quota": quota,
            "sampled": {p: len(taken[p]) for p in POOLS},
        }
    mutants = pd.concat(chosen, ignore_index=True)
    mutants["attributes"] = [list(suite_attributes(suite))] * len(mutants)
    flags = rates.document_flags(frame, by=["order"])
    return mutants, flags


def draw_suites(
    parts: Iterable[tuple[str, pd.DataFrame]],
    suites: Sequence[str],
    doc_chars: Mapping[str, int] | pd.Series,
    options: SampleOptions,
) -> Sample:
    """Draw the sample of one (model, dataset), one suite's outcome rows at a time.

    ``parts`` yields (suite, outcome rows with :data:`OUTCOME_COLUMNS`) for each of
    ``suites`` (the quotas are split over all of them); ``doc_chars`` holds the length in
    characters of every tested original (a document missing from it is an error: its mutants
    could not be materialised). Only one suite's rows are held at a time.
    """
    chars = _lengths(doc_chars)
    suites = sorted(suites)
    quotas = {
        True: _quotas(options.valid, suites),
        False: _quotas(options.discarded, suites),
    }
    stats: dict = {
        "options": options.as_dict(),
        "skipped_long": {"documents": 0, "mutants": 0},
        "cells": {},
        "_long_docs": set(),
    }
    chosen, flags = [], []
    for suite, frame in parts:
        if suite not in suites:
            raise ValueError(f"outcome rows of suite {suite}, which is not among {suites}")
        m, f = _draw_suite(
            suite, frame, chars, options, {k: q[suite] for k, q in quotas.items()}, stats
        )
        chosen.append(m)
        flags.append(f)
    stats["skipped_long"]["documents"] = len(stats.pop("_long_docs"))
    stats["cells"] = dict(sorted(stats["cells"].items()))

    columns = ["suite", "mutant_id", "doc_id", "order", "attributes", "valid", "biased"]
    mutants = pd.concat(chosen, ignore_index=True) if chosen else pd.DataFrame(columns=columns)
    mutants = mutants.sort_values(["order", "suite", "doc_id", "mutant_id"], kind="stable")
    mutants = mutants[columns].reset_index(drop=True)

    wanted = mutants[["doc_id", "order"]].drop_duplicates()
    combined = rates.combine_flags(flags, by=["order"]) if flags else None
    originals = wanted.merge(combined, on=["order", "doc_id"], how="left") if flags else wanted
    tested = originals.get("tested", pd.Series(False, index=originals.index)).fillna(False)
    biased = originals.get("bias_inducing", pd.Series(False, index=originals.index))
    # bias-inducing for its order when >= 1 valid mutant of that order is; unknown when the
    # original has no valid mutant with a known outcome (sampled through discarded ones only)
    originals["biased"] = pd.Series(biased.fillna(False).astype(bool), dtype="boolean").mask(
        ~tested.astype(bool)
    )
    originals = originals[["doc_id", "order", "biased"]].sort_values(["order", "doc_id"])
    stats["sampled"] = {
        "mutants": len(mutants),
        "valid": int(mutants["valid"].sum()),
        "discarded": int((~mutants["valid"].astype(bool)).sum()),
        "bias_inducing": int(mutants["biased"].fillna(False).sum()),
        "originals": int(originals["doc_id"].nunique()),
    }
    return Sample(mutants, originals.reset_index(drop=True), stats)


def draw(
    outcomes: pd.DataFrame, doc_chars: Mapping[str, int] | pd.Series, options: SampleOptions
) -> Sample:
    """:func:`draw_suites` on the outcome rows of every suite at once (a ``suite`` column)."""
    suites = sorted(outcomes["suite"].unique().tolist())
    parts = ((s, outcomes[outcomes["suite"] == s]) for s in suites)
    return draw_suites(parts, suites, doc_chars, options)
