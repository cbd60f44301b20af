"""The output folder of a test run: checked before anything is written, and locked while written."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from hinter import io
from hinter.config import can_create_file_in
from hinter.errors import HinterError, os_error

LOCK = ".hinter.lock"  # in the output folder: one run at a time writes there


def writable_folder(path: Path, flag: str) -> None:
    """``path`` is a folder we may create or write in (checked without creating anything)."""
    if path.exists() and not path.is_dir():
        raise HinterError(f"{flag} {path}: is a file, not a folder")
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise HinterError(f"{flag} {path}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK) or not can_create_file_in(probe):
        raise HinterError(f"{flag} {path}: {probe} is not writable")


@contextlib.contextmanager
def locked_output(out: Path) -> Iterator[list[Path]]:
    """Hold the output folder for this run; yield the temporary files of a killed run, removed.

    The lock is released by the kernel whatever ends the process, kill -9 included.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = open(out / LOCK, "a+")  # noqa: SIM115 - held for the whole run
    except OSError as exc:
        raise HinterError(os_error(exc, "--out: cannot create")) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise HinterError(
            f"--out {out}: another hinter run is writing there; wait for it or choose another "
            "folder"
        ) from None
    try:
        yield io.remove_temporaries(out)
    finally:
        handle.close()
