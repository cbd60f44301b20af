"""What a configuration asks for: the workflow's plan, from the validated config alone.

The DAG follows from the config (no checkpoints), so every enumeration the Snakefile needs lives
here as a pure function, unit-testable without Snakemake. Keep imports light: the Snakefile
imports this package in the main Snakemake process.

- :mod:`~hinter.plan.runs`: model runs, their tracks, variants and decoding; the runs RQ6 and
  the grammar stage cover;
- :mod:`~hinter.plan.suites`: mutation suites, RQ5's higher-order runs, shard ids and
  :func:`~hinter.plan.suites.shard_of`;
- :mod:`~hinter.plan.targets`: typed records (keys and path) of every file the rules
  enumerate, and the inputs of one job.

The names below are the plan's vocabulary (``from hinter import plan; plan.suites(...)``);
``plan.suites`` is the function, so import from the module by its full name
(``from hinter.plan.suites import ...``).
"""

from hinter.plan.runs import (
    KEEP_DISCARDED_GROUPS,
    ModelRun,
    decoding,
    discarded_models,
    document_share,
    grammar_runs,
    keeps_discarded,
    known_dataset_names,
    llm_backend,
    llm_spec,
    model_runs,
    model_track,
    prompt_templates,
    shared_decodings,
    tested_models,
    threshold_runs,
    track_llms,
    tracks,
    variant_names,
    variant_runs,
    variant_spec,
    variants,
)
from hinter.plan.suites import (
    RQ_ORDER,
    HigherOrderRun,
    Suite,
    higher_order_runs,
    n_shards,
    parse_suite,
    shard_ids,
    shard_of,
    suite_name,
    suite_spec,
    suites,
    variant_suites,
)

__all__ = [
    "KEEP_DISCARDED_GROUPS",
    "RQ_ORDER",
    "HigherOrderRun",
    "ModelRun",
    "Suite",
    "decoding",
    "discarded_models",
    "document_share",
    "grammar_runs",
    "higher_order_runs",
    "keeps_discarded",
    "known_dataset_names",
    "llm_backend",
    "llm_spec",
    "model_runs",
    "model_track",
    "n_shards",
    "parse_suite",
    "prompt_templates",
    "shard_ids",
    "shard_of",
    "shared_decodings",
    "suite_name",
    "suite_spec",
    "suites",
    "tested_models",
    "threshold_runs",
    "track_llms",
    "tracks",
    "variant_names",
    "variant_runs",
    "variant_spec",
    "variant_suites",
    "variants",
]
