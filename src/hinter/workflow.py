"""Glue between Snakemake rule scripts and the library.

A rule script is a few lines: it reads ``snakemake.input``/``params``, calls one library function
and lets :func:`run` handle logging and errors. A :class:`HinterError` ends the job with its
one-line message (in the job's log and on stderr) instead of a traceback.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hinter import progress
from hinter.errors import DataError, HinterError, first_line, os_error


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
    """Run ``main`` for the Snakemake job ``smk`` with its log file set up.

    Progress lines of long stages go to the job's log; a :class:`HinterError`, a failed file
    operation (a full disk, a read-only folder) or a predictable failure (out of memory, too
    deep a recursion) ends the job with one line, in the job's log and on stderr.
    """
    log_path = smk.log[0] if len(smk.log) else None
    setup_logging(log_path)
    logger = logging.getLogger("hinter")
    progress.configure(logger.info)
    try:
        return main()
    except HinterError as exc:
        message = str(exc)
    except OSError as exc:
        message = os_error(exc)
    except MemoryError as exc:  # numpy's "Unable to allocate 65.5 TiB for an array …" too
        message = (
            f"out of memory ({first_line(exc)}); give the job more memory or "
            "lower the setting that sizes it (statistics.resamples, models.inference.chunk_size, "
            "batch sizes, shards)"
        )
    except RecursionError:
        message = "an input is nested too deeply to process (RecursionError)"
    finally:
        progress.configure(None)  # a caller in the same process (a test) gets its stderr back
    logger.error("%s", message)
    print(f"hinter: {message}", file=sys.stderr)
    sys.exit(1)


def check_outputs(written: Iterable[str | Path], outputs: Iterable[str | Path], what: str) -> None:
    """A job that writes a registry's files must write exactly its rule's outputs: a mismatch
    (the registry and the rule out of step) is a one-line error naming both lists."""
    got, expected = {Path(p) for p in written}, {Path(p) for p in outputs}
    if got != expected:
        raise DataError(
            f"{what} wrote {sorted(map(str, got))}, the rule expects {sorted(map(str, expected))}"
        )
