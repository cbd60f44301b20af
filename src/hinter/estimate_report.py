"""``hinter estimate``'s command line and printed report over :mod:`hinter.estimate`'s projection
(kept apart so the cost model stays one readable module)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from hinter import estimate_stages as stages
from hinter.config import REPO_ROOT, load_yaml, validate_config
from hinter.estimate import (
    GPUS,
    PAPER_GPU_DAYS,
    PLANNING_GPU,
    UNIT_COSTS,
    UTILISATION,
    Projection,
    load_unit_costs,
    project,
)


def _human(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:.2f}B"
    if x >= 1e6:
        return f"{x / 1e6:.1f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}K"
    return f"{x:.0f}"


def _paper_share(projection: Projection, gpu_h: float) -> list[str]:
    """On the paper's GPU, the projection as a share of the paper's own testing time."""
    if projection.gpu != "v100":
        return []
    return [
        f"the paper's testing took {PAPER_GPU_DAYS:,} V100 GPU-days (001, Compute Time): "
        f"this projection is {gpu_h / 24 / PAPER_GPU_DAYS:.2%} of it"
    ]


def report(
    projection: Projection,
    costs: Mapping[str, Mapping[str, Any]],
    cores: int = 2,
    shares_source: str = "paper (002 Table 5 per order for IMDB, 2.42% otherwise)",
) -> str:
    gpu = GPUS.get(projection.gpu, {"name": "CPU"})
    rows = [f"{'rule':24s} {'jobs':>6s} {'units':>8s} {'CPU-h':>10s} {'GPU-h':>10s} "
            f"{'max h/job':>9s}  note"]  # fmt: skip
    for s in projection.stages.values():
        rows.append(
            f"{s.rule:24s} {s.jobs:6d} {_human(s.units):>8s} {s.cpu_hours:10.1f} "
            f"{s.gpu_hours:10.1f} {s.max_job_hours:9.2f}  {s.note}"
        )
    cpu_h = sum(s.cpu_hours for s in projection.stages.values())
    gpu_h = sum(s.gpu_hours for s in projection.stages.values())
    dates = sorted({entry["date"] for entry in costs.values()})
    if projection.gpu == "cpu":
        head = f"DAG: {projection.jobs} jobs; {_human(projection.mutants)} generated mutants"
        return stages.cpu_report(rows, head, cpu_h, cores, dates, UNIT_COSTS.name, shares_source)
    rows += [
        "",
        f"DAG: {projection.jobs} jobs in the modelled rules; "
        f"{_human(projection.mutants)} generated mutants",
        f"total: {cpu_h:,.0f} CPU-hours ({cpu_h / 24:,.1f} CPU-days), "
        f"{gpu_h:,.0f} GPU-hours ({gpu_h / 24:,.1f} GPU-days) on {gpu['name']}",
        *_paper_share(projection, gpu_h),
        f"local LLMs on today's plain path (one prompt at a time): "
        f"{projection.plain_gpu_hours:,.0f} GPU-hours instead",
        f"API LLMs at their configured prices: ${projection.api_usd:,.0f} "
        f"(largest job ${projection.api_max_job_usd:,.2f}, what max_cost_usd caps)",
        f"CPU costs measured {', '.join(dates)} ({UNIT_COSTS.name}); GPU figures extrapolated "
        f"from FLOPs at {UTILISATION['encoder_inference']:.0%}-{UTILISATION['prefill']:.0%} "
        "of the datasheet peak (see docs/benchmarks.md)",
    ]
    return "\n".join(rows)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--configfile", default=str(REPO_ROOT / "config" / "config.yaml"))
    parser.add_argument("--gpu", default=PLANNING_GPU, choices=sorted(GPUS))
    parser.add_argument("--costs", default=str(UNIT_COSTS), help="measured unit costs (JSON)")
    stages.add_arguments(parser)


def run(args: argparse.Namespace) -> str:
    """``hinter estimate``: validate the config, project it, return the printed report."""
    config = validate_config(load_yaml(args.configfile))
    costs = load_unit_costs(args.costs)
    measured = getattr(args, "valid_shares", "paper") == "measured"
    shares = stages.load_measured() if measured else None
    device = getattr(args, "device", "gpu")
    source = f"measured ({stages.VALID_SHARES.name})" if measured else "paper (002 Table 5)"
    projection = project(config, costs, args.gpu, shares=shares, device=device)
    return report(projection, costs, getattr(args, "cores", 2), source)
