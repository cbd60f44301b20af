"""The real-text study (``make study``, config/study.yaml, docs/real-text-results.md): what it
promises — every held-out document, the paper's prompt, a window the encoder reads whole, the
paper's invariant without the artifact's sentence cap — and that its projection from measured unit
costs stays within the 90-minute target on 2 cores. Needs ../shared/real (skipped without it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

from hinter import estimate, estimate_report
from hinter import estimate_stages as stages
from hinter.config import validate_config

REPO = Path(__file__).resolve().parents[2]
REAL = Path(os.environ.get("HINTER_REAL_DATA", REPO.parent / "shared" / "real"))

pytestmark = pytest.mark.skipif(
    not (REAL / "imdb" / "fewshot").is_dir(),
    reason=f"real samples not found under {REAL} (set HINTER_REAL_DATA to ../shared/real)",
)


@pytest.fixture(scope="module")
def study():
    text = (REPO / "config" / "study.yaml").read_text(encoding="utf-8")
    return validate_config(yaml.safe_load(text.replace("../shared/real", str(REAL))))


def test_the_study_tests_every_held_out_document_with_the_papers_prompt(study):
    assert study["data"]["max_documents"] is None
    assert estimate.tested_documents(study, "imdb") == 400
    assert estimate.tested_documents(study, "ledgar") == 200
    files = [Path(x["file"]).name for x in study["user_datasets"]["imdb"]["fewshot"]]
    assert files == ["train-pos-4120_9.txt", "train-neg-4771_2.txt", "train-pos-6096_10.txt"]
    assert study["mutation"]["tracks"]["llm"]["max_documents"] >= 100
    assert study["models"]["llms"]["smollm2"]["datasets"] == ["imdb"]


def test_the_encoder_reads_all_it_is_mutated_in_and_alg3_has_no_cap(study):
    window = study["mutation"]["tracks"]["encoder"]
    assert window["tokenizer"] == study["models"]["encoders"]["minilm"]["checkpoint"]
    assert window["max_tokens"] == study["models"]["training"]["max_length"]
    assert study["invariant"]["max_sentence_chars"] is None


def test_the_projection_from_measured_costs_fits_90_minutes_on_2_cores(study):
    costs = estimate.load_unit_costs()
    projection = estimate.project(study, costs, shares=stages.load_measured(), device="cpu")
    text = estimate_report.report(projection, costs, cores=2)
    minutes = int(re.search(r"at full use: ([\d,]+) min", text).group(1).replace(",", ""))
    assert 30 < minutes <= 90
    doc = (REPO / "docs" / "real-text-results.md").read_text(encoding="utf-8")
    assert f"**{minutes} minutes of wall time on 2 free cores**" in doc
