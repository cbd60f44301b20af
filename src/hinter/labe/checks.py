"""The start-up checks of the ``labe`` config section (``workflow/rules/labe.smk`` and
``hinter check-config`` call them): files the schema cannot check."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter.errors import ConfigError


def check_labe_config(labe: Mapping[str, Any], base_dir: str | Path) -> None:
    """``labe.enabled: true`` needs the released LABE files (``auto`` skips them quietly)."""
    folder = Path(labe["data_dir"])
    if not folder.is_absolute():
        folder = Path(base_dir) / folder
    if labe["enabled"] is True and not folder.is_dir():
        raise ConfigError(
            f"config key 'labe.data_dir': {labe['data_dir']} not found (labe.enabled is true; "
            "'auto' skips LABE where the released files are absent)"
        )
