"""Score texts with LABE's metric: clean (prompt copy stripped), split, classify, per-text
scores; and the comparison of our sentence splitter with the authors' on the texts they split
(the human reviews carry the authors' split in their ``sentences`` column)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pandas as pd

from hinter.labe import metric
from hinter.labe.classify import AgencyClassifier

log = logging.getLogger(__name__)


def score_frame(
    frame: pd.DataFrame,
    classifier: AgencyClassifier,
    splitter: metric.SentenceSplitter,
    *,
    limit: int | None = None,
) -> pd.DataFrame:
    """Per-text scores of ``frame`` (``text``, optional ``prompt``, ``race``, ``gender``):
    ``limit`` keeps the first texts of each race x gender group (a subset measured first)."""
    if limit is not None:
        frame = frame.groupby(["race", "gender"], sort=False, group_keys=False).head(limit)
    prompts = frame["prompt"] if "prompt" in frame else [None] * len(frame)
    cleaned = [metric.clean_generation(t, p) for t, p in zip(frame["text"], prompts, strict=True)]
    split = splitter.split_all(cleaned)
    labels = classifier.label_texts(split)
    out = metric.score_texts(frame.drop(columns=["text"], errors="ignore"), labels)
    out["agentic"] = [sum(row) for row in labels]
    return out


def splitter_agreement(
    texts: Sequence[str], authors: Sequence[Sequence[str]], splitter: metric.SentenceSplitter
) -> dict:
    """How our split differs from the authors' on the same texts: texts split identically,
    sentence counts, and texts where ours has more or fewer sentences."""
    ours = splitter.split_all(texts)
    same = sum(1 for a, b in zip(ours, authors, strict=True) if [s.strip() for s in b] == a)
    n_ours = sum(len(a) for a in ours)
    n_auth = sum(len(b) for b in authors)
    more = sum(1 for a, b in zip(ours, authors, strict=True) if len(a) > len(b))
    fewer = sum(1 for a, b in zip(ours, authors, strict=True) if len(a) < len(b))
    return {
        "texts": len(texts),
        "identical_split": same,
        "identical_share": same / len(texts) if texts else float("nan"),
        "sentences_ours": n_ours,
        "sentences_authors": n_auth,
        "texts_more_sentences": more,
        "texts_fewer_sentences": fewer,
    }
