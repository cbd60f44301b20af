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
from hinter.layout import DEFAULT_VARIANT, RunLayout, Variant
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


def variant_suite_names(dataset, model, variant):
    """The suites a model's variant is tested on (RQ6's variants stop at RQ_ORDER)."""
    return [
        s.name for s in plan.variant_suites(config, dataset, model_track(model), model, variant)
    ]


def suite_spec(dataset, track, suite):
    """The plan.Suite behind a suite name (its attributes and document limit)."""
    for s in plan.suites(config, dataset, track):
        if s.name == suite:
            return s
    raise ValueError(f"suite {suite} is not planned for {dataset}/{track}")


def model_runs():
    """Every (model, dataset) under test: encoders and LLMs."""
    return plan.model_runs(config)


def encoder_runs():
    return [r for r in plan.model_runs(config) if r.kind == "encoder"]


def model_track(model):
    for r in plan.model_runs(config):
        if r.model == model:
            return r.track
    raise ValueError(f"unknown model {model}")


def is_llm(model):
    return plan.llm_spec(config, model) is not None


def llm_backend(model):
    spec = plan.llm_spec(config, model)
    return spec["backend"] if spec else None


def from_models(track):
    """Whether a track's window comes from its LLMs (and their few-shot examples are left out)."""
    return bool(config["mutation"]["tracks"][track].get("from_models"))


# Every path of the run directory comes from hinter.layout (docs/design.md §4); rules use only `L`.
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
    return [
        L.predictions(r.model, r.dataset, sh, v)
        for r in model_runs()
        for v in plan.variants(config, r.model, r.dataset)
        for sh in shards(r.dataset)
    ]


def outcome_keys():
    """(model, dataset, suite) of every outcomes file of the default variant, in plan order."""
    return [
        (r.model, r.dataset, suite)
        for r in model_runs()
        for suite in suite_names(r.dataset, r.track, r.model)
    ]


def all_outcomes():
    return [L.outcomes(*key) for key in outcome_keys()]


def variant_outcome_keys():
    """(model, dataset, suite, variant) of every outcomes file of every planned variant (RQ6:
    `sensitivity` adds repeated runs and alternative prompts of some LLMs), in plan order."""
    return [
        (r.model, r.dataset, suite, variant)
        for r in model_runs()
        for variant in plan.variants(config, r.model, r.dataset)
        for suite in variant_suite_names(r.dataset, r.model, variant)
    ]


def parser_input(wildcards):
    """A pipeline directory is an input of the invariant: a retrained one reruns it."""
    pipeline = config["parser"]["pipeline"]
    return [pipeline] if config["invariant"]["enabled"] and Path(pipeline).is_dir() else []


def predict_inputs(wc):
    """A model's inputs for one shard: its weights (an encoder) or its few-shot examples' train
    split (an LLM), the originals and every suite's mutants."""
    check_planned(wc)
    track = model_track(wc.model)
    suites = variant_suite_names(wc.dataset, wc.model, wc.variant)
    inputs = {
        "docs": L.tested(wc.dataset, wc.shard),
        "mutants": [L.mutants(track, wc.dataset, s, wc.shard) for s in suites],
        "validity": [L.validity(track, wc.dataset, s, wc.shard) for s in suites],
    }
    if is_llm(wc.model):
        inputs["train"] = L.documents(wc.dataset, "train")
        variant = Variant.from_name(wc.variant)
        greedy = plan.decoding(config, wc.model, wc.variant) is None
        if variant.run > 1 and llm_backend(wc.model) != "openai" and greedy:
            # greedy decoding: a repeated run gets its first run's answers from the prediction
            # cache, so it waits for that run instead of computing them alongside it (a sampled
            # run, sensitivity.runs_decoding, has its own seed and cache entries)
            first = Variant(variant.prompt).name
            inputs["first_run"] = L.predictions(wc.model, wc.dataset, wc.shard, first)
    else:
        inputs["model"] = L.model_weights(wc.model, wc.dataset)
    return inputs


def mutate_inputs(wc):
    """A suite's inputs: the shard's documents, the pairs, and for a track whose window comes
    from its LLMs the shard's windows (what they read, their few-shot examples)."""
    inputs = {"docs": L.tested(wc.dataset, wc.shard), "pairs": L.dictionary("pairs.parquet")}
    if from_models(wc.track):
        inputs["windows"] = L.windows(wc.track, wc.dataset, wc.shard)
    return inputs


def check_planned(wc, suite=None):
    """A model output is built only for what the config plans: its variants and suites."""
    if wc.variant not in plan.variants(config, wc.model, wc.dataset):
        raise ValueError(f"{wc.model} has no variant {wc.variant} on {wc.dataset}")
    if suite is not None and suite not in variant_suite_names(wc.dataset, wc.model, wc.variant):
        raise ValueError(
            f"{wc.model} ({wc.variant}) is not tested on suite {suite} of {wc.dataset}"
        )


def outcome_inputs(wc):
    """Everything the oracle needs for one (model, dataset, suite), over all shards."""
    check_planned(wc, wc.suite)
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


