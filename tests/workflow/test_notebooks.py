"""Every exploration notebook runs, top to bottom, against the demo results (so none can rot)."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.workflow


def test_notebooks_run_against_the_demo_results(demo_run, repo, monkeypatch):
    # own_model.ipynb needs no demo run: tests/unit/test_notebook_own_model.py executes it
    notebooks = sorted(p for p in (repo / "notebooks").glob("*.ipynb") if p.stem != "own_model")
    assert notebooks, "no notebook in notebooks/"
    monkeypatch.setenv("HINTER_RUN_DIR", str(demo_run))
    monkeypatch.setenv("HINTER_CONFIG", str(repo / "config" / "demo.yaml"))
    monkeypatch.setenv("MPLBACKEND", "agg")
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb, timeout=600, kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )  # fmt: skip
        client.execute()  # a failing cell raises CellExecutionError, naming the cell
        kinds = {
            kind
            for cell in nb.cells
            if cell.cell_type == "code"
            for out in cell.outputs
            for kind in (out.get("data") or {})
        }
        assert {"image/png", "text/markdown"} <= kinds, (path.name, kinds)
