"""The HuggingFace hub switch: every stage asks here whether it may go online."""

from __future__ import annotations

import os

OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


def offline() -> bool:
    """Whether any of the hub's offline switches is on (then a hub miss must fail at once)."""
    return any(
        os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on")
        for var in OFFLINE_VARS
    )
