"""The rule-script glue: a job's written files must be its rule's outputs."""

from __future__ import annotations

import pytest

from hinter.errors import DataError
from hinter.workflow import check_outputs


def test_written_files_must_be_exactly_the_rules_outputs(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    check_outputs([a, b], [str(b), str(a)], "RQ9")  # order and str/Path do not matter
    with pytest.raises(DataError, match=r"^RQ9 wrote \[.*a\.csv'\], the rule expects .*b\.csv"):
        check_outputs([a], [a, b], "RQ9")


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            MemoryError("Unable to allocate 65.5 TiB for an array with shape (1000000000000, 9)"),
            r"^hinter: out of memory \(Unable to allocate 65\.5 TiB .*\); give the job more memory",
        ),
        (RecursionError("maximum recursion depth exceeded"), r"^hinter: an input is nested too"),
    ],
)
def test_a_predictable_failure_ends_the_job_with_one_line(tmp_path, capsys, error, line):
    """Review 2026-11-28 V04: rule rq1_tables died with a numpy _ArrayMemoryError traceback and
    no error line in its log."""
    import re
    from types import SimpleNamespace

    from hinter import workflow

    log = tmp_path / "job.log"

    def main():
        raise error

    with pytest.raises(SystemExit) as info:
        workflow.run(SimpleNamespace(log=[str(log)]), main)
    assert info.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err) and re.search(line, err[-1]), err
    assert "ERROR" in log.read_text() and "Traceback" not in log.read_text()
