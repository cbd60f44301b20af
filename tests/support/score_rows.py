"""Hand-made grammar-score files (:data:`hinter.grammar.SCORES`) for the RQ2 and RQ3
tests: rows given as (kind, doc_id, order, valid, biased, words, issues) dicts."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from hinter.grammar import SCORES
from hinter.grammar.scoring import CATEGORIES


def score_rows(rows: list[dict]) -> pa.Table:
    """SCORES rows from (kind, doc_id, order, valid, biased, words, issues) dicts."""
    out = []
    for i, r in enumerate(rows):
        mutant = r["kind"] == "mutant"
        out.append(
            {
                "kind": r["kind"],
                "text_id": f"m{i}" if mutant else r["doc_id"],
                "doc_id": r["doc_id"],
                "order": r["order"],
                "suite": ("atomic-race" if r["order"] == 1 else "inter-race+gender")
                if mutant
                else None,
                "attributes": ["race"] if mutant else None,
                "valid": r.get("valid") if mutant else None,
                "biased": r.get("biased"),
                "chars": 5 * r["words"],
                "words": r["words"],
                "issues": r["issues"],
                "score": 100 * max(0.0, 1 - r["issues"] / r["words"]),
                **{f"issues_{c}": (r["issues"] if c == "grammar" else 0) for c in CATEGORIES},
                "checker": "harper",
                "checker_version": "0",
            }
        )
    return pa.Table.from_pylist(out, schema=SCORES)


def sample(seed: int, docs: int = 12) -> list[dict]:
    """Originals of both orders with valid and discarded mutants, bias labels mixed."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(docs):
        doc = f"d{d}"
        for order in (1, 2):
            biased = bool(d % 3 == 0)
            rows.append(
                dict(
                    kind="original",
                    doc_id=doc,
                    order=order,
                    biased=biased,
                    words=int(rng.integers(20, 60)),
                    issues=int(rng.integers(0, 6)),
                )
            )
            for k in range(3):
                rows.append(
                    dict(
                        kind="mutant",
                        doc_id=doc,
                        order=order,
                        valid=k != 2,
                        biased=None if k == 1 and d == 4 else bool((d + k) % 4 == 0),
                        words=int(rng.integers(20, 60)),
                        issues=int(rng.integers(0, 8)),
                    )
                )
    return rows
