"""The workflow's start-up checks through Snakemake itself, and a kill -9 during a long job.

The start-up checks run before any job: a bad config stops the run with one ``hinter:`` line, no
result written and Snakemake's lock released. A killed workflow resumes after ``--unlock`` with the
same bytes and no temporary file left behind (atomic writes plus Snakemake's incomplete-output
handling).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hinter.layout import RunLayout

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]


def _hinter_lines(proc) -> list[str]:
    return [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("hinter:")]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("data={demo: {sentences: [7, 3]}}", "config key 'data.demo.sentences': [min, max]"),
        ("parser={pipeline: en_core_web_zz}", "config key 'parser.pipeline': spaCy pipeline"),
        (
            "models={encoders: {mine: {init: finetuned, checkpoint: /nowhere/model, "
            "datasets: [imdb]}}}",
            "config key 'models.encoders.mine.checkpoint': model folder /nowhere/model not found",
        ),
    ],
    ids=["demo-sentences", "parser-not-installed", "finetuned-folder-missing"],
)
def test_bad_config_stops_before_any_job(tmp_path, run_snakemake, config, message):
    proc = run_snakemake(
        "--cores", "1", "--configfile", "config/demo.yaml", "--config", config, workdir=tmp_path
    )
    assert proc.returncode != 0
    lines = _hinter_lines(proc)
    assert len(lines) == 1 and message in lines[0], proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results").exists()
    assert not any((tmp_path / ".snakemake" / "locks").glob("*")), "the lock must be released"


def test_a_dry_run_only_plans_and_readmes_config_example_works(tmp_path, run_snakemake):
    """A dry-run does not need the parser installed; nested --config values are typed."""
    proc = run_snakemake(
        "-n", "--quiet", "rules", "--configfile", "config/demo.yaml",
        "--config", "oracle={confidence_threshold: 0.5}", "parser={pipeline: en_core_web_zz}",
        workdir=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_kill_9_during_a_job_then_unlock_and_rerun_gives_the_same_bytes(demo_run, repo):
    """Kill the whole workflow (Snakemake and its job) while a prediction job writes its table."""
    workdir = demo_run.parent.parent
    target = Path(RunLayout(str(demo_run)).predictions("tiny-bert", "scotus", "000"))
    relative = str(target.relative_to(workdir))
    # (--configfile and --set-threads take several values: the target goes after --cores.)
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir), "--configfile", str(repo / "config" / "demo.yaml"),
        "--set-threads", "predict=1", "--cores", "1",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    # Up to date first (a no-op on a finished demo run): the bytes an uninterrupted job writes.
    ready = subprocess.run([*cmd, relative], cwd=REPO, env=env, capture_output=True, text=True)
    assert ready.returncode == 0, ready.stderr[-2000:]
    before = _digest(target)
    for _attempt in range(3):
        proc = subprocess.Popen(
            [*cmd, "--force", relative], cwd=REPO, env=env, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 600
        caught = False
        while proc.poll() is None and time.monotonic() < deadline:
            if list(target.parent.glob(f".{target.name}.*.tmp")):
                os.killpg(proc.pid, signal.SIGKILL)
                caught = True
                break
            time.sleep(0.01)
        proc.wait(timeout=60)
        if caught:
            break
    assert caught, "the prediction job never got to write (or finished between two polls)"
    assert list(target.parent.glob(f".{target.name}.*.tmp")), "the kill left its temporary file"

    locked = subprocess.run(
        [*cmd, relative], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert locked.returncode != 0 and "--unlock" in locked.stdout + locked.stderr
    unlock = subprocess.run([*cmd, "--unlock"], cwd=REPO, env=env, capture_output=True, text=True)
    assert unlock.returncode == 0, unlock.stderr[-2000:]
    rerun = subprocess.run(
        [*cmd, relative], cwd=REPO, env=env, capture_output=True, text=True, timeout=900
    )
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert _digest(target) == before
    assert not list(demo_run.rglob("*.tmp")), "a temporary file was left behind"
