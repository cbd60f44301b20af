"""Saving figures: PDF and PNG, byte-identical on every rerun and in every process.

matplotlib stamps a creation date and its version into PDFs and a "Software" text chunk into
PNGs; both are left out. Files are written atomically (a half-written figure never exists).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hinter import io
from hinter.plots import style

# fontTools logs every table it subsets when a PDF embeds a font: not news for a job's log.
logging.getLogger("fontTools").setLevel(logging.WARNING)

# Metadata keys set to None are omitted by matplotlib's writers.
METADATA = {
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None},
    "png": {"Software": None},
}


def save_figure(
    fig: Figure, stem: str | Path, extensions: Sequence[str] = ("pdf", "png")
) -> list[Path]:
    """Write ``<stem>.pdf`` and ``<stem>.png`` (those of ``extensions``); return the paths."""
    unknown = [ext for ext in extensions if ext not in METADATA]
    if unknown:
        raise ValueError(f"{stem}.{unknown[0]}: figures are written as pdf or png")
    written = []
    FigureCanvasAgg(fig)  # a headless canvas, whatever the session's backend
    with style.context():
        for ext in extensions:
            path = Path(f"{stem}.{ext}")
            with io.atomic_path(path) as tmp, tmp.open("wb") as handle:
                fig.savefig(handle, format=ext, metadata=METADATA[ext])
            written.append(path)
    return written
