"""Grammar scores of groups of texts and their differences, for RQ2 (Fig. 8a) and RQ3.3 (Fig. 8c).

The scores come from the grammar runs' files (:data:`hinter.grammar.SCORES`, one per
(model, dataset)); a group's score is the pooled, word-weighted score of
:func:`hinter.grammar.pooled_scores`, with its bootstrap interval. A comparison of two
groups (mutants vs their originals, valid vs discarded mutants, bias-inducing vs benign texts)
is the difference of their pooled scores, with a percentile interval from the same bootstrap
over original documents: an original and its mutants are drawn together, so the comparison is
paired. The difference is *significant* when its interval excludes 0 and each side has
:data:`hinter.statistics.MIN_DOCUMENTS` documents ("too few" otherwise).

Resampling units are (dataset, doc_id): the samples of several models on one dataset share
originals, which are not independent either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from hinter import io
from hinter.grammar import SCORES, pooled_scores
from hinter.grammar.summary import pooled_frame
from hinter.plots import style
from hinter.render import Table, document, markdown_table
from hinter.rq.intervals import Bootstrap, cell
from hinter.rq.ordering import in_order, kinds_in_order
from hinter.rq.outcomes import kind as kind_of
from hinter.statistics import MIN_DOCUMENTS, bootstrap, verdict

CLUSTER = ("dataset", "doc_id")
COLUMNS = [
    "kind", "text_id", "doc_id", "order", "valid", "biased", "words", "issues", "score", "checker"
]  # fmt: skip
ALL = "all"
BIAS = "bias-inducing"
BENIGN = "benign"
OUTCOMES = (ALL, BIAS, BENIGN)
CSV_COLUMNS = [
    "mutation",
    "input",
    "outcome",
    "texts",
    "words",
    "issues",
    "score_pct",
    "low",
    "high",
    "mean_score_pct",
    "compared_with",
    "difference",
    "difference_low",
    "difference_high",
    "significant",
]


@dataclass(frozen=True)
class ScoreFile:
    """The grammar scores of one (model, dataset)."""

    model: str
    dataset: str
    path: Path


def read_scores(files: Sequence[ScoreFile]) -> pd.DataFrame:
    """The scored texts of every file with ``model``, ``dataset`` and a ``mutation`` kind
    (atomic, intersectional, intersectional (N=3), from the row's order)."""
    frames = []
    for f in files:
        frame = io.read_parquet(f.path, SCORES, columns=COLUMNS).to_pandas()
        frames.append(frame.assign(model=f.model, dataset=f.dataset))
    if not frames:
        return pd.DataFrame(columns=["model", "dataset", "mutation", *COLUMNS])
    out = pd.concat(frames, ignore_index=True)
    out["mutation"] = [kind_of(int(o), 2) for o in out["order"]]
    return out


def outcome_mask(frame: pd.DataFrame, outcome: str) -> pd.Series:
    """Rows of an outcome: every row (``all``), bias-inducing or benign (unknown: neither)."""
    if outcome == ALL:
        return pd.Series(True, index=frame.index)
    biased = frame["biased"].astype("boolean")
    return (biased if outcome == BIAS else ~biased).fillna(False).astype(bool)


def group_score(rows: pd.DataFrame, by: Sequence[str], boot: Bootstrap) -> pd.DataFrame:
    """Pooled score and interval per group of ``by`` (every group of the rows given)."""
    return pooled_scores(
        rows,
        by=list(by),
        cluster=CLUSTER,
        resamples=boot.resamples,
        seed=boot.seed,
        confidence=boot.confidence,
    )


def _difference(totals: pd.DataFrame) -> pd.DataFrame:
    a = pooled_frame(totals[["issues_a", "words_a"]].set_axis(["issues", "words"], axis=1))
    b = pooled_frame(totals[["issues_b", "words_b"]].set_axis(["issues", "words"], axis=1))
    return pd.DataFrame({"difference": a["score"] - b["score"]})


def difference(
    frame: pd.DataFrame,
    a: pd.Series,
    b: pd.Series,
    by: Sequence[str],
    boot: Bootstrap,
) -> pd.DataFrame:
    """Pooled score of rows ``a`` minus that of rows ``b`` per group of ``by``, with its
    interval (both sides resampled by the same draw of documents), ``side_documents`` (the
    fewer documents of the two sides) and ``significant`` (the interval excludes 0 and each
    side has :data:`hinter.statistics.MIN_DOCUMENTS` documents: one text's interval is a
    point, and any difference would look significant)."""
    weights = {"a": a.to_numpy(bool), "b": b.to_numpy(bool)}
    inputs = frame[[*by, *CLUSTER]].copy()
    for side, mask in weights.items():
        inputs[f"issues_{side}"] = np.where(mask, frame["issues"], 0).astype(np.int64)
        inputs[f"words_{side}"] = np.where(mask, frame["words"], 0).astype(np.int64)
    either = weights["a"] | weights["b"]
    inputs = inputs[either]
    sides = inputs.assign(a=weights["a"][either], b=weights["b"][either])
    per_doc = sides.groupby([*by, *CLUSTER], sort=True)[["a", "b"]].any()
    per_side = per_doc.groupby(level=list(by)).sum() if by else per_doc.sum().to_frame().T
    table = bootstrap(
        inputs,
        ("issues_a", "words_a", "issues_b", "words_b"),
        _difference,
        list(by),
        CLUSTER,
        boot.resamples,
        boot.seed,
        boot.confidence,
    )
    fewer = per_side.min(axis=1)
    table["side_documents"] = (
        table[list(by)].merge(fewer.rename("n").reset_index(), on=list(by), how="left")["n"]
        if by
        else int(fewer.iloc[0])
    )
    enough = table["side_documents"] >= MIN_DOCUMENTS
    table["significant"] = enough & ((table["low"] > 0) | (table["high"] < 0))
    return table.drop(columns=["rate", "resamples"]).rename(columns={"estimate": "difference"})


def score_rows(
    frame: pd.DataFrame, groups: Mapping[tuple[str, str], pd.Series], boot: Bootstrap
) -> pd.DataFrame:
    """Pooled score and interval of every (mutation, input, outcome)."""
    parts = [
        frame[mask].assign(input=i, outcome=o) for (i, o), mask in groups.items() if mask.any()
    ]
    if not parts:
        return pd.DataFrame(columns=["mutation", "input", "outcome"])
    return group_score(pd.concat(parts, ignore_index=True), ["mutation", "input", "outcome"], boot)


def compare(
    frame: pd.DataFrame,
    groups: Mapping[tuple[str, str], pd.Series],
    pairs: Sequence[tuple[tuple[str, str], tuple[str, str]]],
    boot: Bootstrap,
) -> pd.DataFrame:
    """For each (row group, compared group): the difference per mutation kind."""
    parts = []
    for row, other in pairs:
        a, b = groups[row], groups[other]
        if not (a.any() and b.any()):
            continue
        diff = difference(frame, a, b, ["mutation"], boot)
        parts.append(diff.assign(input=row[0], outcome=row[1], compared_with=" ".join(other)))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def significance(value, documents=None) -> str:
    """A comparison's verdict as the Markdown tables write it: ``yes`` / ``no``, "too few"
    when ``documents`` (the smaller side's) are fewer than
    :data:`hinter.statistics.MIN_DOCUMENTS`, empty where nothing was compared."""
    return verdict(value, documents)


def significances(values, documents) -> list[str]:
    """:func:`significance` of each (verdict, documents) pair."""
    return [significance(v, d) for v, d in zip(values, documents, strict=True)]


def score_table(
    table: pd.DataFrame,
    diffs: pd.DataFrame,
    boot: Bootstrap,
    inputs: Sequence[str],
    title: str,
    caption: str,
) -> Table:
    """The CSV (one row per (mutation, input, outcome) group, with its comparison where it
    has one) and the Markdown document of a grammar-score table."""
    keys = ["mutation", "input", "outcome"]
    if len(table) == 0:
        csv = pd.DataFrame(columns=CSV_COLUMNS)
        body = "No grammar scores: no grammar run sampled any text.\n"
        return Table(csv, document(title, caption, body))
    if len(diffs):
        table = table.merge(
            diffs[
                [
                    *keys,
                    "compared_with",
                    "difference",
                    "low",
                    "high",
                    "significant",
                    "side_documents",
                ]
            ].rename(columns={"low": "difference_low", "high": "difference_high"}),
            on=keys,
            how="left",
        )
    for column in [*CSV_COLUMNS[-5:], "side_documents"]:  # no comparison at all
        if column not in table.columns:
            table[column] = None
    table = in_order(
        table,
        {
            "mutation": mutation_order(table["mutation"]),
            "input": list(inputs),
            "outcome": list(OUTCOMES),
        },
    )
    csv = table.rename(columns={"score": "score_pct", "mean_score": "mean_score_pct"})
    csv["significant"] = csv["significant"].astype("boolean")
    csv = csv[CSV_COLUMNS]
    md = pd.DataFrame(
        {
            "Mutation": [style.name("kinds", k) for k in csv["mutation"]],
            "Input": csv["input"],
            "Outcome": csv["outcome"],
            "Texts": csv["texts"].astype(int).astype(str),
            "Score": [
                cell(s, lo, hi, scale=1, missing="")
                for s, lo, hi in zip(csv["score_pct"], csv["low"], csv["high"], strict=True)
            ],
            "Compared with": csv["compared_with"].fillna(""),
            "Difference": [
                cell(d, lo, hi, scale=1, signed=True, missing="")
                for d, lo, hi in zip(
                    csv["difference"], csv["difference_low"], csv["difference_high"], strict=True
                )
            ],
            "Significant": significances(csv["significant"], table["side_documents"]),
        }
    )
    return Table(
        csv,
        document(
            title,
            caption,
            markdown_table(md, right=["Texts", "Score", "Difference"]),
        ),
    )


def mutation_order(kinds) -> list[str]:
    """Atomic first, then intersectional, then higher orders (the paper's panel order)."""
    ordered = kinds_in_order(list(kinds))
    return sorted(ordered, key=lambda k: (k != "atomic", k != "intersectional", k))
