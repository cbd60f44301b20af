"""What the ``grammar`` config section asks for: the (model, dataset) runs to sample and score,
the sample's options and the checker's settings (pure functions of the validated config)."""

from __future__ import annotations

from typing import Any

from hinter import plan
from hinter.errors import ConfigError
from hinter.grammar.sample import SampleOptions


def grammar_runs(config: dict[str, Any]) -> list[plan.ModelRun]:
    """Model runs (that predict) of ``grammar.models`` on ``grammar.datasets``, in plan order.

    The bias-inducing label of a sampled mutant comes from one model's outcomes, hence one
    sample per (model, dataset); texts shared between models are checked once (score cache).
    """
    grammar = config.get("grammar", {})
    runs = plan.model_runs(config)
    datasets, models = grammar.get("datasets"), grammar.get("models")
    # Any known dataset may be named, so that `--config datasets=[...]` narrows a run without
    # editing this section (as for the other per-dataset settings).
    if datasets is not None:
        known_datasets = plan.known_dataset_names(config)
        unknown = sorted(set(datasets) - set(known_datasets))
        if unknown:
            raise ConfigError(
                f"config key 'grammar.datasets': unknown dataset '{unknown[0]}' "
                f"(known: {', '.join(sorted(known_datasets))})"
            )
        runs = [r for r in runs if r.dataset in datasets]
    if models is not None:
        known = {r.model for r in plan.model_runs(config)}
        unknown = sorted(set(models) - known)
        if unknown:
            raise ConfigError(
                f"config key 'grammar.models': unknown model '{unknown[0]}' "
                f"(known: {', '.join(sorted(known))})"
            )
        runs = [r for r in runs if r.model in models]
    return runs


def sample_options(config: dict[str, Any], share: tuple[int, int] = (0, 1)) -> SampleOptions:
    """The draw's options; ``share`` = (part, parts): the model's share of the documents."""
    grammar = config["grammar"]
    sample = {k: v for k, v in grammar["sample"].items() if k != "disjoint"}
    return SampleOptions(
        **sample, max_chars=grammar["max_chars"], part=int(share[0]), parts=int(share[1])
    )


def document_share(runs: list[plan.ModelRun], config: dict[str, Any], model: str, dataset: str):
    """(part, parts) of a grammar run: its index among the dataset's grammar runs when
    ``grammar.sample.disjoint``, else (0, 1) (every document)."""
    if not config["grammar"]["sample"].get("disjoint"):
        return (0, 1)
    models = [r.model for r in runs if r.dataset == dataset]
    return (models.index(model), len(models))


def checker_settings(config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The checker's name and its options (``grammar.<checker>``)."""
    grammar = config["grammar"]
    name = grammar["checker"]
    return name, dict(grammar.get(name, {}))
