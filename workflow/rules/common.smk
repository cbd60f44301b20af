# Start-up: config validation, paths and the enumerations the rules share.
# All logic lives in the hinter package (src/hinter); this file only wires it to Snakemake.
import os
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

# The package reaches every job through PYTHONPATH, both in a plain virtual environment (where
# it is also installed) and under --use-conda (where the environments hold only dependencies).
SRC = str(Path(workflow.basedir) / "src")
sys.path.insert(0, SRC)
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH", "")) if p)
)

from hinter import plan
from hinter.config import startup_checks, validate_config
from hinter.layout import DEFAULT_VARIANT, RunLayout
from hinter.errors import ConfigError

try:
    _validated = validate_config(
        config,
        Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml",
        base_dir=workflow.basedir,
    )
except ConfigError as exc:
    sys.exit(f"hinter: {exc}")


# What the jobs about to run need from this machine (the parser, checkpoint folders, writable
# results and cache folders), checked before the first job of a real run; dry-runs only plan.
onstart:
    try:
        jobs = [(job.rule.name, job.wildcards_dict) for job in workflow.dag.needrun_jobs()]
        startup_checks(config, Path.cwd(), jobs)
    except ConfigError as exc:
        sys.exit(f"hinter: {exc}")


config.clear()
config.update(_validated)

L = RunLayout.from_config(config)
RESOURCES = Path(workflow.basedir) / "resources"
CORE_ENV = "../envs/hinter.yaml"
MODELS_ENV = "../envs/models.yaml"
DATASETS = list(config["datasets"])
SPLITS = ["train", "validation", "test"]
DEMO = config["data"]["source"] == "demo"


wildcard_constraints:
    dataset="|".join(DATASETS),
    split="train|validation|test",
    shard=r"\d{3}",
    suite=r"(atomic|inter)-[A-Za-z0-9_+-]+",
    track=r"[A-Za-z0-9_-]+",
    model=r"[A-Za-z0-9_.-]+",
    variant=r"[A-Za-z0-9_]+(-run[0-9]+)?",


def shards(dataset):
    return plan.shard_ids(config, dataset)


def suite_names(dataset, track, model=None):
    return [s.name for s in plan.suites(config, dataset, track, model)]


def suite_spec(dataset, track, suite):
    """The plan.Suite behind a suite name (its attributes and document limit)."""
    for s in plan.suites(config, dataset, track):
        if s.name == suite:
            return s
    raise ValueError(f"suite {suite} is not planned for {dataset}/{track}")


def model_runs(implemented_only=True):
    return [r for r in plan.model_runs(config) if r.implemented or not implemented_only]


def model_track(model):
    for r in plan.model_runs(config):
        if r.model == model:
            return r.track
    raise ValueError(f"unknown model {model}")


# Every path of the run directory comes from hinter.layout (DESIGN §4); rules use only `L`.
def all_mutation_summaries():
    return [L.mutation_summary(t, ds) for ds in DATASETS for t in plan.tracks(config, ds)]


def all_validity_summaries():
    return [L.validity_summary(t, ds) for ds in DATASETS for t in plan.tracks(config, ds)]


def all_hidden_examples():
    return [
        L.examples(r.model, r.dataset, suite)
        for r in model_runs()
        for suite in suite_names(r.dataset, r.track, r.model)
        if suite.startswith("inter-")
    ]


def all_tested():
    return [L.tested(ds, sh) for ds in DATASETS for sh in shards(ds)]


def all_mutants():
    return [
        L.mutants(track, ds, suite, sh)
        for ds in DATASETS
        for track in plan.tracks(config, ds)
        for suite in suite_names(ds, track)
        for sh in shards(ds)
    ]


def all_validity():
    return [
        L.validity(track, ds, suite, sh)
        for ds in DATASETS
        for track in plan.tracks(config, ds)
        for suite in suite_names(ds, track)
        for sh in shards(ds)
    ]


def all_predictions():
    return [L.predictions(r.model, r.dataset, sh) for r in model_runs() for sh in shards(r.dataset)]


def outcome_keys():
    """(model, dataset, suite) of every outcomes file of the default variant, in plan order."""
    return [
        (r.model, r.dataset, suite)
        for r in model_runs()
        for suite in suite_names(r.dataset, r.track, r.model)
    ]


def all_outcomes():
    return [L.outcomes(*key) for key in outcome_keys()]


def parser_pipeline():
    """The invariant's spaCy pipeline: the trained demo pipeline or an installed package."""
    pipeline = config["parser"]["pipeline"]
    return L.parser("pipeline") if pipeline == "demo" else pipeline


def parser_input(wildcards):
    return [parser_pipeline()] if config["parser"]["pipeline"] == "demo" else []


def predict_inputs(wc):
    """A model's inputs for one shard: its weights, the originals and every suite's mutants."""
    track = model_track(wc.model)
    suites = suite_names(wc.dataset, track, wc.model)
    return {
        "model": L.model_weights(wc.model, wc.dataset),
        "docs": L.tested(wc.dataset, wc.shard),
        "mutants": [L.mutants(track, wc.dataset, s, wc.shard) for s in suites],
        "validity": [L.validity(track, wc.dataset, s, wc.shard) for s in suites],
    }


def outcome_inputs(wc):
    """Everything the oracle needs for one (model, dataset, suite), over all shards."""
    track = model_track(wc.model)
    return {
        "docs": [L.tested(wc.dataset, sh) for sh in shards(wc.dataset)],
        "mutants": [L.mutants(track, wc.dataset, wc.suite, sh) for sh in shards(wc.dataset)],
        "validity": [L.validity(track, wc.dataset, wc.suite, sh) for sh in shards(wc.dataset)],
        "predictions": [
            L.predictions(wc.model, wc.dataset, sh, wc.variant) for sh in shards(wc.dataset)
        ],
        "meta": L.meta(wc.dataset),
    }
