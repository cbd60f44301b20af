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


def raise_if_no_revision(exc: BaseException, repo: str, revision: str) -> None:
    """A hub answer that ``repo`` has no ``revision`` (a pinned commit the hub does not have) is
    the config's fault, not the network's: raise it as one clear :class:`DataError`."""
    from huggingface_hub.errors import RevisionNotFoundError

    from hinter.errors import DataError

    if isinstance(exc, RevisionNotFoundError):
        raise DataError(
            f"{repo} has no revision {revision!r} on the hub: correct the pinned revision "
            f"(data.hub.<dataset>.revision) or set it to main"
        ) from None
