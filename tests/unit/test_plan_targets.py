"""hinter.plan.targets: the files the rules enumerate, as records, without Snakemake."""

from __future__ import annotations

import pytest

from hinter import plan
from hinter.config import load_yaml, validate_config
from hinter.layout import RunLayout
from hinter.plan import targets


@pytest.fixture(scope="module")
def paper(repo):
    return validate_config(load_yaml(repo / "config" / "config.yaml"))


@pytest.fixture(scope="module")
def demo(repo):
    return validate_config(load_yaml(repo / "config" / "demo.yaml"))


def test_records_carry_their_keys_and_their_layout_path(demo):
    L = RunLayout.from_config(demo)
    outcomes = targets.outcomes(demo, L)
    assert outcomes and all(t.path == L.outcomes(t.model, t.dataset, t.suite) for t in outcomes)
    for t in targets.shards(demo, L):
        assert t.mutants == L.mutants(t.track, t.dataset, t.suite, t.shard)
        assert t.validity == L.validity(t.track, t.dataset, t.suite, t.shard)
    for t in targets.grammar_scores(demo, L):
        assert t.path == L.grammar_scores(t.model, t.dataset)
    assert targets.paths(outcomes) == [t.path for t in outcomes]
    # plan order: model runs in config order, each run's suites by order then name
    first = plan.model_runs(demo)[0]
    names = [s.name for s in plan.suites(demo, first.dataset, first.track, first.model)]
    assert [(t.model, t.dataset, t.suite) for t in outcomes[: len(names)]] == [
        (first.model, first.dataset, s) for s in names
    ]


def test_paper_rq5_and_rq6_targets(paper):
    L = RunLayout.from_config(paper)
    rq5 = targets.rq5_outcomes(paper, L)
    assert {(t.model, t.dataset) for t in rq5} == {("llama2", "imdb")}
    assert [t.suite for t in rq5 if t.order == 3] == ["inter-body+gender+race"]
    assert targets.rq5_examples(paper, L) == [
        L.examples("llama2", "imdb", "inter-body+gender+race")
    ]
    docs = targets.rq5_documents(paper, L)
    assert {t.dataset for t in docs} == {"imdb"}
    assert [t.shard for t in docs] == plan.shard_ids(paper, "imdb")
    variants = targets.rq6_variant_outcomes(paper, L)
    assert {(t.model, t.dataset) for t in variants} == {("llama2", "scotus"), ("llama2", "imdb")}
    assert {t.order for t in variants} == {plan.RQ_ORDER}
    assert {t.variant for t in variants} == set(plan.variant_names(paper))
    thresholds = targets.rq6_threshold_outcomes(paper, L)
    assert thresholds and {t.variant for t in thresholds} == {"default"}


def test_a_local_repeat_waits_for_its_first_run_which_decodes_the_sampled_ones(paper):
    L = RunLayout.from_config(paper)
    greedy = {**paper, "sensitivity": {**paper["sensitivity"], "runs_decoding": "greedy"}}
    inputs = targets.predict_inputs(greedy, L, "llama2", "imdb", "000", "default-run2")
    assert inputs["first_run"] == L.predictions("llama2", "imdb", "000", "default")
    assert plan.shared_decodings(greedy, "llama2", "imdb", "default") == []
    sampled = {**paper, "sensitivity": {**paper["sensitivity"], "runs_decoding": "sampled"}}
    # the default run answers the sampled repeats from its prefill: they wait for it
    repeat = targets.predict_inputs(sampled, L, "llama2", "imdb", "000", "default-run3")
    assert repeat["first_run"] == L.predictions("llama2", "imdb", "000", "default")
    shared = plan.shared_decodings(sampled, "llama2", "imdb", "default")
    assert shared == [plan.decoding(sampled, "llama2", f"default-run{k}") for k in (2, 3, 4)]
    assert [d["seed"] for d in shared] == [44, 45, 46]
    # not for another template, a repeat itself, a dataset without repeats, or an API model
    for model, dataset, variant in [("llama2", "imdb", "alt1"), ("llama2", "imdb",
                                    "default-run2"), ("llama2", "ledgar", "default"),
                                    ("gpt35", "imdb", "default")]:  # fmt: skip
        assert plan.shared_decodings(sampled, model, dataset, variant) == []
    assert inputs["train"] == L.documents("imdb", "train") and "model" not in inputs
    # a repeated run reads only the order <= RQ_ORDER suites
    assert L.mutants("llm", "imdb", "inter-body+gender+race", "000") not in inputs["mutants"]
    encoder = targets.predict_inputs(paper, L, "bert", "scotus", "000", "default")
    assert encoder["model"] == L.model_weights("bert", "scotus") and "first_run" not in encoder


