"""The predictor registry: one :class:`PredictJob` record carries a model run's settings to
the predictor unchanged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hinter.errors import ConfigError
from hinter.models import llm
from hinter.models.predictor import PredictJob, load_predictor


def _job(**changes) -> PredictJob:
    job = PredictJob(
        model="m", kind="llm", dataset="imdb", variant="p1_r2", meta_path=Path("meta.json"),
        cache_dir=Path("cache"), inference={"cache": False}, spec={"model": "x"},
        train_path=Path("train.parquet"), from_hub=False, track={"max_documents": 3},
        prompts_dir=Path("prompts"), companions=({"mode": "sampled", "seed": 44},),
    )  # fmt: skip
    return dataclasses.replace(job, **changes)


def test_llm_job_reaches_the_predictor_unchanged(monkeypatch):
    seen = {}

    class Recorder:
        def __init__(self, name, spec, **settings):
            seen.update(name=name, spec=spec, **settings)

    monkeypatch.setattr(llm, "LLMPredictor", Recorder)
    assert isinstance(load_predictor(_job()), Recorder)
    assert seen == {
        "name": "m", "spec": {"model": "x"}, "dataset": "imdb", "variant": "p1_r2",
        "meta_path": Path("meta.json"), "train_path": Path("train.parquet"),
        "cache_dir": Path("cache"), "from_hub": False, "track": {"max_documents": 3},
        "prompts_dir": Path("prompts"), "cache": False,
        "companions": ({"mode": "sampled", "seed": 44},),
    }  # fmt: skip
    load_predictor(_job(inference={}))
    assert seen["cache"] is True  # the persistent cache unless inference.cache says no


def test_job_is_one_frozen_record():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _job().model = "other"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": "encoder"}, "model m: an encoder has only the default variant"),
        ({"kind": "svm"}, "model m: unknown kind 'svm'"),
    ],
)
def test_bad_jobs_fail_before_loading(changes, message):
    with pytest.raises(ConfigError, match=message):
        load_predictor(_job(**changes))


def test_llm_job_needs_spec_and_train_split():
    with pytest.raises(ValueError, match="needs its spec and the train split"):
        load_predictor(_job(spec=None))
