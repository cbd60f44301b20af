"""Glue between Snakemake rule scripts and the library.

A rule script is a few lines: it reads ``snakemake.input``/``params``, calls one library function
and lets :func:`run` handle logging and errors. A :class:`HinterError` ends the job with its
one-line message (in the job's log and on stderr) instead of a traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hinter.errors import HinterError


def setup_logging(log_path: str | Path | None = None, level: int = logging.INFO) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


def run(smk: Any, main: Callable[[], Any]) -> Any:
    """Run ``main`` for the Snakemake job ``smk`` with its log file set up."""
    log_path = smk.log[0] if len(smk.log) else None
    setup_logging(log_path)
    try:
        return main()
    except HinterError as exc:
        logging.getLogger("hinter").error("%s", exc)
        print(f"hinter: {exc}", file=sys.stderr)
        sys.exit(1)
