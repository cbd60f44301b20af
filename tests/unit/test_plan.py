"""The DAG plan: suites, tracks, model runs and shards follow from the config alone."""

from __future__ import annotations

import pytest

from hinter import plan
from hinter.config import load_yaml, validate_config


@pytest.fixture(scope="module")
def paper(repo):
    return validate_config(load_yaml(repo / "config" / "config.yaml"))


@pytest.fixture(scope="module")
def demo(repo):
    return validate_config(load_yaml(repo / "config" / "demo.yaml"))


def test_suite_names_follow_design():
    assert plan.suite_name(("race",)) == "atomic-race"
    assert plan.suite_name(("gender", "race")) == "inter-race+gender"
    assert plan.suite_name(("race", "gender")) == "inter-race+gender"
    assert plan.suite_name(("gender", "body")) == "inter-body+gender"
    assert plan.suite_name(("race", "body")) == "inter-body+race"
    assert plan.suite_name(("race", "gender", "body")) == "inter-body+gender+race"
    for attrs in [("race",), ("gender", "race"), ("body", "gender", "race"), ("age", "religion")]:
        assert plan.parse_suite(plan.suite_name(attrs)) == tuple(sorted(attrs))
    with pytest.raises(ValueError):
        plan.parse_suite("atomic-race+gender")


def test_paper_suites_per_dataset_and_track(paper):
    base = [
        "atomic-body",
        "atomic-gender",
        "atomic-race",
        "inter-body+gender",
        "inter-body+race",
        "inter-race+gender",
    ]
    assert [s.name for s in plan.suites(paper, "ecthr_a", "encoder")] == base
    imdb_llm = plan.suites(paper, "imdb", "llm")
    assert [s.name for s in imdb_llm] == [*base, "inter-body+gender+race"]
    assert imdb_llm[-1].max_documents == 10000
    # RQ5's N=3 suite is tested with Llama 2 only, not with GPT-3.5.
    assert "inter-body+gender+race" in [s.name for s in plan.suites(paper, "imdb", "llm", "llama2")]
    assert "inter-body+gender+race" not in [
        s.name for s in plan.suites(paper, "imdb", "llm", "gpt35")
    ]
    assert [s.name for s in plan.suites(paper, "scotus", "llm")] == base


def test_paper_model_runs_and_tracks(paper):
    runs = plan.model_runs(paper)
    encoders = [r for r in runs if r.kind == "encoder"]
    assert len(encoders) == 16
    assert {r.dataset for r in encoders} == {"ecthr_a", "scotus", "eurlex", "ledgar"}
    assert len([r for r in runs if r.kind == "llm"]) == 10
    assert plan.tracks(paper, "imdb") == ["llm"]
    assert plan.tracks(paper, "ledgar") == ["encoder", "llm"]


def test_atomic_suites_always_present_for_parents(demo):
    cfg = {**demo, "mutation": {**demo["mutation"], "orders": [2]}}
    names = [s.name for s in plan.suites(cfg, "scotus", "encoder")]
    assert {"atomic-race", "atomic-gender", "atomic-body"} <= set(names)


def test_unlimited_request_wins_over_limited(demo):
    extra = [{"order": 2, "datasets": None, "models": None, "max_documents": 5}]
    cfg = {**demo, "mutation": {**demo["mutation"], "higher_orders": extra}}
    assert all(s.max_documents is None for s in plan.suites(cfg, "imdb", "encoder"))


def test_shards(paper, demo):
    n = paper["mutation"]["shards"]["eurlex"]
    assert plan.shard_ids(paper, "eurlex") == [f"{i:03d}" for i in range(n)]
    assert plan.shard_ids(demo, "imdb") == ["000", "001"]
    assert plan.shard_ids(demo, "scotus") == ["000"]


