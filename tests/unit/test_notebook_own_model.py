"""notebooks/own_model.ipynb runs top to bottom without a demo run (review 2026-11-28 P18): the
API on a model folder and a CSV of one's own, the result shown inline (``_repr_html_``)."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient


def test_own_model_notebook_runs_without_the_demo(repo, monkeypatch, tmp_path):
    monkeypatch.setenv("MPLBACKEND", "agg")
    monkeypatch.delenv("HINTER_MODEL", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    path = repo / "notebooks" / "own_model.ipynb"
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # a failing cell raises CellExecutionError, naming the cell
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    html = [out["data"]["text/html"] for out in outputs if "text/html" in out.get("data", {})]
    assert html and html[0].startswith("<p><b>hinter</b> "), html[:1]
    kinds = {kind for out in outputs for kind in out.get("data", {})}
    assert {"image/png", "text/markdown"} <= kinds, kinds
    text = "".join(out.get("text", "") for out in outputs)
    assert "report: " in text and "Traceback" not in text


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
