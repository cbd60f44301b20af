# Start-up: config validation, the run's layout, wildcard constraints and input functions.
# What the config asks for is planned in hinter.plan (suites, runs, targets); every path comes
# from hinter.layout (`L`). This file only wires them to Snakemake.
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
from hinter.errors import ConfigError
from hinter.layout import RunLayout
from hinter.readiness import check_ready
from hinter.plan import targets
from hinter.rq import captions
from hinter.rq import outputs as rq_outputs

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
        check_ready(config, Path.cwd(), [rule for rule, _ in jobs])
    except ConfigError as exc:
        sys.exit(f"hinter: {exc}")


config.clear()
config.update(_validated)

L = RunLayout.from_config(config)
RESOURCES = Path(workflow.basedir) / "resources"
CORE_ENV = "../envs/hinter.yaml"
MODELS_ENV = "../envs/models.yaml"
DATASETS = list(config["datasets"])
SPLITS = list(targets.JobInputs.SPLITS)
DEMO = config["data"]["source"] == "demo"
RQ_ORDER = plan.RQ_ORDER  # the intersectional order of RQ4's and RQ6's figures
MODELS = plan.tested_models(config)

# The files the target rules and the RQ tables read, as hinter.plan.targets records (keys and
# path): a rule's input lists their paths and its `files` param the records themselves.
SHARDS = targets.shards(config, L)
OUTCOMES = targets.outcomes(config, L)
GRAMMAR_SCORES = targets.grammar_scores(config, L)
VALIDITY_SUMMARIES = targets.validity_summaries(config, L)
paths = targets.paths


wildcard_constraints:
    dataset="|".join(DATASETS),
    split="train|validation|test",
    shard=r"\d{3}",
    suite=r"(atomic|inter)-[A-Za-z0-9_+-]+",
    track=r"[A-Za-z0-9_-]+",
    model=r"[A-Za-z0-9_.-]+",
    variant=r"[A-Za-z0-9_]+(-run[0-9]+)?",


# -- input functions: per-job inputs and params (hinter.plan.targets.JobInputs), named `J.<what>`
J = targets.JobInputs(config, L)


def parser_input(wildcards):
    """A pipeline directory is an input of the invariant: a retrained one reruns it."""
    pipeline = config["parser"]["pipeline"]
    return [pipeline] if config["invariant"]["enabled"] and Path(pipeline).is_dir() else []


# -- research-question outputs and the HTML report ---------------------------------------------
# Output names, kinds and report entries come from hinter.rq.outputs (the registry); captions are
# the templates workflow/report/rq<N>/<name>.rst, fed by the params of the rule that writes them.
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


# -- user datasets (hinter.userdata) ---------------------------------------------------------
from hinter import userdata


def user_dataset_files(wildcards):
    """The local files a user dataset is read from (its prompt too: a change reruns the data)."""
    return userdata.input_files(wildcards.dataset, config, workflow.basedir)


def user_prompt(wildcards):
    """The prompt file of a user dataset's LLMs (None: resources/prompts/<dataset>.yaml)."""
    return userdata.own_prompt(wildcards.dataset, config, workflow.basedir)