def test_rq6_variants_are_planned_from_the_sensitivity_section(paper, demo):
    assert plan.variants(paper, "llama2", "imdb") == [
        "default",
        "default-run2",
        "default-run3",
        "default-run4",  # the paper's "three additional runs": runs counts the default one
        "alt1",
        "alt2",
    ]
    assert plan.variants(paper, "llama2", "ecthr_a") == ["default"]
    assert plan.variants(paper, "gpt35", "imdb") == ["default"]
    assert plan.variants(paper, "bert", "scotus") == ["default"]
    assert plan.prompt_templates(paper, "llama2", "scotus") == ["default", "alt1", "alt2"]
    assert plan.variants(demo, "smollm2", "scotus") == ["default", "default-run2", "alt1"]


def test_llm_tracks_know_their_models_and_prompts(paper):
    llms = plan.track_llms(paper, "llm", "imdb")
    assert [(name, templates) for name, _, templates in llms] == [
        ("llama2", ["default", "alt1", "alt2"]),
        ("gpt35", ["default"]),
    ]
    assert llms[1][1]["tokenizer"] == "tiktoken:cl100k_base"
    assert plan.track_llms(paper, "encoder", "scotus") == []
    runs = plan.model_runs(paper)
    assert {(r.model, r.dataset) for r in runs if r.kind == "llm"} == {
        (m, d)
        for m in ("llama2", "gpt35")
        for d in ("ecthr_a", "scotus", "eurlex", "ledgar", "imdb")
    }


def test_keep_discarded_per_model_and_group(paper):
    """F1: the paper ran the discarded mutants on its fine-tuned encoders only (001 RQ3.2)."""
    llms = list(paper["models"]["llms"])
    encoders = list(paper["models"]["encoders"])
    assert paper["invariant"]["keep_discarded"] == ["encoders"]
    assert plan.discarded_models(paper) == encoders
    assert not any(plan.keeps_discarded(paper, m) for m in llms)

    def keep(value):
        return validate_config({**paper, "invariant": {**paper["invariant"],
                                                        "keep_discarded": value}})  # fmt: skip

    assert plan.discarded_models(keep(True)) == encoders + llms
    assert plan.discarded_models(keep(False)) == []
    assert plan.discarded_models(keep(["llms", "bert"])) == ["bert", *llms]
    assert plan.discarded_models(keep(["gpt35"])) == ["gpt35"]


def test_keep_discarded_names_known_models_only(paper):
    from hinter.errors import ConfigError

    bad = {**paper, "invariant": {**paper["invariant"], "keep_discarded": ["encoder"]}}
    with pytest.raises(ConfigError, match=r"'invariant.keep_discarded': unknown model or group"):
        validate_config(bad)


def test_rq6_repeats_sample_with_one_seed_per_run_in_the_paper_config(paper, demo):
    """F6: the default run (Table 3) and the templates are greedy; the paper config's repeated
    runs sample as the original did (Llama 2's hub generation config), seeded per run."""
    assert plan.decoding(paper, "llama2", "default") is None
    assert plan.decoding(paper, "llama2", "alt1") is None
    assert plan.decoding(paper, "bert", "default") is None
    run2 = plan.decoding(paper, "llama2", "default-run2")
    assert run2 == {"mode": "sampled", "temperature": 0.6, "top_p": 0.9, "top_k": 50,
                    "seed": 44}  # fmt: skip
    assert plan.decoding(paper, "llama2", "default-run3")["seed"] == 45
    assert plan.variant_spec(paper, "llama2", "default-run2")["decoding"] == run2
    assert "decoding" not in plan.variant_spec(paper, "llama2", "default")
    assert plan.variant_spec(paper, "bert", "default") is None
    # greedy repeats (the demo) and an API model's repeats get no sampled decoding
    assert plan.decoding(demo, "smollm2", "default-run2") is None
    api = {**paper, "sensitivity": {**paper["sensitivity"], "models": ["gpt35"]}}
    assert plan.decoding(api, "gpt35", "default-run2") is None
