"""The run directory: every path of a run, in one place (docs/design.md §4, README "Where results
land").

Rules (through ``workflow/rules/common.smk``), the CLI, the RQ modules, notebooks and tests build
paths only here. Every method takes the keys of a file (model, dataset, suite, shard, ...) and
returns its path as a string, so a rule can pass wildcard placeholders (``"{dataset}"``) and a
script or notebook concrete names; nothing parses a path back into its keys.

Model outputs (predictions, outcomes, examples) have a *variant* level: one model tested several
ways on the same mutants — RQ6's repeated runs and alternative prompt templates. Every model has
the ``default`` variant; :class:`Variant` names the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Datasets the workflow knows how to load (hinter.data.FACTS, in its order: a test keeps them in
# step), as plain names so that validation and planning need no heavy imports.
KNOWN_DATASETS = ("ecthr_a", "scotus", "eurlex", "ledgar", "imdb")
# A dataset's task type (meta.json, a model's hinter.json); hinter.models.decisions decides by it.
MULTI_LABEL = "multi_label"
MULTI_CLASS = "multi_class"
TASK_TYPES = (MULTI_LABEL, MULTI_CLASS)

DEFAULT_VARIANT = "default"
RESEARCH_QUESTIONS = (1, 2, 3, 4, 5, 6)
# The "research question" of the outputs that span them all (the paper comparison, built from
# every RQ's tables): rq_dir(PAPER) is results/<run>/paper/.
PAPER = 0
_RUN_SUFFIX = re.compile(r"^(?P<prompt>[A-Za-z0-9_]+)(?:-run(?P<run>[0-9]+))?$")


@dataclass(frozen=True)
class Variant:
    """How a model is run: its prompt template and the index of a repeated run (1 = first)."""

    prompt: str = "default"
    run: int = 1

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_]+", self.prompt):
            raise ValueError(f"prompt template name {self.prompt!r}: use letters, digits and _")
        if self.run < 1:
            raise ValueError(f"run index {self.run}: runs count from 1")

    @property
    def name(self) -> str:
        """``default``, ``<prompt>`` for a first run, ``<prompt>-run<k>`` for a repeat."""
        return self.prompt if self.run == 1 else f"{self.prompt}-run{self.run}"

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT_VARIANT

    @classmethod
    def from_name(cls, name: str) -> Variant:
        match = _RUN_SUFFIX.match(name)
        if not match:
            raise ValueError(f"not a variant name: {name!r}")
        return cls(match["prompt"], int(match["run"] or 1))


@dataclass(frozen=True)
class RunLayout:
    """Paths of one run directory, ``<results_dir>/<run_name>`` (or a CLI ``--out`` folder)."""

    root: str

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> RunLayout:
        results = str(config.get("results_dir", "results")).rstrip("/")
        return cls(f"{results}/{config['run_name']}")

    def _join(self, *parts: str) -> str:
        return "/".join([str(self.root).rstrip("/"), *parts])

    # -- data ------------------------------------------------------------------------------
    def data_dir(self, dataset: str) -> str:
        return self._join("data", dataset)

    def documents(self, dataset: str, split: str) -> str:
        """Documents of one split: ``doc_id, text, labels`` (:data:`hinter.tables.DOCUMENTS`)."""
        return self._join("data", dataset, f"{split}.parquet")

    def meta(self, dataset: str) -> str:
        """Label names, task type and row counts of a dataset (``meta.json``)."""
        return self._join("data", dataset, "meta.json")

    def tested(self, dataset: str, shard: str) -> str:
        """The documents under test of one shard (:data:`hinter.tables.TESTED_DOCUMENTS`)."""
        return self._join("data", dataset, "tested", f"{shard}.parquet")

    # -- dictionary --------------------------------------------------------------------------
    def dictionary(self, name: str) -> str:
        """A file of the bias dictionary: ``pairs.parquet``, ``review.tsv``, ``coverage.md`` ..."""
        return self._join("dictionary", name)

    def sbic_dir(self) -> str:
        """The demo's synthetic SBIC files (real downloads live under ``resources/sbic``)."""
        return self._join("sbic")

    def sbic(self, name: str) -> str:
        return self._join("sbic", name)

    # -- mutants and validity ----------------------------------------------------------------
    def windows(self, track: str, dataset: str, shard: str) -> str:
        """What an LLM track's models read of each document of a shard (:data:`hinter.tables.
        WINDOWS`): computed once per shard, read by every suite's mutation."""
        return self._join("mutants", track, dataset, "windows", f"{shard}.parquet")

    def mutants(self, track: str, dataset: str, suite: str, shard: str) -> str:
        """Mutants of one suite and shard, as edits (:data:`hinter.tables.MUTANTS`)."""
        return self._join("mutants", track, dataset, suite, f"{shard}.parquet")

    def mutant_stats(self, track: str, dataset: str, suite: str, shard: str) -> str:
        return self._join("mutants", track, dataset, suite, f"{shard}.json")

    def mutation_summary(self, track: str, dataset: str) -> str:
        return self._join("mutants", track, dataset, "summary.csv")

    def validity(self, track: str, dataset: str, suite: str, shard: str) -> str:
        """Dependency-invariant verdicts of one suite and shard (:data:`hinter.tables.VALIDITY`)."""
        return self._join("validity", track, dataset, suite, f"{shard}.parquet")

    def validity_stats(self, track: str, dataset: str, suite: str, shard: str) -> str:
        return self._join("validity", track, dataset, suite, f"{shard}.json")

    def validity_summary(self, track: str, dataset: str) -> str:
        return self._join("validity", track, dataset, "summary.csv")

    # -- models ------------------------------------------------------------------------------
    def model_dir(self, model: str, dataset: str) -> str:
        return self._join("models", model, dataset)

    def model_weights(self, model: str, dataset: str) -> str:
        """The fine-tuned checkpoint folder (safetensors, tokenizer, ``hinter.json``)."""
        return self._join("models", model, dataset, "model")

    def model_metrics(self, model: str, dataset: str) -> str:
        return self._join("models", model, dataset, "metrics.json")

    def model_performance(self, ext: str) -> str:
        """Our encoders' scores beside LexGLUE's (``csv`` or ``md``)."""
        return self._join("models", f"performance.{ext}")

    def llm_performance(self, ext: str) -> str:
        """Our LLMs' scores on the tested originals beside the paper's (``csv`` or ``md``)."""
        return self._join("models", f"llm_performance.{ext}")

    # -- model outputs (with a variant level) ------------------------------------------------
    def predictions(
        self, model: str, dataset: str, shard: str, variant: str = DEFAULT_VARIANT
    ) -> str:
        """Predictions of originals and mutants of one shard (:data:`hinter.tables.PREDICTIONS`)."""
        return self._join("predictions", model, variant, dataset, f"{shard}.parquet")

    def outcomes(self, model: str, dataset: str, suite: str, variant: str = DEFAULT_VARIANT) -> str:
        """The oracle's verdict on every mutant of a suite (:data:`hinter.tables.OUTCOMES`)."""
        return self._join("outcomes", model, variant, dataset, f"{suite}.parquet")

    def examples(self, model: str, dataset: str, suite: str, variant: str = DEFAULT_VARIANT) -> str:
        """Rendered hidden-bias examples of one intersectional suite."""
        return self._join("examples", model, variant, dataset, f"{suite}.parquet")

    # -- grammar scores (RQ2, RQ3.3) ---------------------------------------------------------
    def grammar_scores(self, model: str, dataset: str, variant: str = DEFAULT_VARIANT) -> str:
        """Grammar scores of the balanced sample of one (model, dataset), labelled by the
        model's outcomes (:data:`hinter.grammar.SCORES`)."""
        return self._join("grammar", model, variant, f"{dataset}.parquet")

    def grammar_summary(self, model: str, dataset: str, variant: str = DEFAULT_VARIANT) -> str:
        """What the sample drew: quotas, pools, skipped long documents, checker and version."""
        return self._join("grammar", model, variant, f"{dataset}.json")

    # -- research questions and the report ---------------------------------------------------
    def rq_dir(self, rq: int) -> str:
        """``rq<N>/`` of a research question; ``paper/`` for :data:`PAPER`."""
        if rq == PAPER:
            return self._join("paper")
        if rq not in RESEARCH_QUESTIONS:
            raise ValueError(f"no research question RQ{rq}")
        return self._join(f"rq{rq}")

    def rq_output(self, rq: int, name: str, ext: str) -> str:
        """A table (``csv``, ``md``) or figure (``pdf``, ``png``) of a research question."""
        return f"{self.rq_dir(rq)}/{name}.{ext}"

    def labe(self, *parts: str) -> str:
        """A file of the LABE stage (004, :mod:`hinter.labe`): ``labe/<parts>``."""
        return self._join("labe", *parts)

    def reconciliation(self, name: str) -> str:
        """``reconciliation/<name>``: a corpus's rows (``<corpus>.json``) or the ablation table."""
        return self._join("reconciliation", name)

    def report(self) -> str:
        """The Snakemake HTML report of the run."""
        return self._join("report.html")

    def report_screenshot(self, view: str) -> str:
        """A browser's screenshot of one view of the report, beside it (``report-<view>.png``)."""
        return self._join(f"report-{view}.png")

    def benchmark(self, rule: str, *parts: str) -> str:
        """A job's measured cost (Snakemake's ``benchmark:`` TSV: wall seconds, memory, I/O),
        ``benchmarks/<rule>/<part>/.../<last>.tsv``; :func:`hinter.estimate.measured_costs`
        reads them back."""
        return self._join("benchmarks", rule, *parts[:-1], f"{parts[-1]}.tsv")

    def logs(self, *parts: str) -> str:
        """A job's log file, ``logs/<stage>/.../<name>.log`` (parts joined, ``.log`` appended)."""
        return self._join("logs", *parts[:-1], f"{parts[-1]}.log")


def cache_dir(config: dict[str, Any]) -> Path:
    """The content-addressed caches (parses, model outputs), shared by every run."""
    return Path(config.get("cache_dir", "results/cache"))
