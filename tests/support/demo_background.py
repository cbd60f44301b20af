"""The demo workflow, started in the background as soon as pytest knows a test needs it.

It runs (niced, so the tests in the foreground keep their pace) while the unit tests run, and
the ``demo_run`` fixture waits for it: the suite's longest fixture then costs little more than
the CPU the unit tests leave idle on a 2-core machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
ARGS = (
    "--cores", "2", "--configfile", str(REPO / "config" / "demo.yaml"),
    "--profile", str(REPO / "workflow" / "profiles" / "default"),
    "--set-threads", "train_encoder=1", "predict=1",
)  # fmt: skip
TIMEOUT = 2400
_state: dict = {}


def start(workdir: Path) -> None:
    """Start the demo run into ``workdir`` (once per session)."""
    if "proc" in _state:
        return
    workdir.mkdir(parents=True, exist_ok=True)
    log = open(workdir / "demo-run.log", "w", encoding="utf-8")  # noqa: SIM115 (kept open)
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
           "--directory", str(workdir), *ARGS]  # fmt: skip
    env = {**os.environ, **OFFLINE, "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env,
        preexec_fn=lambda: os.nice(10),
    )  # fmt: skip
    _state.update(proc=proc, log=log, workdir=workdir)


def wait(workdir: Path) -> Path:
    """The demo's results folder once its run has finished (starting it if nobody did)."""
    start(workdir)
    proc = _state["proc"]
    try:
        code = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    _state["log"].close()
    text = (_state["workdir"] / "demo-run.log").read_text(encoding="utf-8", errors="replace")
    assert code == 0, text[-6000:]
    return _state["workdir"] / "results" / "demo"


def stop() -> None:
    """End a run still going when the session ends (an interrupted or filtered session)."""
    proc = _state.get("proc")
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    log = _state.get("log")
    if log is not None and not log.closed:
        log.close()
