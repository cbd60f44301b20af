"""Notebooks are committed without outputs (CI executes them; results never live in git)."""

from __future__ import annotations

import json


def test_notebooks_are_committed_without_outputs(repo):
    for path in sorted((repo / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [], f"{path.name} cell {i} has outputs"
                assert cell["execution_count"] is None, f"{path.name} cell {i} was executed"
