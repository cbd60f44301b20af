"""Hand-built suites for the oracle, rates and RQ1 tests (imported by those modules).

A :class:`Suite` collects documents, atomic parents and intersectional mutants with their
validity and predictions, and turns them into the Parquet contracts of ``hinter.tables``.
Edits are real (spans of the document's text), ids are real ``edits.mutant_id`` hashes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pyarrow as pa

from hinter import tables
from hinter.edits import Edit, mutant_id
from hinter.oracle import suite_attributes, suite_outcomes

MISSING = object()  # "no prediction row"


@dataclass
class Suite:
    """The inputs of one suite of one shard, built row by row."""

    name: str = "inter-race+gender"
    texts: dict[str, str] = field(default_factory=dict)
    mutants: list[dict] = field(default_factory=list)
    validity: list[dict] = field(default_factory=list)
    predictions: list[dict] = field(default_factory=list)
    documents: list[dict] = field(default_factory=list)
    by_id: dict[str, dict] = field(default_factory=dict)

    def doc(self, doc_id, text, gold=(0,), pred=(0,), conf=0.9, status="ok"):
        """An original with gold labels (None = no gold) and its prediction."""
        self.texts[doc_id] = text
        self.documents.append(
            {
                "doc_id": doc_id,
                "split": "test",
                "position": len(self.documents),
                "text": text,
                "labels": None if gold is None else list(gold),
            }
        )
        self._predict(doc_id, "original", pred, conf, status)
        return doc_id

    def _predict(self, text_id, kind, pred, conf, status):
        if pred is MISSING:
            return
        self.predictions.append(
            {
                "text_id": text_id,
                "kind": kind,
                "labels": None if pred is None else list(pred),
                "scores": None,
                "confidence": conf,
                "status": status,
            }
        )

    def atomic(
        self,
        doc_id,
        attribute,
        word,
        replacement,
        *,
        pair_id=None,
        valid=True,
        pred=(0,),
        conf=0.9,
        status="ok",
        role="parent",
        reason=None,
    ):
        """An atomic mutant replacing the first whole-word ``word`` of the document."""
        match = re.search(rf"\b{re.escape(word)}\b", self.texts[doc_id])
        assert match, f"{word!r} not in {doc_id}"
        edit = Edit(match.start(), match.end(), replacement)
        pair = pair_id or f"{attribute}:{word}->{replacement}"
        return self._add(
            doc_id, [attribute], [pair], [edit], [], valid, pred, conf, status, role, reason
        )

    def inter(
        self,
        doc_id,
        parents,
        *,
        valid=True,
        pred=(0,),
        conf=0.9,
        status="ok",
        parent_ids=None,
        role="mutant",
        reason=None,
    ):
        """An intersectional mutant: the parents' edits applied together."""
        rows = [self._row(p) for p in parents]
        edits = [Edit(**e) for r in rows for e in r["edits"]]
        attributes = [r["attributes"][0] for r in rows]
        pair_ids = [r["pair_ids"][0] for r in rows]
        ids = list(parents) if parent_ids is None else list(parent_ids)
        return self._add(
            doc_id, attributes, pair_ids, edits, ids, valid, pred, conf, status, role, reason
        )

    def _row(self, mid):
        return self.by_id[mid]

    def _add(
        self,
        doc_id,
        attributes,
        pair_ids,
        edits,
        parent_ids,
        valid,
        pred,
        conf,
        status,
        role,
        reason,
    ):
        mid = mutant_id(doc_id, edits)
        self.by_id[mid] = row = {
            "mutant_id": mid,
            "doc_id": doc_id,
            "order": len(attributes),
            "role": role,
            "attributes": attributes,
            "pair_ids": pair_ids,
            "edits": [e.as_dict() for e in sorted(edits)],
            "parent_ids": parent_ids,
        }
        self.mutants.append(row)
        self.validity.append(
            {
                "mutant_id": mid,
                "valid": valid,
                "reason": reason or ("ok" if valid else "pos"),
                "sentence_index": None if valid else 0,
            }
        )
        self._predict(mid, "mutant", pred, conf, status)
        return mid

    def tables(self):
        return (
            pa.Table.from_pylist(self.mutants, schema=tables.MUTANTS),
            pa.Table.from_pylist(self.validity, schema=tables.VALIDITY),
            pa.Table.from_pylist(self.predictions, schema=tables.PREDICTIONS),
            pa.Table.from_pylist(self.documents, schema=tables.TESTED_DOCUMENTS),
        )

    def outcomes(self, threshold=0.0, empty_is_answer=False):
        mutants, validity, predictions, documents = self.tables()
        return suite_outcomes(
            self.name,
            mutants,
            validity,
            predictions,
            documents,
            threshold=threshold,
            empty_is_answer=empty_is_answer,
        )


ATTRIBUTE_WORDS = {
    "race": ("British", "Pakistani"),
    "gender": ("people", "trans women"),
    "body": ("cute", "manly"),
}

TEXT = "There is a special place for people who laugh. British viewers find it cute and warm."


def add_case(
    suite: Suite, doc_id: str, m_biased, parents_biased, *, valid=True, parents_valid=None
):
    """A document whose intersectional mutant and parents have the given outcomes (True = E).

    Parents follow the suite's attribute order; ``None`` in ``m_biased`` or ``parents_biased``
    means a model error. Returns the intersectional mutant's id.
    """
    attrs = suite_attributes(suite.name)
    parents_valid = parents_valid or [True] * len(attrs)
    suite.doc(doc_id, TEXT, gold=(0,), pred=(0,))

    def outcome(b):
        if b is None:
            return {"pred": None, "status": "error"}
        return {"pred": (1,) if b else (0,)}

    ids = [
        suite.atomic(doc_id, a, *ATTRIBUTE_WORDS[a], valid=v, **outcome(b))
        for a, b, v in zip(attrs, parents_biased, parents_valid, strict=True)
    ]
    return suite.inter(doc_id, ids[::-1], valid=valid, **outcome(m_biased))
