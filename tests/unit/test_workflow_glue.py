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
