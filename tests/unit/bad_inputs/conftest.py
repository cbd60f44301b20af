"""Fixtures of the bad-input catalogue: one tiny model for the session, a fresh working folder
per row (read-only folders and held locks undone afterwards)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inputs import make_classifier, write_csv

from .cases import W, undo_read_only


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """Built once: every row checks that it leaves the model folder as it found it."""
    return make_classifier(tmp_path_factory.mktemp("catalogue") / "model")


@pytest.fixture
def workspace(tmp_path, tiny_model) -> W:
    w = W(
        root=tmp_path,
        model=tiny_model,
        data=write_csv(tmp_path / "texts.csv"),
        out=tmp_path / "out",
        marker=tmp_path / "MARKER",
    )
    yield w
    for path in w.extra.get("read_only", []):
        undo_read_only(path)
    if "lock" in w.extra:
        w.extra["lock"].close()
