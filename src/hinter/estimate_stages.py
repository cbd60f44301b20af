"""The parts of ``hinter estimate`` beyond mutation and prediction (review 2026-11-28 G8, G9).

- **Valid shares per order** (what the LLMs, which predict valid mutants only, are sent): the
  paper's per-order pass rates of 002 Table 5 for IMDB (12.52% atomic, 1.40% pairs, 0.54% the
  triple; its pooled 2.42% for the other datasets), or the shares this workflow's invariant
  measured on real text (``resources/costs/valid_shares.json``), which are 5-50× higher: the
  paper's numbers are probably shaped by the original artifact's invariant inputs
  (docs/reconciliation.md), so a run of this workflow is costed with the measured ones.
- **Grammar scoring** (RQ2, RQ3.3): Harper's CPU time per character, measured here, over the
  sampled texts of each (model, dataset) of ``grammar``.
- **RQ tables**: the bootstraps dominate; their cost is the measured time per resampled
  document (docs/benchmarks.md: 12.8 ms per resample of 100K documents) times the documents of
  every table's groups and pooled levels. Coarse: a count of tables, not of every group.
- **CPU inference** (``--device cpu``, a run without a GPU such as ``make study``): encoders
  and local LLMs at the measured CPU unit costs, scaled by FLOPs (encoders) and prompt length
  (LLMs), training at three times the forward pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter import plan
from hinter.errors import ConfigError
from hinter.paths import RESOURCES

# 002 Table 5 (the first 10K IMDB reviews, Llama 2): generated mutants that pass, per order.
PAPER_VALID_SHARE = {"imdb": {1: 0.1252, 2: 0.0140, 3: 0.0054}}
PAPER_POOLED_VALID = 1 - 0.9758  # 002 RQ3: 97.58% of all mutants discarded
VALID_SHARES = RESOURCES / "costs" / "valid_shares.json"
SHARE_SOURCES = ("paper", "measured")

# Harper (harper-py, plain text, American) on 200 real IMDB reviews and 200 LEDGAR provisions
# of ../shared/real: 40 and 27 µs of CPU per character (48.6 and 17.0 ms per text), measured
# 2026-11-28 on the 2-core build machine; the larger figure is used.
HARPER_CPU_S_PER_CHAR = 4.0e-5
# docs/benchmarks.md, "Bootstrap intervals": 12.8 ms per resample of 100,000 documents.
BOOTSTRAP_S_PER_DOCUMENT = 12.8e-3 / 100_000
# Tables whose rows are bootstrapped over documents, per RQ, and the pooling levels of each
# (a group per cell, per model over datasets, per dataset over models, and overall).
RQ_TABLES = {1: 6, 2: 2, 3: 3, 4: 3, 5: 1, 6: 3}
POOLING_LEVELS = 4
RQ6_THRESHOLD_GROUPS = 12 * 2  # RQ6.3: 12 thresholds x 2 rules, each a full table's groups

# Encoders named by a word of their checkpoint whose size is known (others: BERT base).
KNOWN_ENCODERS = {
    "minilm-l6": {"params": 6 * (4 * 384**2 + 2 * 384 * 1536), "layers": 6, "hidden": 384},
}
MEASURED_LLM_TOKENS = 1024 + 10  # llm_prompt_cpu(_engine): a 1,024-token prompt + 10 generated
TRAINING_FACTOR = 3.0  # forward + backward ~ 3x the forward pass


def load_valid_shares(path: str | Path = VALID_SHARES) -> dict[str, float]:
    """Measured valid shares, ``<dataset or length class>_<order>`` -> share."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no measured valid shares")
    raw = json.loads(path.read_text(encoding="utf-8"))
    shares = raw.get("shares")
    if not isinstance(shares, dict) or not all(0 < float(v) <= 1 for v in shares.values()):
        raise ConfigError(f"{path}: 'shares' must map names to shares in (0, 1]")
    return {k: float(v) for k, v in shares.items()}


