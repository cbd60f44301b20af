"""The projection on costs measured on real text, and its GPU figures against the H200 runs."""

from __future__ import annotations

import copy
import hashlib
import re

import pytest
import real_corpora
from loopback_hub import real_path

from hinter import estimate, plan
from hinter.config import REPO_ROOT, load_yaml, validate_config


@pytest.fixture(scope="module")
def paper():
    return validate_config(load_yaml(REPO_ROOT / "config" / "config.yaml"))


@pytest.fixture(scope="module")
def costs():
    return estimate.load_unit_costs()


def test_a_datasets_own_cost_replaces_its_length_class(paper, costs):
    """SCOTUS's invariant cost, measured on its real opinions, is what its shards are charged."""
    base = {k: v for k, v in costs.items() if not k.startswith("invariant_scotus")}
    dearer = copy.deepcopy(base)
    dearer["invariant_scotus_atomic"] = {
        **base["invariant_legal_atomic"],
        "cpu_s_per_unit": 10 * base["invariant_legal_atomic"]["cpu_s_per_unit"],
    }
    assert estimate.unit_name(dearer, "invariant", "scotus", "legal", "atomic") == (
        "invariant_scotus_atomic"
    )
    assert estimate.unit_name(dearer, "invariant", "scotus", "legal", "inter") == (
        "invariant_legal_inter"
    )
    before = estimate.project(paper, base).stages["check_invariant"].cpu_hours
    after = estimate.project(paper, dearer).stages["check_invariant"].cpu_hours
    atomic = sum(
        estimate.suite_mutants(paper, "scotus", track, suite)
        for track in plan.tracks(paper, "scotus")
        for suite in plan.suites(paper, "scotus", track)
        if suite.order == 1
    )
    extra = 9 * base["invariant_legal_atomic"]["cpu_s_per_unit"] * atomic / 3600
    assert after - before == pytest.approx(extra, rel=1e-6)
    # The demo's synthetic documents keep the length class's figure.
    assert estimate.unit_name(dearer, "invariant", "scotus", "legal", "atomic", real=False) == (
        "invariant_legal_atomic"
    )
    demo = validate_config(load_yaml(REPO_ROOT / "config" / "demo.yaml"))
    assert estimate.project(demo, dearer).stages["check_invariant"].cpu_hours == pytest.approx(
        estimate.project(demo, base).stages["check_invariant"].cpu_hours
    )


def test_real_text_costs_name_their_samples(costs):
    """Every figure measured on a real sample names the file, its digest and size."""
    real = {k: v for k, v in costs.items() if v.get("inputs", "").startswith("real samples")}
    assert {"mutation_imdb_atomic", "invariant_imdb_atomic"} <= set(real)
    for name, entry in real.items():
        source = entry.get("source")
        if name == "invariant_job_overhead":
            continue
        assert source, name
        assert source["file"].startswith("../shared/real/"), name
        assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"]), name
        assert source["bytes"] > 0 and source["documents"] > 0, name
        assert entry["units"] > 0 and entry["cpu_s_per_unit"] > 0, name


def test_the_batched_engine_is_folded_into_the_llm_cost(costs):
    plain, engine = costs["llm_prompt_cpu"], costs["llm_prompt_cpu_engine"]
    assert engine["cpu_s_per_unit"] == pytest.approx(plain["cpu_s_per_unit"] / 4.22)
    assert "test_llm_bench.py" in engine["derived_from"]


def test_gpu_utilisation_reproduces_the_h200_measurements():
    """docs/benchmarks.md, 2026-11-25, one H200: the encoder engine 1,089 texts/s (bert-base
    size, 512 tokens); the LLM engine 9.20 prompts/s (Llama 2 7B size, 1,000-token cached
    prefix, documents of 2,000-3,000 tokens, mean 2,458) and 43.2 (documents of 200-600 tokens,
    mean 384), 7 new tokens each."""
    h200 = estimate.GPUS["h200"]
    per_text = estimate.encoder_flops(512) / (
        h200["tflops"] * 1e12 * estimate.UTILISATION["encoder_inference"]
    )
    assert 1 / per_text == pytest.approx(1089, rel=0.1)
    for document, measured in ((2458, 9.20), (384, 43.2)):
        seconds = estimate.llm_prompt_seconds(document, 7, h200, llm=estimate.LLMS["7b"])
        assert 1 / seconds == pytest.approx(measured, rel=0.1), document


def test_real_samples_are_read_as_the_workflow_reads_them():
    """ECtHR's fact paragraphs joined by newlines; digests of the files as they are."""
    path = real_path("lexglue", "ecthr_a.jsonl")
    ecthr = real_corpora.texts("ecthr_a")
    assert len(ecthr) == 6 and all("\n" in t for t in ecthr)
    imdb = real_corpora.provenance("imdb")
    assert imdb["documents"] == 2000 and imdb["mean_words"] > 150
    source = real_corpora.provenance("ecthr_a")
    assert source["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert not real_corpora.missing()