# -- research-question outputs and the HTML report ---------------------------------------------
# Output names, kinds and report entries come from hinter.rq.outputs (the registry); captions are
# the templates workflow/report/rq<N>/<name>.rst, fed by the params of the rule that writes them.
from hinter.rq import outputs as rq_outputs
from hinter.rq import captions


def rq_files(rq, kind, part=""):
    """{<name>_<ext>: path} of an RQ's tables or figures (of one part: "" = the RQ's own
    rules); the file each shows in the HTML report is registered there with its caption,
    category and label."""
    files = {}
    for out in rq_outputs.outputs(rq, kind, part):
        for ext in out.extensions:
            path = L.rq_output(rq, out.name, ext)
            if ext == out.shown:
                path = report(
                    path,
                    caption=f"../report/{out.caption}",
                    category=out.category,
                    subcategory=out.subcategory,
                    labels=out.labels,
                )
            files[f"{out.name}_{ext}"] = path
    return files


# -- grammar scores (RQ2, RQ3.3): one balanced sample per (model, dataset) of `grammar` ------
from hinter.grammar.runs import grammar_runs

try:
    GRAMMAR_RUNS = grammar_runs(config)
except ConfigError as exc:
    sys.exit(f"hinter: {exc}")


def grammar_inputs(wc):
    """Outcomes of every suite of the model, the suites' mutants and the tested documents."""
    track = model_track(wc.model)
    suites = suite_names(wc.dataset, track, wc.model)
    return {
        "outcomes": [L.outcomes(wc.model, wc.dataset, s, wc.variant) for s in suites],
        "mutants": [
            L.mutants(track, wc.dataset, s, sh) for s in suites for sh in shards(wc.dataset)
        ],
        "docs": [L.tested(wc.dataset, sh) for sh in shards(wc.dataset)],
    }


def all_grammar_scores():
    return [L.grammar_scores(r.model, r.dataset) for r in GRAMMAR_RUNS]


# -- RQ2, RQ3 and RQ1's group bias: the keys their scripts pair with their input files ---------
def grammar_keys():
    """(model, dataset) of every grammar run, in the order of all_grammar_scores()."""
    return [(r.model, r.dataset) for r in GRAMMAR_RUNS]


def validity_shard_keys():
    """(track, dataset, suite, shard) of every validity (and mutants) shard, in plan order."""
    return [
        (track, ds, suite, sh)
        for ds in DATASETS
        for track in plan.tracks(config, ds)
        for suite in suite_names(ds, track)
        for sh in shards(ds)
    ]


def validity_summary_keys():
    """(track, dataset) of every validity summary, in the order of all_validity_summaries()."""
    return [(t, ds) for ds in DATASETS for t in plan.tracks(config, ds)]


# -- RQ4-RQ6 inputs: the runs each covers (hinter.rq.runs) ----------------------------------
from hinter.rq import runs as rq_runs

RQ_ORDER = plan.RQ_ORDER  # the intersectional order of RQ4's and RQ6's figures


def rq5_outcome_keys():
    """(model, dataset, suite) of every suite of the runs with a suite of order >= 3."""
    chosen = {(r.model, r.dataset) for r in rq_runs.higher_order_runs(config)}
    return [k for k in outcome_keys() if (k[0], k[1]) in chosen]


def rq5_limits():
    """{"model/dataset": max_documents or None} of those runs' highest-order suites."""
    return {f"{r.model}/{r.dataset}": r.limit for r in rq_runs.higher_order_runs(config)}


def rq5_document_keys():
    """(dataset, shard) of the tested documents of their datasets (positions, for the limit)."""
    chosen = dict.fromkeys(r.dataset for r in rq_runs.higher_order_runs(config))
    return [(ds, sh) for ds in chosen for sh in shards(ds)]


def rq5_examples():
    return [L.examples(m, d, s) for m, d, s in rq5_outcome_keys() if len(plan.parse_suite(s)) >= 3]


def rq6_variant_keys():
    """(model, dataset, suite, variant) of the order-RQ_ORDER suites of runs with variants."""
    chosen = {(m, d) for m, d, _ in rq_runs.variant_runs(config)}
    return [
        k
        for k in variant_outcome_keys()
        if (k[0], k[1]) in chosen and len(plan.parse_suite(k[2])) == RQ_ORDER
    ]


def rq6_threshold_keys():
    """(model, dataset, suite) of the default run's order-RQ_ORDER suites that Fig. 12 covers."""
    chosen = set(rq_runs.threshold_runs(config))
    return [
        k
        for k in outcome_keys()
        if (k[0], k[1]) in chosen and len(plan.parse_suite(k[2])) == RQ_ORDER
    ]


# -- user datasets (hinter.userdata) ---------------------------------------------------------
def user_dataset_files(dataset):
    """The local files a user dataset is read from (its prompt too: a change reruns the data)."""
    from hinter import userdata

    return userdata.input_files(dataset, config, workflow.basedir)


def user_prompt(dataset):
    """The prompt file of a user dataset's LLMs (None: resources/prompts/<dataset>.yaml)."""
    from hinter import userdata

    return userdata.own_prompt(dataset, config, workflow.basedir)