def load_measured(path: str | Path = VALID_SHARES) -> dict[str, Any]:
    """The measured valid shares (``shares``) and mutant densities (``mutants``)."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return {
        "shares": load_valid_shares(path),
        "mutants": dict(raw.get("mutants") or {}),
        "with_mutants": dict(raw.get("with_mutants") or {}),
    }


def measured_mutants(
    measured: Mapping[str, Any] | None,
    dataset: str,
    order: int,
    chars: float,
    growth: float,
    cap: float | None = None,
) -> float | None:
    """Generated mutants per document of one suite from a measured density, scaled to the
    window's ``chars`` like the paper's counts, a per-document ``cap`` applied to the
    documents that have mutants (``with_mutants``); None when the order is unmeasured."""
    found = (measured or {}).get("mutants", {}).get(f"{dataset}_{order}")
    if found is None:
        return None
    per_doc, at_chars = found
    mean = float(per_doc) * (chars / float(at_chars)) ** (growth * order)
    share = float((measured or {}).get("with_mutants", {}).get(f"{dataset}_{order}", 1.0))
    return share * min(mean / share, cap) if cap else mean


def valid_share(
    dataset: str, order: int, length: str, measured: Mapping[str, float] | None = None
) -> float:
    """The share of a suite's generated mutants that pass the invariant.

    ``measured`` (:func:`load_valid_shares`): the dataset's own measured share of that order,
    else its length class's, else the nearest lower order's. Else the paper's: Table 5's rate
    of the order for IMDB (its order 3 beyond), the pooled 2.42% otherwise (G8).
    """
    if measured is not None:
        for o in range(order, 0, -1):
            for name in (dataset, length):
                if f"{name}_{o}" in measured:
                    return measured[f"{name}_{o}"]
        raise ConfigError(f"{VALID_SHARES}: no measured valid share for {dataset} ({length})")
    rates = PAPER_VALID_SHARE.get(dataset)
    if rates:
        return rates.get(order, rates[max(rates)])
    return PAPER_POOLED_VALID


# --------------------------------------------------------------------------- grammar, RQ tables


def grammar_jobs(config: Mapping[str, Any], document_chars) -> list[tuple[str, float, float]]:
    """(run, texts, CPU seconds) of each grammar job: the sampled valid and discarded mutants
    of its (model, dataset) and their originals (at most as many), each at most ``max_chars``
    long, at Harper's measured cost per character."""
    grammar = config.get("grammar", {})
    sample = grammar.get("sample", {})
    mutants = sample.get("valid", 0) + sample.get("discarded", 0)
    cap = grammar.get("max_chars") or float("inf")
    out = []
    for run in plan.grammar_runs(dict(config)):
        texts = 2 * mutants
        chars = min(document_chars(config, run.dataset), cap)
        out.append((f"{run.model}/{run.dataset}", texts, texts * chars * HARPER_CPU_S_PER_CHAR))
    return out


def rq_table_seconds(config: Mapping[str, Any], tested_documents) -> dict[int, float]:
    """CPU seconds of each RQ's table job, dominated by its bootstraps: resamples x the
    documents of the (model, dataset) cells it covers, times the pooling levels and its tables.
    RQ1-RQ4 cover every model run; RQ5 the higher orders' documents (their limit); RQ6 the
    sensitivity models and datasets, with its threshold tables once per threshold and rule."""
    resamples = int(config.get("statistics", {}).get("resamples", 2000))
    runs = plan.model_runs(dict(config))

    def seconds(docs: float, tables: int) -> float:
        return resamples * docs * POOLING_LEVELS * BOOTSTRAP_S_PER_DOCUMENT * tables

    every = sum(tested_documents(config, r.dataset) for r in runs)
    out = {rq: seconds(every, RQ_TABLES[rq]) for rq in (1, 2, 3, 4)}
    higher = 0.0
    for spec in config["mutation"].get("higher_orders") or []:
        for r in runs:
            if r.dataset in (spec.get("datasets") or [r.dataset]) and r.model in (
                spec.get("models") or [r.model]
            ):
                limit = spec.get("max_documents") or float("inf")
                higher += min(tested_documents(config, r.dataset), limit)
    out[5] = seconds(higher, RQ_TABLES[5])
    sens = config.get("sensitivity") or {}
    chosen = [
        r for r in runs
        if r.model in (sens.get("models") or []) and r.dataset in (sens.get("datasets") or [])
    ]  # fmt: skip
    variants = 1 + max(0, int(sens.get("runs", 1)) - 1) + len(sens.get("prompts") or [])
    docs = sum(tested_documents(config, r.dataset) for r in chosen)
    out[6] = seconds(docs * variants, RQ_TABLES[6]) + seconds(docs, RQ6_THRESHOLD_GROUPS)
    return out


