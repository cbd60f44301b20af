"""The model runs a configuration asks for: (model, dataset) pairs, their tracks, variants and
decoding, the runs RQ6 and the grammar stage cover (pure functions of the validated config)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hinter.errors import ConfigError
from hinter.layout import DEFAULT_VARIANT, KNOWN_DATASETS, Variant


def known_dataset_names(cfg: Mapping[str, Any]) -> tuple[str, ...]:
    """The paper's datasets and the config's own (``user_datasets``, hinter.userdata)."""
    user = tuple(n for n in (cfg.get("user_datasets") or {}) if n not in KNOWN_DATASETS)
    return KNOWN_DATASETS + user


@dataclass(frozen=True)
class ModelRun:
    """One model under test on one dataset (a fine-tuned encoder or a prompted LLM)."""

    model: str
    dataset: str
    kind: str  # "encoder" | "llm"
    track: str


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


def tested_models(config: dict) -> list[str]:
    """The models under test, each once, in plan order."""
    return list(dict.fromkeys(r.model for r in model_runs(config)))


def model_track(config: dict, model: str) -> str:
    """The track (model-visible window) of a model under test."""
    for r in model_runs(config):
        if r.model == model:
            return r.track
    raise ValueError(f"unknown model {model}")


def llm_spec(config: dict, model: str) -> dict | None:
    """The ``models.llms`` entry of a model, or None for an encoder."""
    return config.get("models", {}).get("llms", {}).get(model)


def llm_backend(config: dict, model: str) -> str | None:
    """An LLM's backend (``transformers``, ``openai`` ...), None for an encoder."""
    spec = llm_spec(config, model)
    return spec["backend"] if spec else None


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
    return [m for m in tested_models(config) if keeps_discarded(config, m)]


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


def shared_decodings(config: dict, model: str, dataset: str, variant: str) -> list[dict]:
    """The sampled decodings the predict job of ``variant`` answers alongside its own from
    one prefill per prompt (:meth:`hinter.models.chat_transformers.TransformersChat.
    generate_runs`): for a local model's default run, those of its sampled repeats
    (``default-run2`` ...), which then find every answer in the prediction cache and wait for
    it (:func:`hinter.plan.targets.predict_inputs`). Their prompts are the default run's, so
    recomputing them per repeat would only repeat the prefill, most of the GPU time."""
    v = Variant.from_name(variant)
    if v.prompt != DEFAULT_VARIANT or v.run != 1:
        return []
    repeats = [r for r in variants(config, model, dataset)[1:] if Variant.from_name(r).run > 1]
    return [d for d in (decoding(config, model, r) for r in repeats) if d is not None]


def variant_spec(config: dict, model: str, variant: str = DEFAULT_VARIANT) -> dict | None:
    """The ``models.llms`` entry a variant's predictor gets: with its ``decoding`` when it
    samples (:func:`decoding`); None for an encoder."""
    spec = llm_spec(config, model)
    sampled = decoding(config, model, variant)
    if spec is None or sampled is None:
        return spec
    return {**spec, "decoding": sampled}


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


# -- RQ6: the runs its figures cover ------------------------------------------------------------
def variant_runs(config: dict) -> list[tuple[str, str, list[str]]]:
    """(model, dataset, variants) of the runs with more than one variant (RQ6 Fig. 11:
    ``sensitivity``'s repeats and prompt templates), in plan order."""
    out = []
    for r in model_runs(config):
        names = variants(config, r.model, r.dataset)
        if len(names) > 1:
            out.append((r.model, r.dataset, names))
    return out


def variant_names(config: dict) -> list[str]:
    """Every variant name of those runs, each once, in plan order."""
    return list(dict.fromkeys(v for _, _, names in variant_runs(config) for v in names))


def threshold_runs(config: dict) -> list[tuple[str, str]]:
    """(model, dataset) whose default run's rates Fig. 12 recomputes under thresholds: the
    sensitivity models on the sensitivity datasets, where they are tested."""
    sens = config.get("sensitivity") or {}
    models, datasets = set(sens.get("models") or []), set(sens.get("datasets") or [])
    return [
        (r.model, r.dataset)
        for r in model_runs(config)
        if r.model in models and r.dataset in datasets
    ]


# -- grammar scores (RQ2, RQ3.3) ----------------------------------------------------------------
def grammar_runs(config: dict[str, Any]) -> list[ModelRun]:
    """Model runs (that predict) of ``grammar.models`` on ``grammar.datasets``, in plan order.

    The bias-inducing label of a sampled mutant comes from one model's outcomes, hence one
    sample per (model, dataset); texts shared between models are checked once (score cache).
    """
    grammar = config.get("grammar", {})
    runs = model_runs(config)
    datasets, models = grammar.get("datasets"), grammar.get("models")
    # Any known dataset may be named, so that `--config datasets=[...]` narrows a run without
    # editing this section (as for the other per-dataset settings).
    if datasets is not None:
        known_datasets = known_dataset_names(config)
        unknown = sorted(set(datasets) - set(known_datasets))
        if unknown:
            raise ConfigError(
                f"config key 'grammar.datasets': unknown dataset '{unknown[0]}' "
                f"(known: {', '.join(sorted(known_datasets))})"
            )
        runs = [r for r in runs if r.dataset in datasets]
    if models is not None:
        known = {r.model for r in model_runs(config)}
        unknown = sorted(set(models) - known)
        if unknown:
            raise ConfigError(
                f"config key 'grammar.models': unknown model '{unknown[0]}' "
                f"(known: {', '.join(sorted(known))})"
            )
        runs = [r for r in runs if r.model in models]
    return runs


def document_share(runs: list[ModelRun], config: dict[str, Any], model: str, dataset: str):
    """(part, parts) of a grammar run: its index among the dataset's grammar runs when
    ``grammar.sample.disjoint``, else (0, 1) (every document)."""
    if not config["grammar"]["sample"].get("disjoint"):
        return (0, 1)
    models = [r.model for r in runs if r.dataset == dataset]
    return (models.index(model), len(models))
