"""A user dataset from files through the workflow: the scenario plans, and its data stage runs."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.workflow
REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "config" / "test" / "user-dataset.yaml"


def _counts(stdout: str) -> dict[str, int]:
    out = {}
    for line in stdout.splitlines():
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if match:
            out[match.group(1)] = int(match.group(2))
    return out


def test_scenario_dry_run_plans_every_stage_on_the_user_dataset(tmp_path, run_snakemake):
    proc = run_snakemake("-n", "--quiet", "rules", "--configfile", str(SCENARIO), workdir=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = _counts(proc.stdout)
    assert counts["user_dataset"] == 1 and "demo_dataset" not in counts
    assert counts["train_encoder"] == 1  # MiniLM fine-tuned on the user's train file
    assert counts["track_windows"] == 1  # SmolLM2 prompted with the user's prompt file
    assert counts["predict"] == 3  # MiniLM, SmolLM2 and its alt1 template (RQ6)
    for rule in ("paper_comparison", "rq1_tables", "rq6_tables", "model_performance"):
        assert counts[rule] == 1, rule
    assert not list(tmp_path.glob("results/*")), "a dry-run must not write results"


def test_scenario_data_stage_runs_on_the_csv_files(tmp_path, run_snakemake):
    target = "results/scenario-user-dataset/data/reviews/tested/000.parquet"
    proc = run_snakemake(
        target, "--cores", "1", "--quiet", "--configfile", str(SCENARIO), workdir=tmp_path
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    with (REPO / "config/test/data/reviews-test.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    tested = pq.read_table(tmp_path / target).to_pylist()
    assert [r["text"] for r in tested] == [r["review"] for r in rows]
    names = ["negative", "positive"]
    assert [r["labels"] for r in tested] == [[names.index(r["sentiment"])] for r in rows]
    assert {r["split"] for r in tested} == {"test"}


def test_a_bad_user_file_stops_the_run_before_any_job(tmp_path, run_snakemake):
    bad = tmp_path / "bad.csv"
    bad.write_text("text,label\nfine,positive\n")
    proc = run_snakemake(
        "-n", "--configfile", str(SCENARIO),
        "--config", f"datasets=[{{name: reviews, files: {{test: {bad}}}, labels: [a, b]}}]",
        workdir=tmp_path,
    )  # fmt: skip
    assert proc.returncode != 0
    # no train file, yet MiniLM is fine-tuned on it: stopped at start-up, naming the key
    assert "hinter: config key 'user_datasets.reviews.files.train'" in proc.stderr
