"""tests/benchmarks/measure_costs.py chooses real or synthetic inputs, and says which."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def measure(monkeypatch):
    """The script as a module, its measurements replaced by stubs that record their inputs."""
    monkeypatch.setenv("HINTER_BENCH_SCALE", "smoke")  # the import's setdefault must not leak
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module("measure_costs")
    calls = []

    def stub(name):
        def run(*args):
            calls.append((name, args))
            return {f"{name}_x": {"cpu_s_per_unit": 1.0, "unit": "u"}}

        return run

    for name in ("measure_mutation", "measure_mutation_real", "measure_invariant"):
        monkeypatch.setattr(module, name, stub(name))
    monkeypatch.setattr(module, "real_corpora", lambda datasets: {key: ["t"] for key in datasets})
    yield module, calls
    sys.modules.pop("measure_costs", None)


def test_absent_samples_fall_back_to_synthetic_shapes_and_say_so(measure, monkeypatch, capsys):
    module, calls = measure
    import real_corpora

    monkeypatch.setattr(real_corpora, "missing", lambda: ["imdb/train-sample-2000.parquet"])
    assert module.main(["--only", "mutation,invariant"]) == 0
    assert [name for name, _ in calls] == ["measure_mutation", "measure_invariant"]
    err = capsys.readouterr().err
    assert "real samples absent (imdb/train-sample-2000.parquet" in err
    assert "synthetic shapes instead" in err


def test_present_samples_are_measured_per_dataset(measure, monkeypatch):
    module, calls = measure
    import real_corpora

    monkeypatch.setattr(real_corpora, "missing", lambda: [])
    module.main(["--only", "mutation", "--datasets", "imdb,scotus", "--repeat", "3"])
    ((name, args),) = calls
    assert name == "measure_mutation_real"
    assert list(args[1]) == ["imdb", "scotus"] and args[2] == 3


def test_unknown_dataset_is_refused_before_any_work(measure, capsys):
    module, calls = measure
    with pytest.raises(SystemExit):
        module.main(["--only", "mutation", "--datasets", "imdb,sbic"])
    assert "--datasets: unknown ['sbic']" in capsys.readouterr().err
    assert not calls


def test_model_figures_are_not_recorded_on_a_busy_machine(measure, monkeypatch, capsys):
    """torch's spinning threads inflate CPU time under load (19.3 vs 3.2 CPU-s a prompt):
    --write of a model figure is refused before anything runs while the load average exceeds
    the cores, unless --busy-ok."""
    module, _ = measure
    monkeypatch.setattr(module.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(module.os, "getloadavg", lambda: (12.0, 12.0, 12.0))
    ran = []
    plain = {"llm_prompt_cpu": {"cpu_s_per_unit": 3.2, "unit": "prompt"}}
    monkeypatch.setattr(module, "measure_llm", lambda: ran.append("llm") or plain)
    with pytest.raises(SystemExit):
        module.main(["--write", "--only", "llm"])
    assert "load average 12.0 on 2 cores" in capsys.readouterr().err and not ran
    written = []
    monkeypatch.setattr(module.OUT.__class__, "write_text", lambda p, t: written.append(p))
    assert module.main(["--only", "llm", "--write", "--busy-ok"]) == 0 and ran == ["llm"]
    assert written == [module.OUT]
