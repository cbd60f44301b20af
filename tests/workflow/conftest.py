"""Helpers to run Snakemake on the repository's workflow in a scratch working directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def snakemake(*args: str, workdir: Path | None = None, timeout: int = 600, env=None):
    """Run snakemake (this interpreter's) on the repo's Snakefile; return the CompletedProcess."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    if workdir is not None:
        cmd += ["--directory", str(workdir)]
    run_env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    run_env.update(env or {})
    return subprocess.run(
        [*cmd, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout, env=run_env
    )


@pytest.fixture
def run_snakemake():
    return snakemake
