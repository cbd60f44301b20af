"""The one figure style: ``hinter.mplstyle`` (fonts, sizes, grid) and ``plotting.yaml`` (panel
sizes, one colour per attribute, suite, kind and outcome, display names). Figures are built
inside :func:`context` so the style never leaks into the caller's matplotlib state."""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import matplotlib
import yaml

HERE = Path(__file__).resolve().parent
STYLE_FILE = HERE / "hinter.mplstyle"
CONFIG_FILE = HERE / "plotting.yaml"


@functools.cache
def config() -> Mapping[str, Any]:
    """The plotting config (``plotting.yaml``)."""
    with CONFIG_FILE.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@functools.cache
def rc() -> dict[str, Any]:
    """The matplotlib settings of ``hinter.mplstyle``."""
    return dict(matplotlib.rc_params_from_file(str(STYLE_FILE), use_default_template=False))


@contextlib.contextmanager
def context() -> Iterator[None]:
    """Matplotlib's defaults with the hinter style on top, for the duration of the block."""
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(rc())
        yield


def size(columns: int = 1, rows: int = 1) -> tuple[float, float]:
    """Figure size in inches of a grid of panels."""
    sizes = config()["sizes"]
    return (sizes["panel_width"] * columns, sizes["panel_height"] * rows)


def _fallback(group: str, key: str) -> str:
    palette = config()["colors"]["fallback"]
    digest = hashlib.blake2b(f"{group}\x00{key}".encode(), digest_size=4).digest()
    return palette[int.from_bytes(digest, "big") % len(palette)]


def color(group: str, key: str) -> str:
    """The colour of ``key`` in ``group`` (attributes, suites, kinds, outcomes, inputs); a stable
    colour from the fallback palette for names the config does not list."""
    colors = config()["colors"]
    if group == "suites" and key not in colors["suites"]:
        attrs = key.partition("-")[2].split("+")
        if key.startswith("atomic-") and len(attrs) == 1:
            return color("attributes", attrs[0])
    return colors.get(group, {}).get(key) or _fallback(group, key)


def total_color() -> str:
    return config()["colors"]["total"]


def name(group: str, key: str) -> str:
    """The display name of a dataset, model, attribute, kind, outcome, input or pooled row
    ("Total", "All"); the key itself when none is configured."""
    names = config()["names"]
    if group == "suites":
        attrs = key.partition("-")[2].split("+")
        return " × ".join(name("attributes", a) for a in attrs)
    if key in names["pooled"] and group in ("models", "datasets"):
        return names["pooled"][key]
    return str(names.get(group, {}).get(key, key))


def label_above(ax: Any, text: str, xy: tuple[float, float], offset=2.0, size=6.0, **kw) -> None:
    """Write ``text`` centred just above the point ``xy`` of ``ax`` (``offset`` points up):
    the value labels of every bar chart."""
    ax.annotate(
        text, xy, xytext=(0, offset), textcoords="offset points", ha="center", va="bottom",
        fontsize=size, **kw,
    )  # fmt: skip
