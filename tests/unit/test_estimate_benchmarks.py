"""hinter.estimate.measured_costs: a real run's benchmark files, summarised per rule."""

from __future__ import annotations

import pytest

from hinter.errors import ConfigError
from hinter.estimate import measured_costs
from hinter.layout import RunLayout

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _write(path, seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:01\t10\t10\t10\t10\t0\t0\t0\t1\n")


def test_median_seconds_per_job_of_each_benchmarked_rule(tmp_path):
    L = RunLayout(str(tmp_path))
    for shard, s in (("000", 2.0), ("001", 9.0), ("002", 4.0)):
        _write(
            tmp_path
            / L.benchmark("mutate", "llm", "imdb", "atomic-race", shard)[len(str(tmp_path)) + 1 :],
            s,
        )
    _write(
        tmp_path
        / L.benchmark("predict", "bert", "default", "scotus", "000")[len(str(tmp_path)) + 1 :],
        30.5,
    )
    costs = measured_costs(tmp_path)
    assert costs == {
        "mutate": {"jobs": 3, "median_s": 4.0},
        "predict": {"jobs": 1, "median_s": 30.5},
    }


def test_a_file_that_is_no_benchmark_is_named(tmp_path):
    bad = tmp_path / "benchmarks" / "predict" / "x.tsv"
    bad.parent.mkdir(parents=True)
    bad.write_text("seconds\n1\n")
    with pytest.raises(ConfigError, match=r"x\.tsv: not a Snakemake benchmark file"):
        measured_costs(tmp_path)
