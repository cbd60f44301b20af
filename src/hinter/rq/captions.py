"""What the report's caption templates (``workflow/report/rq<N>/*.rst``) are fed: the run's
configuration as the captions quote it, and the paper's numbers. The RQ rules pass
:func:`params` as their ``params``; a template reads ``snakemake.params.settings.<key>`` and
``snakemake.params.paper.<key>``."""

from __future__ import annotations

from typing import Any

from hinter import plan
from hinter.rq import paper

PAPER = {1: paper.RQ1}


def settings(config: dict[str, Any]) -> dict[str, Any]:
    """The run's configuration values quoted by the captions (a validated config)."""
    mutation, invariant, oracle = config["mutation"], config["invariant"], config["oracle"]
    caps = [
        f"{key.replace('_', ' ')} {mutation[key]}"
        for key in ("max_mutants_per_document", "max_mutants_per_suite")
        if mutation.get(key)
    ]
    runs = plan.model_runs(config)
    return {
        "run": config["run_name"],
        "datasets": ", ".join(config["datasets"]),
        "models": ", ".join(dict.fromkeys(r.model for r in runs)) or "none",
        "attributes": ", ".join(config["attributes"]),
        "mutation_mode": mutation["mode"],
        "caps": "; ".join(caps) or "none",
        "invariant": "on" if invariant["enabled"] else "off (every mutant is valid)",
        "parser": str(config["parser"]["pipeline"]),
        "threshold": oracle["confidence_threshold"],
        "examples": oracle["examples"],
        "example_context": oracle["example_context"],
    }


def params(rq: int, config: dict[str, Any]) -> dict[str, Any]:
    """The ``params`` of a rule that writes RQ ``rq``'s outputs, for its captions."""
    return {"settings": settings(config), "paper": PAPER.get(rq, {})}
