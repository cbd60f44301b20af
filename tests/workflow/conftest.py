"""Fixtures that run Snakemake on the repository's workflow in scratch working directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def snakemake(*args: str, workdir: Path | None = None, timeout: int = 600, env=None):
    """Run snakemake (this interpreter's) on the repo's Snakefile; return the CompletedProcess."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    if workdir is not None:
        cmd += ["--directory", str(workdir)]
    run_env = {**os.environ, **OFFLINE, "TOKENIZERS_PARALLELISM": "false", **(env or {})}
    return subprocess.run(
        [*cmd, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout, env=run_env
    )


@pytest.fixture(scope="session")
def run_snakemake():
    return snakemake


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Path:
    """The whole demo workflow, run once per session, started in the background when the tests
    were collected (tests/support/demo_background.py); HINTER_TEST_DEMO_DIR reuses a folder."""
    import demo_background

    if os.environ.get("HINTER_TEST_DEMO_DIR"):
        workdir = Path(os.environ["HINTER_TEST_DEMO_DIR"])
        workdir.mkdir(parents=True, exist_ok=True)
        proc = snakemake(*demo_background.ARGS, workdir=workdir, timeout=demo_background.TIMEOUT)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
        return workdir / "results" / "demo"
    return demo_background.wait(tmp_path_factory.mktemp("demo"))