# --------------------------------------------------------------------------- CPU inference


def per_dataset(training: Mapping[str, Any], dataset: str) -> dict[str, Any]:
    """The training settings of ``dataset`` (``models.training`` with its ``per_dataset``)."""
    return {**training, **training.get("per_dataset", {}).get(dataset, {})}


def cpu_encoder_stage(out, config, run, texts, per_text, shards, train_docs) -> None:
    """An encoder's training (once per model and dataset, every epoch, at
    :data:`TRAINING_FACTOR` times a prediction) and predictions on CPU (``--device cpu``)."""
    encoder = config["models"]["encoders"][run.model]
    if encoder.get("init") != "finetuned":
        docs = train_docs * per_dataset(config["models"]["training"], run.dataset)["epochs"]
        out.stage("train_encoder", "CPU, every epoch").add(docs, docs * per_text * TRAINING_FACTOR)
    for _ in range(shards):
        out.stage("predict (encoders)", "CPU").add(texts / shards, texts / shards * per_text)


def add_analysis_stages(out, config, document_chars, tested_documents, overhead_s) -> None:
    """The grammar scoring and RQ-table stages (review 2026-11-28 G9), CPU only."""
    for _, texts, seconds in grammar_jobs(config, document_chars):
        out.stage("grammar_scores", "Harper, measured per character").add(
            texts, overhead_s + seconds
        )
    for rq, seconds in rq_table_seconds(config, tested_documents).items():
        out.stage("rq_tables", "bootstraps, coarse").add(rq, overhead_s + seconds)


def encoder_size(spec: Mapping[str, Any], default: Mapping[str, float]) -> dict[str, float]:
    """A pretrained encoder's size by a word of its checkpoint (``KNOWN_ENCODERS``)."""
    name = str(spec.get("checkpoint", "")).lower()
    return dict(next((v for k, v in KNOWN_ENCODERS.items() if k in name), default))


def cpu_encoder_seconds(flops: float, reference_flops: float, costs: Mapping[str, Any]) -> float:
    """CPU seconds of one encoder prediction: the measured bert-base cost at 512 tokens,
    scaled by FLOPs."""
    return float(costs["encoder_predict_cpu"]["cpu_s_per_unit"]) * flops / reference_flops


MEASURED_LLM_PARAMS = 1.35e8  # SmolLM2-135M


def cpu_llm_seconds(tokens: float, params: float, costs: Mapping[str, Any]) -> float:
    """CPU seconds of one local-LLM prompt on the batched engine (SmolLM2-135M's measured
    cost), scaled by the prompt's tokens (prompt + document + answer) and the parameters."""
    per = float(costs["llm_prompt_cpu_engine"]["cpu_s_per_unit"])
    return per * tokens / MEASURED_LLM_TOKENS * params / MEASURED_LLM_PARAMS


# --------------------------------------------------------------------------- user datasets


def split_sizes(config: Mapping[str, Any], dataset: str, facts) -> Mapping[str, float]:
    """A dataset's split sizes: the demo's, a user dataset's files', else the paper's."""
    data = config["data"]
    user = user_facts(config, dataset)
    if user is not None:
        return {k[len("split_") :]: v for k, v in user.items() if k.startswith("split_")}
    return data["demo"]["documents"] if data["source"] == "demo" else facts[dataset].split_sizes


