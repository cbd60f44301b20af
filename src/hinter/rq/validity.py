"""The dependency invariant's outputs as RQ3 reads them (:mod:`hinter.rq.rq3`): the validity
shards as per-document counts of generated and valid mutants, checked against the validity
summaries suite by suite."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from hinter import io, tables
from hinter.errors import DataError
from hinter.plan import RQ_ORDER


@dataclass(frozen=True)
class ValidityShard:
    """The mutants and validity files of one (track, dataset, suite, shard)."""

    track: str
    dataset: str
    suite: str
    mutants: Path
    validity: Path


@dataclass(frozen=True)
class ValiditySummary:
    """The validity summary of one (track, dataset) (``hinter.invariant.summarise``)."""

    track: str
    dataset: str
    path: Path


def suite_order(suite: str) -> int:
    return len(suite.partition("-")[2].split("+"))


def document_validity(shards: Sequence[ValidityShard]) -> pd.DataFrame:
    """Generated and valid mutants (role = mutant) per (track, dataset, suite, doc_id), one
    shard at a time; a validity file that does not list its mutants file's rows is an error."""
    parts = []
    for s in shards:
        mutants = io.read_parquet(s.mutants, columns=["mutant_id", "doc_id", "role"])
        validity = io.read_parquet(s.validity, tables.VALIDITY, columns=["mutant_id", "valid"])
        if mutants.num_rows != validity.num_rows or not mutants["mutant_id"].equals(
            validity["mutant_id"]
        ):
            raise DataError(
                f"{s.validity}: does not list the mutants of {s.mutants} row by row "
                "(rerun the invariant)"
            )
        frame = pd.DataFrame(
            {
                "doc_id": mutants["doc_id"].to_numpy(zero_copy_only=False),
                "mutant": (mutants["role"].to_numpy(zero_copy_only=False) == "mutant"),
                "valid": validity["valid"].to_numpy(zero_copy_only=False).astype(bool),
            }
        )
        frame = frame[frame["mutant"]]
        counts = frame.groupby("doc_id", sort=True)["valid"].agg(["size", "sum"]).reset_index()
        counts.columns = ["doc_id", "generated", "valid"]
        parts.append(counts.assign(track=s.track, dataset=s.dataset, suite=s.suite))
    columns = ["track", "dataset", "suite", "doc_id", "generated", "valid"]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]


def read_summaries(summaries: Sequence[ValiditySummary]) -> pd.DataFrame:
    """The per-suite rows of every validity summary (not its "all" row), with the mutants
    discarded as ``too_long`` (the sentence cap, the original artifact's rule: Fig. 7 reports
    their share, review 2026-11-28 G2)."""
    frames = []
    for s in summaries:
        if not Path(s.path).exists():
            raise DataError(f"{s.path}: file not found")
        frame = pd.read_csv(s.path, dtype={"suite": str}, keep_default_na=False)
        missing = {"suite", "generated", "valid"} - set(frame.columns)
        if missing:
            raise DataError(f"{s.path}: not a validity summary (no {sorted(missing)[0]} column)")
        frame = frame[frame["suite"] != "all"]
        frame = frame[frame["suite"].map(suite_order) <= RQ_ORDER]
        if "too_long" not in frame.columns:  # a summary written before the reason was counted
            frame = frame.assign(too_long=0)
        frames.append(
            frame[["suite", "generated", "valid", "too_long"]].assign(
                track=s.track, dataset=s.dataset
            )
        )
    if not frames:
        return pd.DataFrame(columns=["track", "dataset", "suite", "generated", "valid", "too_long"])
    return pd.concat(frames, ignore_index=True)


def check_against_summaries(docs: pd.DataFrame, summaries: pd.DataFrame) -> None:
    """The per-document counts add up to the validity summaries, suite by suite."""
    keys = ["track", "dataset", "suite"]
    got = docs.groupby(keys, sort=True)[["generated", "valid"]].sum()
    want = summaries.set_index(keys)[["generated", "valid"]].sort_index()
    got = got.reindex(want.index, fill_value=0)
    bad = (got != want).any(axis=1)
    if bad.any():
        key = bad[bad].index[0]
        raise DataError(
            f"validity summary of {key[0]}/{key[1]}: suite {key[2]} has "
            f"{want.loc[key, 'generated']} mutants ({want.loc[key, 'valid']} valid) but its "
            f"validity shards {got.loc[key, 'generated']} ({got.loc[key, 'valid']} valid)"
        )
