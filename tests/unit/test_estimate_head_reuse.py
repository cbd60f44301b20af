"""`hinter estimate` charges a local LLM's prompt only the document tokens the chat engine
computes with document head reuse (issue 33): the measured share per (dataset, order), the
originals whole, API models and the plain path untouched."""

from __future__ import annotations

import pytest

from hinter import estimate, plan
from hinter.config import load_yaml, validate_config


@pytest.fixture(scope="module")
def paper(repo):
    return validate_config(load_yaml(repo / "config" / "config.yaml"))


def test_head_reuse_share_weighs_suites_and_keeps_originals_whole(paper, monkeypatch):
    run = next(r for r in plan.model_runs(paper) if r.dataset == "imdb" and r.model == "llama2")
    suites = plan.suites(paper, "imdb", run.track, "llama2")
    monkeypatch.setattr(estimate, "HEAD_REUSE", {})
    assert estimate.head_reuse_share(paper, "imdb", run.track, suites, "llama2") == 1.0
    monkeypatch.setattr(estimate, "HEAD_REUSE", {("imdb", o): 0.5 for o in (1, 2, 3)})
    share = estimate.head_reuse_share(paper, "imdb", run.track, suites, "llama2")
    # the valid mutants the LLM predicts: 002 Table 5's share of each order for IMDB
    rates = {1: 0.1252, 2: 0.0140, 3: 0.0054}
    mutants = sum(
        rates[s.order] * estimate.suite_mutants(paper, "imdb", run.track, s) for s in suites
    )
    docs = estimate.tested_documents(paper, "imdb")
    assert share == pytest.approx((docs + 0.5 * mutants) / (docs + mutants))


def test_projection_charges_the_computed_share(paper, monkeypatch):
    costs = estimate.load_unit_costs()
    monkeypatch.setattr(estimate, "HEAD_REUSE", {})
    before = estimate.project(paper, costs, gpu="v100")
    every = {(d, o): 0.5 for d in estimate.PROMPT_TOKENS for o in (1, 2, 3)}
    monkeypatch.setattr(estimate, "HEAD_REUSE", every)
    after = estimate.project(paper, costs, gpu="v100")
    llm = "predict (local LLMs)"
    assert after.stages[llm].gpu_hours < 0.75 * before.stages[llm].gpu_hours
    assert after.plain_gpu_hours == before.plain_gpu_hours
    assert after.api_usd == before.api_usd
    assert (
        after.stages["predict (encoders)"].gpu_hours
        == before.stages["predict (encoders)"].gpu_hours
    )


def test_measured_shares_are_shares():
    assert estimate.HEAD_REUSE
    for (dataset, order), share in estimate.HEAD_REUSE.items():
        assert dataset in estimate.PROMPT_TOKENS and order in (1, 2, 3)
        assert 0 < share <= 1


def test_the_paper_projection_is_under_half_a_percent_of_the_papers_gpu_time(paper):
    """Issue 33's goal, from the measured shares and the engine as it runs: all GPU work of the
    paper config on V100s against the 5,500 V100 GPU-days 001 reports for testing; the report
    prints the share."""
    from argparse import Namespace

    from hinter import estimate_report

    projection = estimate.project(paper, estimate.load_unit_costs(), gpu="v100")
    gpu_days = sum(s.gpu_hours for s in projection.stages.values()) / 24
    assert gpu_days / estimate.PAPER_GPU_DAYS <= 0.005
    args = Namespace(configfile=str(estimate_report.REPO_ROOT / "config" / "config.yaml"),
                     gpu="v100", costs=str(estimate.UNIT_COSTS))  # fmt: skip
    line = f"this projection is {gpu_days / estimate.PAPER_GPU_DAYS:.2%} of it"
    assert line in estimate_report.run(args)
    assert "of it" not in estimate_report.run(Namespace(**{**vars(args), "gpu": "h100"}))
