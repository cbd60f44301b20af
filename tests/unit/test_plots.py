"""The figure style and writer: one style, stable colours and names, figures byte-identical on
rerun and across processes, no timestamps or creator metadata."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib
import pytest
from matplotlib.figure import Figure

from hinter.plots import charts, style
from hinter.plots.writer import save_figure


def _figure() -> Figure:
    with style.context():
        return charts.bar_panels(
            [
                charts.Bars("(a) rates", ["BERT", "Llama 2", "All models"], [1.5, 17.26, 9.0],
                            ["#0072B2", "#0072B2", style.total_color()], "Error rate (%)"),
                charts.Bars("(b) shares", ["BERT", "Llama 2"], [float("nan"), 40.0],
                            ["#0072B2", "#0072B2"], notes=["0/0", "2/5"]),
            ]
        )  # fmt: skip


def test_style_sets_fonts_and_leaves_the_callers_settings_alone():
    before = dict(matplotlib.rcParams)
    with style.context():
        assert matplotlib.rcParams["font.family"] == ["DejaVu Sans"]
        assert matplotlib.rcParams["pdf.fonttype"] == 42
        assert matplotlib.rcParams["axes.spines.top"] is False
    assert dict(matplotlib.rcParams) == before


def test_colours_and_names_come_from_one_config():
    colors = style.config()["colors"]
    assert style.color("attributes", "race") == colors["attributes"]["race"]
    # an atomic suite has its attribute's colour; every listed suite has its own colour
    assert style.color("suites", "atomic-gender") == style.color("attributes", "gender")
    listed = [style.color("suites", s) for s in colors["suites"]]
    assert len(set(listed)) == len(listed)
    # unknown names get a stable colour from the fallback palette
    assert style.color("attributes", "religion") == style.color("attributes", "religion")
    assert style.color("attributes", "religion") in colors["fallback"]
    assert style.name("models", "llama2") == "Llama 2"
    assert style.name("models", "Total") == "All models"
    assert style.name("models", "my-model") == "my-model"
    assert style.name("suites", "inter-race+gender") == "Race × Gender"
    assert style.name("datasets", "ecthr_a") == "ECtHR"


def test_log_axis_only_when_rates_span_orders_of_magnitude():
    with style.context():
        fig = Figure()
        ax = fig.add_subplot()
        charts.bar_panel(ax, charts.Bars("t", ["a", "b"], [0.5, 40.0], ["k", "k"]))
        assert ax.get_yscale() == "log"
        ax = fig.add_subplot()
        charts.bar_panel(ax, charts.Bars("t", ["a", "b"], [0.0, 40.0], ["k", "k"]))
        assert ax.get_yscale() == "linear"  # 0 cannot be shown on a log axis
        ax = fig.add_subplot()
        charts.bar_panel(ax, charts.Bars("t", ["a", "b"], [math.nan, 40.0], ["k", "k"]))
        assert [t.get_text() for t in ax.texts] == ["–", "40.00"]


def test_text_on_bars_stays_readable():
    assert charts.text_color("#DDDDDD") == "black"
    assert charts.text_color("#0072B2") == "white"


def test_figures_are_byte_identical_on_rerun_without_metadata(tmp_path):
    first = save_figure(_figure(), tmp_path / "a" / "fig")
    second = save_figure(_figure(), tmp_path / "b" / "fig")
    assert [p.name for p in first] == ["fig.pdf", "fig.png"]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
    pdf, png = (p.read_bytes() for p in first)
    assert pdf.startswith(b"%PDF") and png.startswith(b"\x89PNG")
    for stamp in (b"CreationDate", b"ModDate", b"Producer", b"Creator", b"matplotlib"):
        assert stamp not in pdf
    assert b"Software" not in png and b"tEXt" not in png


def test_figures_are_byte_identical_across_processes(tmp_path):
    """Another interpreter (other hash seed, a second later) writes the same bytes."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_plots import _figure
        from hinter.plots.writer import save_figure
        save_figure(_figure(), sys.argv[1])
        """
    )
    outs = []
    for seed in ("1", "2"):
        stem = tmp_path / f"p{seed}" / "fig"
        env = {"PYTHONHASHSEED": seed, "MPLBACKEND": "pdf" if seed == "2" else "agg"}
        subprocess.run(
            [sys.executable, "-c", script, str(stem)], check=True, timeout=120,
            env={**os.environ, **env},
        )  # fmt: skip
        outs.append([stem.with_suffix(ext).read_bytes() for ext in (".pdf", ".png")])
    assert outs[0] == outs[1]
    assert outs[0][1] == save_figure(_figure(), tmp_path / "here" / "fig")[1].read_bytes()


def test_an_unknown_format_is_refused_before_writing(tmp_path):
    with pytest.raises(ValueError, match="pdf or png"):
        save_figure(_figure(), tmp_path / "fig", extensions=("pdf", "svg"))
    assert list(tmp_path.iterdir()) == []  # refused before anything is written
