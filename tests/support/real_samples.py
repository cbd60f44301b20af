"""The real data samples beside the repository (../shared/real, see its README).

They are never copied into the repository: tests read them in place and skip, with the reason,
when they are absent (a user's clone has the real hub instead). HINTER_REAL_SAMPLES overrides
the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REAL = Path(os.environ.get("HINTER_REAL_SAMPLES") or REPO.parent / "shared" / "real")


def real_path(*parts: str) -> Path:
    """A file or folder of the real samples; skips the test when it is not there."""
    path = REAL.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real sample {path} not present (../shared/real beside the repository)")
    return path