def test_unplanned_model_outputs_are_refused(paper):
    L = RunLayout.from_config(paper)
    with pytest.raises(ValueError, match="bert has no variant alt1 on scotus"):
        targets.predict_inputs(paper, L, "bert", "scotus", "000", "alt1")
    with pytest.raises(ValueError, match="not tested on suite inter-body\\+gender\\+race"):
        targets.outcome_inputs(paper, L, "gpt35", "imdb", "inter-body+gender+race", "default")


def test_summaries_read_every_suite_and_shard(demo):
    L = RunLayout.from_config(demo)
    track, dataset = "encoder", "imdb"
    stats = targets.stage_stats(demo, L, "invariant", track, dataset)
    suites = plan.suites(demo, dataset, track)
    assert len(stats) == len(suites) * plan.n_shards(demo, dataset)
    assert stats[0] == L.validity_stats(track, dataset, suites[0].name, "000")


def test_heavy_rules_write_a_benchmark_from_the_layout(repo):
    """The five heavy rules record their cost where hinter.estimate.measured_costs reads it."""
    from hinter.estimate import BENCHMARKED_RULES

    text = "".join(p.read_text() for p in (repo / "workflow" / "rules").glob("*.smk"))
    for rule in BENCHMARKED_RULES:
        body = text.split(f"rule {rule}:", 1)[1].split("\nrule ", 1)[0]
        assert f'benchmark:\n        L.benchmark("{rule}", ' in body, rule


def test_job_inputs_answer_for_a_jobs_wildcards(demo):
    """The rules' input functions and per-job params, called as Snakemake calls them."""
    from snakemake.iocontainers import Wildcards

    L = RunLayout.from_config(demo)
    J = targets.JobInputs(demo, L)
    llm = next(r for r in plan.model_runs(demo) if r.kind == "llm")
    enc = next(r for r in plan.model_runs(demo) if r.kind == "encoder")
    wc = Wildcards(fromdict={"model": llm.model, "dataset": llm.dataset, "shard": "000"})
    # a model's job has no track wildcard: its track is the model's
    assert J.track_settings(wc) == demo["mutation"]["tracks"][llm.track]
    assert (J.model_kind(wc), J.gpu(wc), J.api(wc)) == ("llm", 1, 0)
    assert J.from_hub(wc) is False  # the demo's few-shot rows are its own
    enc_wc = Wildcards(fromdict={"model": enc.model, "dataset": enc.dataset, "variant": "default"})
    assert J.model_kind(enc_wc) == "encoder" and J.variant_spec(enc_wc) is None
    assert J.encoder_spec(enc_wc) == demo["models"]["encoders"][enc.model]
    assert J.keeps_discarded(enc_wc) is plan.keeps_discarded(demo, enc.model)
    suite_wc = Wildcards(
        fromdict={
            "track": enc.track,
            "dataset": enc.dataset,
            "suite": "inter-race+gender",
            "shard": "000",
        }
    )
    assert J.track_settings(suite_wc) == demo["mutation"]["tracks"][enc.track]
    assert J.suite_spec(suite_wc).attributes == ("gender", "race")
    assert J.atomic_validity(suite_wc) == [
        L.validity(enc.track, enc.dataset, s, "000") for s in ("atomic-gender", "atomic-race")
    ]
    assert (
        J.atomic_validity(Wildcards(fromdict={**dict(suite_wc.items()), "suite": "atomic-race"}))
        == []
    )
    assert J.n_shards(suite_wc) == plan.n_shards(demo, enc.dataset)
    assert J.model_suites(enc_wc) == [
        s.name for s in plan.suites(demo, enc.dataset, enc.track, enc.model)
    ]
