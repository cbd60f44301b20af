"""What the report's caption templates (``workflow/report/rq<N>/*.rst``) are fed: the run's
configuration as the captions quote it, and the paper's numbers. The RQ rules pass
:func:`params` as their ``params``; a template reads ``snakemake.params.settings.<key>`` and
``snakemake.params.paper.<key>``."""

from __future__ import annotations

from typing import Any

from hinter import plan
from hinter.rq import paper
from hinter.rq.intervals import Bootstrap

PAPER = {1: paper.RQ1, 2: paper.RQ2, 3: paper.RQ3, 4: paper.RQ4, 5: paper.RQ5, 6: paper.RQ6}


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
        "sentence_cap": sentence_cap(invariant),
        "fewshot": fewshot(config),
        "parser": str(config["parser"]["pipeline"]),
        "threshold": oracle["confidence_threshold"],
        "examples": oracle["examples"],
        "example_context": oracle["example_context"],
        **_statistics_and_grammar(config),
        **_rq456_settings(config),
    }


def sentence_cap(invariant: dict[str, Any]) -> str:
    """The invariant's sentence cap as the RQ3 captions quote it: the cap is the original
    artifact's (``limit_sentence_length=500``), not Alg. 3's, and a caption says so (review
    2026-11-28 G2)."""
    cap = invariant.get("max_sentence_chars", 500)
    if cap is None:
        return "none (invariant.max_sentence_chars: null, as Alg. 3)"
    return (
        f"a changed sentence over {cap} characters discards its mutant unparsed (too_long; "
        "the original artifact's cap, Alg. 3 has none; null turns it off)"
    )


def fewshot(config: dict[str, Any]) -> str:
    """Whose few-shot examples each LLM-tested dataset's prompt shows, as RQ1's captions say it
    (review 2026-11-28 G4): the paper's (a paper dataset from the hub: found by content or by
    the paper's rows, or a user dataset naming them), or stand-ins."""
    tested = set(config["datasets"])
    datasets = sorted(
        {d for spec in config["models"]["llms"].values() for d in spec["datasets"]} & tested
    )
    if not datasets:
        return "no LLM tested"
    parts = []
    user = config.get("user_datasets") or {}
    for d in datasets:
        spec = user.get(d)
        if spec is None:
            parts.append(f"{d}: the paper's (001 Table 8)")
        elif spec.get("fewshot"):
            named = ", ".join(str(x.get("file") or x.get("id")).rsplit("/", 1)[-1]
                              for x in spec["fewshot"])  # fmt: skip
            parts.append(f"{d}: named in the config ({named})")
        else:
            parts.append(
                f"{d}: none named; the paper's if the train split holds them, else the first "
                "train rows of distinct labels stand in and the prompt is not the paper's "
                "(a warning in the predict log)"
            )
    return "; ".join(parts)


def _statistics_and_grammar(config: dict[str, Any]) -> dict[str, Any]:
    """What the RQ2/RQ3 and group-bias captions quote: the bootstrap, the grammar sample,
    whether discarded mutants were predicted."""
    stats = config.get("statistics", {})
    grammar = config.get("grammar", {})
    sample = grammar.get("sample", {})
    return {
        "resamples": stats.get("resamples", 2000),
        "confidence": f"{100 * stats.get('confidence', 0.95):g}%",
        "statistics_seed": stats.get("seed", 42),
        # the intervals of every RQ table (hinter.rq.intervals), as one sentence
        "intervals": Bootstrap.from_config(config).describe(),
        "grammar_checker": grammar.get("checker", "harper"),
        "grammar_sample": (
            f"{sample.get('valid', 0)} valid and {sample.get('discarded', 0)} discarded mutants "
            f"per model and dataset, {100 * sample.get('bias_share', 0):g}% bias-inducing, "
            f"seed {sample.get('seed', '')}"
        ),
        "keep_discarded": _keep_discarded(config),
    }


def _order_note(suite: dict[str, Any], config: dict[str, Any]) -> str:
    """Which order a document limit cuts (``data.order``, :mod:`hinter.tested_order`)."""
    orders = (config.get("data") or {}).get("order") or {}
    balanced = [
        d for d in suite.get("datasets") or config["datasets"] if orders.get(d) == "balanced"
    ]
    return f" (of a seeded, label-balanced order on {', '.join(balanced)})" if balanced else ""


def _keep_discarded(config: dict[str, Any]) -> str:
    """Which models predicted the discarded mutants, as the RQ3 captions say it."""
    keep = config["invariant"].get("keep_discarded", True)
    if keep is True:
        return "predicted too (invariant.keep_discarded: true)"
    models = plan.discarded_models(config)
    if not models:
        return f"not predicted (invariant.keep_discarded: {str(keep).lower()})"
    return (
        f"predicted by {', '.join(models)} only (invariant.keep_discarded: "
        f"[{', '.join(keep)}]); the other models predicted valid mutants only"
    )


def _runs_decoding(sens: dict[str, Any]) -> str:
    """How RQ6.1's repeated runs decode, as the RQ6 captions say it."""
    runs = int(sens.get("runs", 1))
    counted = f"{runs} run(s) of the default prompt, the default run included"
    if sens.get("runs_decoding", "greedy") == "sampled":
        s = {"temperature": 0.6, "top_p": 0.9, "top_k": 50, "seed": 42,
             **(sens.get("sampling") or {})}  # fmt: skip
        return (
            f"{counted}: the default run greedy (Table 3), its {runs - 1} repeat(s) sampled as "
            f"the original did (temperature {s['temperature']:g}, top-p {s['top_p']:g}, "
            f"top-k {s['top_k']}, run k seeded {s['seed']} + k); the runs' spread is over "
            "the sampled repeats"
        )
    return (
        f"{counted}, all greedy: a local model's repeats are identical to the default run by "
        "design (zero variance is no finding); sensitivity.runs_decoding: sampled varies them"
    )


def _rq456_settings(config: dict[str, Any]) -> dict[str, Any]:
    """What the RQ4-RQ6 captions quote: intervals, higher orders, RQ6's variants and thresholds."""
    stats = config.get("statistics") or {}
    sens = config.get("sensitivity") or {}
    higher = [
        f"N={h['order']} on {', '.join(h.get('datasets') or ['every dataset'])}"
        + (f" with {', '.join(h['models'])}" if h.get("models") else "")
        + (f", first {h['max_documents']:,} documents" if h.get("max_documents") else "")
        + (_order_note(h, config) if h.get("max_documents") else "")
        for h in config["mutation"].get("higher_orders") or []
    ]
    return {
        "resamples": stats.get("resamples", 2000),
        "level": round(100 * float(stats.get("confidence", 0.95))),
        "higher_orders": "; ".join(higher) or "none",
        "sensitivity_models": ", ".join(sens.get("models") or []) or "none",
        "sensitivity_datasets": ", ".join(sens.get("datasets") or []) or "none",
        "sensitivity_runs": sens.get("runs", 1),
        "sensitivity_decoding": _runs_decoding(sens),
        "sensitivity_prompts": ", ".join(sens.get("prompts") or []) or "none",
        "thresholds": ", ".join(f"{100 * t:g}%" for t in sens.get("thresholds") or [0.0]),
        "threshold_rule": sens.get("threshold_rule", "exclude"),
    }


def params(rq: int, config: dict[str, Any]) -> dict[str, Any]:
    """The ``params`` of a rule that writes RQ ``rq``'s outputs, for its captions."""
    return {"settings": settings(config), "paper": PAPER.get(rq, {})}
