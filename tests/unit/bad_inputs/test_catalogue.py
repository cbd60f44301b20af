"""The catalogue as a whole: one index of every row, and the promise through the entry point."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from . import STAGES, catalogue


def test_the_catalogue_is_large_and_unique():
    """Every stage file with rows is in the index, and the index is large and without repeats."""
    with_rows = sorted(
        p.stem for p in Path(__file__).parent.glob("test_*.py") if "\nCASES = [" in p.read_text()
    )
    assert with_rows == sorted(STAGES)
    cases = catalogue()
    assert len(cases) >= 100
    assert len({c.id for c in cases}) == len(cases)


def test_cli_subprocess_prints_one_line_and_exit_code(tmp_path, tiny_model):
    """The same promise through the installed entry point (no in-process shortcuts)."""
    bad = tmp_path / "texts.csv"
    bad.write_text('text\nThe man.\n"A black woman\nThe girl.\n', encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hinter.cli",
            "test",
            str(tiny_model),
            str(bad),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"hinter: {bad}:3: row 2: malformed CSV (unexpected end of data; a quote opened here "
        "is never closed)"
    ]
    assert not (tmp_path / "out").exists()
