"""RQ1's tables are byte-identical to golden copies made by the code before the ``hinter.rq``
refactor (issue 11), on hand-made runs (``tests/support/rq_runs.py``) that cover every corner.

An intended change of a table updates the goldens in the same commit (the diff shows it):
``HINTER_UPDATE_GOLDEN=1 pytest tests/unit/test_rq1_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import rq_runs

from hinter.rq import rq1

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "rq1_golden"
CASES = {
    "small": (rq_runs.make_run, ["scotus", "imdb"], 5, 2),
    "rich": (rq_runs.make_rich_run, ["ecthr_a", "scotus", "imdb"], 5, 2),
    "rich_n3": (rq_runs.make_rich_run, ["ecthr_a", "scotus", "imdb"], 2, 3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rq1_tables_match_the_golden_copies(tmp_path, case):
    maker, datasets, examples, order = CASES[case]
    run = maker(tmp_path / "work")
    out = tmp_path / "rq1"
    rq1.write_tables(
        run.outcome_files, run.example_files, out, datasets=datasets, examples=examples, order=order
    )
    got = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.suffix in (".csv", ".md")}
    golden = GOLDEN / case
    if os.environ.get("HINTER_UPDATE_GOLDEN") == "1":
        golden.mkdir(parents=True, exist_ok=True)
        for old in golden.iterdir():
            old.unlink()
        for name, data in got.items():
            (golden / name).write_bytes(data)
    want = {p.name: p.read_bytes() for p in sorted(golden.iterdir())}
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{case}/{name} differs from its golden copy"
