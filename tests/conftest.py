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


# The demo workflow starts in the background as soon as the collection shows a test that needs
# it (tests/support/demo_background.py), so it runs while the unit tests do.
def pytest_collection_finish(session):
    if os.environ.get("HINTER_TEST_DEMO_DIR"):
        return
    if any("demo_run" in getattr(item, "fixturenames", ()) for item in session.items):
        import demo_background

        demo_background.start(session.config._tmp_path_factory.mktemp("demo"))


def pytest_sessionfinish(session, exitstatus):
    import demo_background

    demo_background.stop()


@pytest.fixture(autouse=True)
def _no_stage_left_beating(request):
    """A progress stage left open keeps a heartbeat thread writing into the tests that follow
    (CI once failed a no-warning assertion on another test's "3/3 answers" line): every test
    must close the stages it opens. Leaked ones are stopped here, and the test fails."""
    yield
    progress = sys.modules.get("hinter.progress")
    if progress is None:
        return
    leaked = [p.desc for p in list(progress._BEATING)]
    progress._stop_heartbeats()
    assert not leaked, f"progress stages left open (heartbeat running): {leaked}"
