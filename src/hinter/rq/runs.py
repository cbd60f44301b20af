"""Which (model, dataset) runs RQ5 and RQ6 cover, from the config alone (pure, light: the
Snakefile imports it at start-up to build the rules' inputs).

- RQ5: runs with a suite of three or more attributes (``mutation.higher_orders``), with the
  document limit of that suite (the paper's first 10K IMDB reviews);
- RQ6 Fig. 11: runs with more than one variant (``sensitivity``: repeats, prompt templates);
- RQ6 Fig. 12: the sensitivity models' default runs on the sensitivity datasets.
"""

from __future__ import annotations

from dataclasses import dataclass

from hinter import plan


@dataclass(frozen=True)
class HigherOrderRun:
    model: str
    dataset: str
    suite: str  # the suite of the highest order
    limit: int | None  # its max_documents: the documents Table 5 covers (None = all)


def higher_order_runs(config: dict, min_order: int = 3) -> list[HigherOrderRun]:
    """Model runs with a suite of ``min_order`` attributes or more, in plan order."""
    out = []
    for r in plan.model_runs(config):
        suites = [
            s for s in plan.suites(config, r.dataset, r.track, r.model) if s.order >= min_order
        ]
        if suites:
            top = max(suites, key=lambda s: (s.order, s.name))
            out.append(HigherOrderRun(r.model, r.dataset, top.name, top.max_documents))
    return out


def variant_runs(config: dict) -> list[tuple[str, str, list[str]]]:
    """(model, dataset, variants) of the runs with more than one variant, in plan order."""
    out = []
    for r in plan.model_runs(config):
        names = plan.variants(config, r.model, r.dataset)
        if len(names) > 1:
            out.append((r.model, r.dataset, names))
    return out


def threshold_runs(config: dict) -> list[tuple[str, str]]:
    """(model, dataset) whose default run's rates Fig. 12 recomputes under thresholds: the
    sensitivity models on the sensitivity datasets, where they are tested."""
    sens = config.get("sensitivity") or {}
    models, datasets = set(sens.get("models") or []), set(sens.get("datasets") or [])
    return [
        (r.model, r.dataset)
        for r in plan.model_runs(config)
        if r.model in models and r.dataset in datasets
    ]
