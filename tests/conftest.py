"""Test-wide settings: offline hub, repository paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Tests never reach the HuggingFace hub: a miss must fail at once, not hang for a minute.
for _var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]
# Shared test helpers (hand-built suites, model directories, the real parser) live in tests/support.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


# Tests that share an expensive session fixture run on one pytest-xdist worker (`make test` runs
# two, `--dist loadgroup`), so the demo workflow and the Slurm cluster are each built once.
_GROUPS = {"demo_run": "demo", "cluster": "slurm"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in _GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break
