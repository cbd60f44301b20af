"""Faults during work (full disk, corrupt cache, a bug): still one line, no temporary file."""

from __future__ import annotations

import re
from pathlib import Path

from hinter import cli, io

from .cases import W, hinter_test, run_cli


def _fault_run(w: W, capsys, *extra: str) -> tuple[int, str]:
    """A run that passes validation and fails during work: its last stderr line is the one
    error line (status lines come before it), with no traceback and no temporary file left."""
    code, _out, err = run_cli(hinter_test(*extra)(w), capsys)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert all(line.startswith("hinter: ") for line in lines), err
    assert not list(w.root.rglob("*.tmp")), "a temporary file was left behind"
    return code, lines[-1]


def test_disk_full_while_writing_says_so(workspace, capsys, monkeypatch):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(args[1]))

    monkeypatch.setattr(io.pq, "write_table", full)
    code, line = _fault_run(workspace, capsys)
    assert code == 1
    assert re.search(r"000\.parquet\..*\.tmp: no space left on the device \(free some space", line)
    assert [p.name for p in workspace.out.rglob("*") if p.is_file()] == [cli.LOCK]


def test_full_disk_in_the_prediction_cache_is_not_called_corrupt(workspace, capsys, monkeypatch):
    import sqlite3

    from hinter.errors import DataError, sqlite_error
    from hinter.models import cache

    def full(self, texts, outputs):
        raise DataError(
            sqlite_error(
                self.path, sqlite3.OperationalError("database or disk is full"), "prediction cache"
            )
        )

    monkeypatch.setattr(cache.PredictionCache, "put", full)
    code, line = _fault_run(workspace, capsys)
    assert code == 1
    assert "no space left on the device for the prediction cache" in line and "delete" not in line
    assert not (workspace.out / "predictions").exists() or not any(
        p.is_file() for p in (workspace.out / "predictions").rglob("*")
    )


def test_corrupt_prediction_cache_is_named_with_the_fix(workspace, capsys, monkeypatch):
    cache_dir = workspace.root / "cache"
    (cache_dir / "predictions").mkdir(parents=True)
    from hinter.models import cache

    real_init = cache.PredictionCache.__init__

    def corrupt_then_open(self, cache_dir, fingerprint, n_labels, timeout=600):
        path = Path(cache_dir) / "predictions" / f"{fingerprint[:40]}.sqlite"
        path.write_bytes(b"not a database" * 100)
        real_init(self, cache_dir, fingerprint, n_labels, timeout)

    monkeypatch.setattr(cache.PredictionCache, "__init__", corrupt_then_open)
    code, line = _fault_run(workspace, capsys, "--cache-dir", str(cache_dir))
    assert code == 1
    assert re.search(
        r"\.sqlite: unusable prediction cache \(.*\); delete the file to rebuild it", line
    )


def test_unexpected_failure_is_one_line_with_the_way_to_the_traceback(
    workspace, capsys, monkeypatch
):
    from hinter import oracle

    def bug(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(oracle, "write_suite_outcomes", bug)
    code, line = _fault_run(workspace, capsys)
    assert code == cli.EXIT_INTERNAL
    assert line == (
        "hinter: internal error (ZeroDivisionError: division by zero); rerun with --debug "
        "for the traceback and report it"
    )
