"""The scenario configs under config/test/ plan the jobs their scenario promises (dry runs).

Each scenario is a small config that leaves everything else to the schema's defaults, so a
default that breaks one kind of run (no encoder, an N=3 suite, the invariant off) shows here
without running anything.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, snakemake

SCENARIOS = sorted((REPO / "config" / "test").glob("*.yaml"))


def _plan(config: Path, tmp_path: Path) -> list[str]:
    """The output paths of every job a dry run plans for ``config``."""
    proc = snakemake("-n", "--configfile", str(config), workdir=tmp_path, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    outputs = re.findall(r"^\s+output: (.+)$", proc.stdout, flags=re.M)
    assert outputs, proc.stdout[-2000:]
    return [p for line in outputs for p in line.split(", ")]


def test_every_scenario_is_listed():
    assert {p.stem for p in SCENARIOS} >= {"llm-only", "order3", "no-invariant"}


@pytest.mark.parametrize("config", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_plans(config: Path, tmp_path: Path):
    outputs = _plan(config, tmp_path)
    run = f"results/scenario-{config.stem}/"
    assert all(p.startswith(run) for p in outputs), [p for p in outputs if not p.startswith(run)]
    models = {p.split("/")[3] for p in outputs if "/models/" in p and p.count("/") > 3}
    predicted = {p.split("/")[3] for p in outputs if "/predictions/" in p}
    suites = {p.split("/")[5] for p in outputs if "/mutants/" in p}
    if config.stem == "llm-only":
        assert models == set() and predicted == {"smollm2"}
    if config.stem == "order3":
        assert "inter-body+gender+race" in suites
    if config.stem == "no-invariant":
        assert not any("inter-body+gender+race" in s for s in suites)
        assert {"atomic-race", "inter-race+gender"} <= suites
