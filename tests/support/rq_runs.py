"""Hand-made run directories for the RQ tests: outcomes and hidden-bias examples of a few
models, datasets and suites, written through the oracle's own file stage.

``make_run`` is the small run the RQ1 assertions are written against; ``make_rich_run`` adds
the corners (a discarded parent, a model error, a discarded bias, an empty prediction with and
without a meaning, no gold labels, a 3-attribute suite) for the byte-identity goldens.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from oracle_cases import TEXT, Suite, add_case

from hinter import io, oracle, tables
from hinter.layout import RunLayout
from hinter.rq import examples
from hinter.rq.outcomes import OutcomeFile, outcome_files

META = {
    "dataset": "imdb",
    "task_type": "multi_class",
    "label_names": ["neg", "pos"],
    "display_names": ["Negative", "Positive"],
    "empty_label_name": None,
}
# A multi-label dataset whose empty set means something (ECtHR: no violation).
META_ECTHR = {
    "dataset": "ecthr_a",
    "task_type": "multi_label",
    "label_names": ["2", "3"],
    "display_names": ["Art. 2", "Art. 3"],
    "empty_label_name": "none",
}


def write_shards(folder: Path, suites: list[Suite]) -> dict[str, list[Path]]:
    """One shard per suite: its documents, mutants, validity and predictions files (the
    predictions file also holds an unrelated row, as a shard's predictions cover every suite)."""
    paths: dict[str, list[Path]] = {"docs": [], "mutants": [], "validity": [], "predictions": []}
    for i, suite in enumerate(suites):
        mutants, validity, predictions, documents = suite.tables()
        extra = pa.Table.from_pylist(
            [
                {
                    "text_id": "zzz",
                    "kind": "mutant",
                    "labels": [5],
                    "scores": None,
                    "confidence": 1.0,
                    "status": "ok",
                }
            ],
            schema=tables.PREDICTIONS,
        )
        for name, table, schema in (
            ("docs", documents, tables.TESTED_DOCUMENTS),
            ("mutants", mutants, tables.MUTANTS),
            ("validity", validity, tables.VALIDITY),
            ("predictions", pa.concat_tables([extra, predictions]), tables.PREDICTIONS),
        ):
            path = folder / name / f"{i:03d}.parquet"
            io.write_parquet(table, path, schema)
            paths[name].append(path)
    return paths


# (model, dataset) -> cases (mutant biased, [parents biased]) of the small run.
SMALL = {
    ("bert", "scotus"): [(True, [False, False]), (True, [True, False]), (False, [False, False])],
    ("bert", "imdb"): [(True, [False, False]), (False, [True, True])],
    ("llama", "imdb"): [(True, [False, True]), (True, [False, False]), (True, [False, False])],
}


class Run:
    """Outcome and example files written into ``RunLayout(root)``, with their keys."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.layout = RunLayout(str(self.root / "results"))
        self.outcome_keys: list[tuple[str, str, str]] = []
        self.example_keys: list[tuple[str, str, str]] = []

    def add(self, model: str, dataset: str, suite: str, shards: list[Suite], meta=META, k=5):
        paths = write_shards(self.root / "in" / model / dataset / suite, shards)
        out = Path(self.layout.outcomes(model, dataset, suite))
        oracle.write_suite_outcomes(suite, meta=meta, output=out, **paths)
        self.outcome_keys.append((model, dataset, suite))
        if suite.startswith("inter-"):
            examples.write_hidden_examples(
                model=model, dataset=dataset, suite=suite, outcomes=out,
                mutants=paths["mutants"], docs=paths["docs"], meta=meta,
                output=self.layout.examples(model, dataset, suite), k=k, context=12,
            )  # fmt: skip
            self.example_keys.append((model, dataset, suite))

    @property
    def outcome_files(self) -> list[OutcomeFile]:
        return outcome_files(self.layout, self.outcome_keys)

    @property
    def example_files(self) -> list[str]:
        return [self.layout.examples(*key) for key in self.example_keys]


def _small_cases(run: Run, plans) -> None:
    for (model, dataset), cases in plans.items():
        inter = [Suite("inter-race+gender"), Suite("inter-race+gender")]
        atomic = [Suite("atomic-race"), Suite("atomic-race")]
        for i, (m_biased, parents) in enumerate(cases):
            shard = i % 2
            doc = f"{dataset}-{i}"
            add_case(inter[shard], doc, m_biased, parents)
            atomic[shard].doc(doc, TEXT, pred=(0,))
            atomic[shard].atomic(
                doc, "race", "British", "Pakistani", pred=(1,) if i == 0 else (0,), role="mutant"
            )
        run.add(model, dataset, "inter-race+gender", inter)
        run.add(model, dataset, "atomic-race", atomic)


def make_run(tmp_path: Path) -> Run:
    """Two models x two datasets, an atomic and an intersectional suite each, two shards."""
    run = Run(tmp_path)
    _small_cases(run, SMALL)
    return run


def make_rich_run(tmp_path: Path) -> Run:
    """The small run plus every corner the RQ1 tables treat specially."""
    run = Run(tmp_path)
    _small_cases(run, SMALL)

    # bert on ecthr_a: a discarded parent, a model error, a discarded bias, empty predictions
    # that mean "no violation", and a document without gold labels.
    inter, atomic = Suite("inter-body+gender"), Suite("atomic-body")
    add_case(inter, "e-0", True, [False, False])
    add_case(inter, "e-1", True, [False, False], parents_valid=[True, False])
    add_case(inter, "e-2", None, [False, False])
    add_case(inter, "e-3", True, [True, True], valid=False)
    inter.doc("e-4", TEXT, gold=None, pred=(0, 1))
    b = inter.atomic("e-4", "body", "cute", "manly", pred=(0, 1))
    g = inter.atomic("e-4", "gender", "people", "trans women", pred=(0, 1))
    inter.inter("e-4", [g, b], pred=())
    for i in range(4):
        atomic.doc(f"e-{i}", TEXT, pred=(0,))
        atomic.atomic(f"e-{i}", "body", "cute", "manly", pred=() if i == 1 else (0,), role="mutant")
    run.add("bert", "ecthr_a", "inter-body+gender", [inter], meta=META_ECTHR)
    run.add("bert", "ecthr_a", "atomic-body", [atomic], meta=META_ECTHR)

    # llama on imdb: an empty answer ("no answer"), a wrong original, and a 3-attribute suite.
    inter = Suite("inter-body+race")
    inter.doc("imdb-9", TEXT, gold=(1,), pred=(0,))
    b = inter.atomic("imdb-9", "body", "cute", "manly", pred=(0,))
    r = inter.atomic("imdb-9", "race", "British", "Pakistani", pred=(0,))
    inter.inter("imdb-9", [r, b], pred=())
    add_case(inter, "imdb-8", False, [True, False])
    run.add("llama", "imdb", "inter-body+race", [inter])
    triple = [Suite("inter-body+gender+race"), Suite("inter-body+gender+race")]
    add_case(triple[0], "imdb-0", True, [False, False, False])
    add_case(triple[0], "imdb-1", True, [False, True, False])
    add_case(triple[1], "imdb-2", False, [False, False, True])
    run.add("llama", "imdb", "inter-body+gender+race", triple)
    return run
