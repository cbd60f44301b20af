"""What a configuration asks for: suites, tracks, model runs and shards.

The workflow's DAG follows from the config alone (no checkpoints), so every enumeration the
Snakefile needs lives here as a pure function of the validated config. Keep imports light: the
Snakefile imports this module in the main Snakemake process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from hinter.layout import DEFAULT_VARIANT, KNOWN_DATASETS, Variant


def known_dataset_names(cfg: Mapping[str, Any]) -> tuple[str, ...]:
    """The paper's datasets and the config's own (``user_datasets``, hinter.userdata)."""
    user = tuple(n for n in (cfg.get("user_datasets") or {}) if n not in KNOWN_DATASETS)
    return KNOWN_DATASETS + user


# The paper names the race x gender combination "race+gender"; every other suite lists its
# attributes alphabetically (docs/design.md §4: inter-body+gender, inter-body+race,
# inter-body+gender+race).
_PAPER_ORDER = {("gender", "race"): ("race", "gender")}


@dataclass(frozen=True)
class Suite:
    """A mutation suite: the attributes mutated together and an optional document limit."""

    attributes: tuple[str, ...]
    max_documents: int | None = None

    @property
    def order(self) -> int:
        return len(self.attributes)

    @property
    def name(self) -> str:
        return suite_name(self.attributes)


@dataclass(frozen=True)
class ModelRun:
    """One model under test on one dataset (a fine-tuned encoder or a prompted LLM)."""

    model: str
    dataset: str
    kind: str  # "encoder" | "llm"
    track: str


def suite_name(attributes: tuple[str, ...] | list[str]) -> str:
    """Canonical suite name: ``atomic-<a>`` or ``inter-<a>+<b>[+<c>...]``."""
    attrs = tuple(sorted(attributes))
    if len(attrs) == 1:
        return f"atomic-{attrs[0]}"
    return "inter-" + "+".join(_PAPER_ORDER.get(attrs, attrs))


def parse_suite(name: str) -> tuple[str, ...]:
    """Inverse of :func:`suite_name`: the sorted attributes of a suite name."""
    kind, _, rest = name.partition("-")
    if kind not in ("atomic", "inter") or not rest:
        raise ValueError(f"not a suite name: {name!r}")
    attrs = tuple(sorted(rest.split("+")))
    if (kind == "atomic") != (len(attrs) == 1):
        raise ValueError(f"not a suite name: {name!r}")
    return attrs


def model_runs(config: dict) -> list[ModelRun]:
    """Every (model, dataset) pair under test, encoders first, in config order."""
    runs = []
    models = config.get("models", {})
    for name, spec in models.get("encoders", {}).items():
        for ds in spec["datasets"]:
            runs.append(ModelRun(name, ds, "encoder", spec.get("track", "encoder")))
    for name, spec in models.get("llms", {}).items():
        if not spec.get("enabled", True):
            continue
        for ds in spec["datasets"]:
            runs.append(ModelRun(name, ds, "llm", spec.get("track", "llm")))
    return [r for r in runs if r.dataset in config["datasets"]]


def llm_spec(config: dict, model: str) -> dict | None:
    """The ``models.llms`` entry of a model, or None for an encoder."""
    return config.get("models", {}).get("llms", {}).get(model)


# The groups ``invariant.keep_discarded`` may name beside model names, by model kind.
KEEP_DISCARDED_GROUPS = {"encoders": "encoder", "llms": "llm"}


def keeps_discarded(config: dict, model: str) -> bool:
    """Whether ``model`` predicts the mutants the invariant discarded (RQ3.2's false positives).

    ``invariant.keep_discarded``: true / false for every model, or a list of model names and
    the groups ``encoders`` / ``llms``. The paper ran discarded mutants on its fine-tuned
    encoders only (001 RQ3.2): the paper config says ``[encoders]``.
    """
    keep = (config.get("invariant") or {}).get("keep_discarded", True)
    if isinstance(keep, bool):
        return keep
    kind = "llm" if llm_spec(config, model) is not None else "encoder"
    groups = {KEEP_DISCARDED_GROUPS[g] for g in keep if g in KEEP_DISCARDED_GROUPS}
    return model in keep or kind in groups


def discarded_models(config: dict) -> list[str]:
    """The models under test that predict discarded mutants, in plan order."""
    names = dict.fromkeys(r.model for r in model_runs(config))
    return [m for m in names if keeps_discarded(config, m)]


def variants(config: dict, model: str, dataset: str) -> list[str]:
    """Variant names of a (model, dataset): ``default``, then RQ6's repeated runs
    (``default-run2`` ...) and alternative prompt templates, where ``sensitivity`` names both."""
    names = [DEFAULT_VARIANT]
    sens = config.get("sensitivity") or {}
    if model in (sens.get("models") or []) and dataset in (sens.get("datasets") or []):
        names += [Variant(DEFAULT_VARIANT, k).name for k in range(2, int(sens["runs"]) + 1)]
        names += [Variant(p).name for p in sens.get("prompts") or []]
    return names


def decoding(config: dict, model: str, variant: str = DEFAULT_VARIANT) -> dict | None:
    """The sampled decoding of a model's variant, or None for greedy (every default run, every
    prompt template's first run, an API model, and repeats under ``runs_decoding: greedy``).

    ``sensitivity.runs_decoding: sampled`` makes RQ6.1's repeated runs of a local model
    (``default-run2`` ...) sample as the original artifact did (``sensitivity.sampling``),
    with seed ``sampling.seed + k`` for run k."""
    sens = config.get("sensitivity") or {}
    spec = llm_spec(config, model)
    v = Variant.from_name(variant)
    if spec is None or spec.get("backend") != "transformers" or v.run == 1:
        return None
    if sens.get("runs_decoding", "greedy") != "sampled":
        return None
    sampling = {"temperature": 0.6, "top_p": 0.9, "top_k": 50, "seed": 42,
                **(sens.get("sampling") or {})}  # fmt: skip
    return {"mode": "sampled", **{k: sampling[k] for k in ("temperature", "top_p", "top_k")},
            "seed": int(sampling["seed"]) + v.run}  # fmt: skip


def variant_spec(config: dict, model: str, variant: str = DEFAULT_VARIANT) -> dict | None:
    """The ``models.llms`` entry a variant's predictor gets: with its ``decoding`` when it
    samples (:func:`decoding`); None for an encoder."""
    spec = llm_spec(config, model)
    sampled = decoding(config, model, variant)
    if spec is None or sampled is None:
        return spec
    return {**spec, "decoding": sampled}


# The intersectional order of RQ4's and RQ6's figures (the paper's: N=2).
RQ_ORDER = 2


def variant_suites(
    config: dict, dataset: str, track: str, model: str, variant: str = DEFAULT_VARIANT
) -> list[Suite]:
    """Suites a model's variant is tested on: every suite for the default run; RQ6's repeated
    runs and alternative prompts only read the order-:data:`RQ_ORDER` suites (and their atomic
    parents), so they predict no higher order."""
    planned = suites(config, dataset, track, model)
    if variant == DEFAULT_VARIANT:
        return planned
    return [s for s in planned if s.order <= RQ_ORDER]


def prompt_templates(config: dict, model: str, dataset: str) -> list[str]:
    """Prompt templates an LLM is run with on a dataset (its variants' templates)."""
    return list(
        dict.fromkeys(Variant.from_name(v).prompt for v in variants(config, model, dataset))
    )


def track_llms(config: dict, track: str, dataset: str) -> list[tuple[str, dict, list[str]]]:
    """(name, spec, templates) of the LLMs that test ``dataset`` in ``track`` (its window)."""
    return [
        (r.model, llm_spec(config, r.model), prompt_templates(config, r.model, r.dataset))
        for r in model_runs(config)
        if r.kind == "llm" and r.track == track and r.dataset == dataset
    ]


def tracks(config: dict, dataset: str) -> list[str]:
    """Tracks (model-visible windows) needed for a dataset, in first-use order."""
    seen: list[str] = []
    for run in model_runs(config):
        if run.dataset == dataset and run.track not in seen:
            seen.append(run.track)
    return seen


def suites(config: dict, dataset: str, track: str, model: str | None = None) -> list[Suite]:
    """Suites to generate for (dataset, track), or to test for one model when ``model`` is given.

    Base orders apply everywhere; ``mutation.higher_orders`` entries only where their dataset and
    model filters match. Atomic suites of every tested attribute are always present, because the
    atomic parents of intersectional mutants are needed to decide hidden bias.
    """
    attributes = list(config["attributes"])
    mutation = config.get("mutation", {})
    wanted: dict[tuple[str, ...], int | None] = {}

    def add(order: int, limit: int | None) -> None:
        for combo in combinations(sorted(attributes), order):
            if combo not in wanted:
                wanted[combo] = limit
            elif wanted[combo] is not None:  # an unlimited request wins over a limited one
                wanted[combo] = None if limit is None else max(wanted[combo], limit)

    add(1, None)
    for order in mutation.get("orders", [1, 2]):
        if order <= len(attributes):
            add(order, None)
    track_models = {
        r.model for r in model_runs(config) if r.dataset == dataset and r.track == track
    }
    for extra in mutation.get("higher_orders", []):
        if extra["order"] > len(attributes):
            continue
        if extra.get("datasets") is not None and dataset not in extra["datasets"]:
            continue
        allowed = extra.get("models")
        if allowed is not None:
            if model is not None and model not in allowed:
                continue
            if model is None and not track_models.intersection(allowed):
                continue
        add(extra["order"], extra.get("max_documents"))
    result = [Suite(combo, limit) for combo, limit in wanted.items()]
    return sorted(result, key=lambda s: (s.order, s.name))


def shard_ids(config: dict, dataset: str) -> list[str]:
    """Zero-padded shard identifiers of a dataset ("000", "001", ...)."""
    mutation = config.get("mutation", {})
    n = mutation.get("shards", {}).get(dataset, mutation.get("default_shards", 4))
    return [f"{i:03d}" for i in range(n)]


def n_shards(config: dict, dataset: str) -> int:
    return len(shard_ids(config, dataset))