def user_facts(config: Mapping[str, Any], dataset: str) -> dict[str, float] | None:
    """Split sizes and mean characters of a user dataset declared by files (None: not one),
    read from the files themselves (row counts from Parquet metadata, texts for the length),
    the holdout applied as the data stage applies it."""
    from hinter import userdata
    from hinter.config import REPO_ROOT

    spec = (config.get("user_datasets") or {}).get(dataset)
    if spec is None or not spec.get("files"):
        return None
    return _file_facts(
        tuple(sorted((s, str(userdata.resolve(v, REPO_ROOT))) for s, v in spec["files"].items())),
        spec.get("text", "text"),
        (spec.get("holdout") or {}).get("share"),
    )


_FACTS_CACHE: dict[tuple, dict[str, float]] = {}


def _file_facts(files: tuple, text: str, holdout: float | None) -> dict[str, float]:
    key = (files, text, holdout)
    if key in _FACTS_CACHE:
        return _FACTS_CACHE[key]
    import pandas as pd

    sizes: dict[str, float] = {}
    chars, rows = 0.0, 0
    for split, path in files:
        if not Path(path).is_file():
            raise ConfigError(f"{path}: not found (the estimate reads a user dataset's files)")
        if path.endswith(".parquet"):
            column = pd.read_parquet(path, columns=[text])[text]
        else:
            sep = "\t" if path.endswith(".tsv") else ","
            lines = path.endswith(".jsonl")
            frame = pd.read_json(path, lines=True) if lines else pd.read_csv(path, sep=sep)
            column = frame[text]
        sizes[split] = len(column)
        chars += float(column.astype(str).str.len().sum())
        rows += len(column)
    if holdout:
        n = sizes.get("train", 0)
        sizes["test"] = max(1, round(n * holdout))
        sizes["train"] = n - sizes["test"]
    out = {**{f"split_{k}": v for k, v in sizes.items()}, "chars": chars / max(rows, 1)}
    _FACTS_CACHE[key] = out
    return out


def cpu_llm_stage(out, config, model, variant, n, cpu_s, shards) -> None:
    """A local LLM's prompts of one variant on CPU; a repeated greedy run is read from the
    prediction cache (free), a sampled one is computed again."""
    from hinter.layout import Variant

    sampled = plan.decoding(dict(config), model, variant) is not None
    if Variant.from_name(variant).run > 1 and not sampled:
        return
    for _ in range(shards):
        out.stage("predict (local LLMs)", "CPU, batched engine").add(n / shards, cpu_s / shards)


def cpu_report(rows, head, cpu_h, cores, dates, costs_name, shares_source) -> str:
    """The report of a CPU projection: its wall time on ``cores`` cores at full use."""
    return "\n".join(
        [
            *rows,
            "",
            head,
            f"total: {cpu_h:,.2f} CPU-hours, no GPU; on {cores} cores at full use: "
            f"{cpu_h / cores * 60:,.0f} min of wall time (a lower bound: jobs wait on each "
            "other, and a shared machine gives less)",
            f"CPU costs measured {', '.join(dates)} ({costs_name}); valid shares {shares_source}",
        ]
    )


def add_arguments(parser) -> None:
    """``hinter estimate``'s options of this module: pass rates, device, cores."""
    parser.add_argument(
        "--valid-shares",
        default="paper",
        choices=SHARE_SOURCES,
        help="the invariant's pass rates per order: the paper's (002 Table 5) or measured by "
        "this workflow on real text (resources/costs/valid_shares.json)",
    )
    parser.add_argument(
        "--device", default="gpu", choices=("gpu", "cpu"), help="where the models run"
    )
    parser.add_argument("--cores", type=int, default=2, help="with --device cpu: cores for wall")
