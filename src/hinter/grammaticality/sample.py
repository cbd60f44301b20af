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
  their id, and a document gives at most ``per_document`` mutants to a pool — so, as in the
  paper, a set of originals is drawn with some of their mutants, and the originals of
  different cells overlap (fewer originals to score);
- documents whose original is longer than ``max_chars`` are skipped with all their mutants,
  and counted.

Every original of a sampled mutant of order k is scored too, as the reference of order k: it
is *bias-inducing* for order k when at least one of its valid mutants of that order is
(``hinter.rates.document_flags``, over the whole suites, not just the sample).
The draw is deterministic (bottom-k of seeded hashes): the same seed gives the same sample
whatever the order of the input rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from hinter import rates

# Outcome columns the sample needs (the rates.verdicts inputs, and the mutant's keys).
OUTCOME_COLUMNS = [
    "mutant_id",
    "doc_id",
    "order",
    "attributes",
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

    def __post_init__(self) -> None:
        if self.valid < 0 or self.discarded < 0:
            raise ValueError("sample sizes must be >= 0")
        if not 0 <= self.bias_share <= 1:
            raise ValueError(f"bias_share {self.bias_share} outside [0, 1]")
        if self.per_document < 1:
            raise ValueError("per_document must be >= 1")

    def as_dict(self) -> dict:
        return asdict(self)


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


def _quotas(total: int, suites: list[str]) -> dict[str, int]:
    """``total`` split as evenly as possible over the suites (the first ones get the rest)."""
    if not suites:
        return {}
    base, extra = divmod(total, len(suites))
    return {s: base + (1 if i < extra else 0) for i, s in enumerate(suites)}


def _take(pool: pd.DataFrame, k: int, per_document: int) -> pd.DataFrame:
    """The first ``k`` rows of a key-ordered pool, at most ``per_document`` per document."""
    if k <= 0 or pool.empty:
        return pool.iloc[:0]
    capped = pool[pool.groupby("doc_id", sort=False).cumcount() < per_document]
    return capped.iloc[:k]


def draw(
    outcomes: pd.DataFrame, doc_chars: Mapping[str, int] | pd.Series, options: SampleOptions
) -> Sample:
    """Draw the sample from the outcome rows of one (model, dataset).

    ``outcomes`` holds :data:`OUTCOME_COLUMNS` and ``suite`` for every suite of the model;
    ``doc_chars`` the length in characters of every tested original (a document missing
    from it is an error: its mutants could not be materialised).
    """
    frame = outcomes.reset_index(drop=True)
    chars = doc_chars if isinstance(doc_chars, pd.Series) else pd.Series(doc_chars, dtype="int64")
    missing = sorted(set(frame["doc_id"]) - set(chars.index))
    if missing:
        raise ValueError(
            f"{len(missing)} document(s) of the outcomes are not among the tested documents, "
            f"e.g. {missing[0]}"
        )
    suites = sorted(frame["suite"].unique().tolist())
    length = frame["doc_id"].map(chars).to_numpy()
    too_long = np.zeros(len(frame), dtype=bool)
    if options.max_chars is not None:
        too_long = length > options.max_chars
    long_docs = set(frame.loc[too_long, "doc_id"])
    stats: dict = {
        "options": options.as_dict(),
        "skipped_long": {
            "documents": len(long_docs),
            "mutants": int(too_long.sum()),
        },
        "cells": {},
    }

    v = rates.verdicts(frame)
    known_biased = v["known"] & v["biased"]
    label = np.where(known_biased, "bias", np.where(v["known"], "benign", "unknown"))
    pool_frame = frame.assign(
        pool=label,
        doc_key=seeded_keys(frame["doc_id"], options.seed, "document"),
        key=seeded_keys(frame["mutant_id"], options.seed, "mutant"),
        biased=pd.Series(v["biased"].to_numpy(), dtype="boolean").mask(~v["known"].to_numpy()),
    )[~too_long]
    pool_frame = pool_frame.sort_values(["doc_key", "key", "mutant_id"], kind="stable")

    chosen = []
    for valid, total in ((True, options.valid), (False, options.discarded)):
        quotas = _quotas(total, suites)
        for suite in suites:
            cell = pool_frame[(pool_frame["suite"] == suite) & (pool_frame["valid"] == valid)]
            quota = quotas[suite]
            pools = {p: cell[cell["pool"] == p] for p in POOLS}
            want_bias = round(options.bias_share * quota)
            taken = {p: _take(pools[p], 0, 1) for p in POOLS}
            cap = options.per_document
            taken["bias"] = _take(pools["bias"], want_bias, cap)
            taken["benign"] = _take(pools["benign"], quota - len(taken["bias"]), cap)
            short = quota - len(taken["bias"]) - len(taken["benign"])
            if short > 0:  # fill from the rest of the bias pool, then from unknown outcomes
                more = _take(pools["bias"], want_bias + short, cap)
                short -= len(more) - len(taken["bias"])
                taken["bias"] = more
                taken["unknown"] = _take(pools["unknown"], short, cap)
            picked = pd.concat([taken[p] for p in POOLS])
            chosen.append(picked)
            name = "valid" if valid else "discarded"
            stats["cells"].setdefault(suite, {})[name] = {
                "available": {p: len(pools[p]) for p in POOLS},
                "quota": quota,
                "sampled": {p: len(taken[p]) for p in POOLS},
            }

    mutants = pd.concat(chosen, ignore_index=True) if chosen else pool_frame.iloc[:0]
    mutants = mutants.sort_values(["order", "suite", "doc_id", "mutant_id"], kind="stable")
    mutants = mutants[["suite", "mutant_id", "doc_id", "order", "attributes", "valid", "biased"]]

    flags = rates.document_flags(frame[~too_long], by=["order"])
    wanted = mutants[["doc_id", "order"]].drop_duplicates()
    originals = wanted.merge(flags, on=["order", "doc_id"], how="left")
    originals["biased"] = originals["bias_inducing"].fillna(False).astype(bool)
    originals = originals[["doc_id", "order", "biased"]].sort_values(["order", "doc_id"])
    stats["sampled"] = {
        "mutants": len(mutants),
        "valid": int(mutants["valid"].sum()),
        "discarded": int((~mutants["valid"].astype(bool)).sum()),
        "bias_inducing": int(mutants["biased"].fillna(False).sum()),
        "originals": int(originals["doc_id"].nunique()),
    }
    return Sample(mutants.reset_index(drop=True), originals.reset_index(drop=True), stats)
