"""The RQ output registry, its report captions and the shared ordering."""

from __future__ import annotations

import re

import jinja2
import pandas as pd
import pytest
from docutils.core import publish_parts

from hinter.config import load_yaml, validate_config
from hinter.layout import PAPER, RunLayout
from hinter.rq import captions, outputs
from hinter.rq.ordering import in_order, kinds_in_order


@pytest.fixture(scope="module", params=["demo", "config"])
def config(request, repo):
    return validate_config(load_yaml(repo / "config" / f"{request.param}.yaml"))


def test_names_and_report_labels_are_unique():
    for rq, registered in outputs.OUTPUTS.items():
        names = [o.name for o in registered]
        labels = [o.labels["output"] for o in registered]
        assert len(set(names)) == len(names), f"RQ{rq}: duplicate output names"
        # the report keys its entries by their labels: a duplicate would hide one
        assert len(set(labels)) == len(labels), f"RQ{rq}: duplicate report labels"
        for o in registered:
            assert o.rq == rq and o.category == ("Paper" if rq == PAPER else f"RQ{rq}")
            assert set(o.sources) <= set(outputs.names(rq, outputs.TABLE, o.part))


def test_every_output_has_a_caption_and_every_caption_an_output(repo):
    report = repo / "workflow" / "report"
    expected = {o.caption for registered in outputs.OUTPUTS.values() for o in registered}
    # LABE's outputs (issue 32) are not research questions: labe.smk names their captions
    labe = (repo / "workflow" / "rules" / "labe.smk").read_text(encoding="utf-8")
    expected |= {
        f"labe/{n}.rst" for n in re.findall(r'labe_report\(L\.labe\([^)]*\), "(\w+)"', labe)
    }
    assert len([c for c in expected if c.startswith("labe/")]) == 6
    # the models' performance tables (review G12): models.smk names their captions
    expected |= set(re.findall(r'caption="\.\./report/(models/\w+\.rst)"', _models_rules(repo)))
    assert {c for c in expected if c.startswith("models/")} == {
        "models/performance.rst",
        "models/llm_performance.rst",
    }
    found = {str(p.relative_to(report)) for p in report.glob("*/*.rst")}
    assert found == expected


def _models_rules(repo) -> str:
    return (repo / "workflow" / "rules" / "models.smk").read_text(encoding="utf-8")


def test_the_performance_captions_render_strictly(repo):
    """The captions of the performance tables in the report are plain reST (no Jinja):
    they render without a warning."""
    for name in ("performance", "llm_performance"):
        text = (repo / "workflow" / "report" / "models" / f"{name}.rst").read_text("utf-8")
        assert "{{" not in text and "{%" not in text, name
        body = publish_parts(
            text, writer="html", settings_overrides={"halt_level": 2, "report_level": 5}
        )["body"]
        assert "most frequent prediction" in body and "constant" in body, name


def _render(repo, output, config) -> str:
    """The caption as Snakemake renders it (jinja2, then reStructuredText), but strict: an
    unknown key or a reST problem fails instead of rendering as nothing."""
    template = (repo / "workflow" / "report" / output.caption).read_text(encoding="utf-8")
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    params = captions.params(output.rq, config)
    snakemake = type("Snakemake", (), {"params": params, "config": config})
    text = env.from_string(template).render(snakemake=snakemake)
    parts = publish_parts(
        text, writer="html", settings_overrides={"halt_level": 2, "report_level": 5}
    )
    return parts["body"]


def test_captions_render_with_the_run_config_and_the_papers_numbers(repo, config):
    for registered in outputs.OUTPUTS.values():
        for output in registered:
            html = _render(repo, output, config)
            assert config["run_name"] in html, output.name
    table3 = _render(repo, outputs.get(1, "table3"), config)
    assert "14.61%" in table3 and "16.62%" in table3
    fig6 = _render(repo, outputs.get(1, "fig6"), config)
    assert "84.68" in fig6 and "11.37" in fig6
    settings = captions.settings(config)
    assert settings["models"] in _render(repo, outputs.get(1, "fig4"), config)


def test_rows_follow_the_given_orders_with_unknown_values_last():
    frame = pd.DataFrame(
        {"model": ["Total", "b", "a", "x", "a"], "dataset": ["All", "d2", "d2", "d1", "d1"]}
    )
    got = in_order(frame, {"model": ["a", "b", "Total"], "dataset": ["d1", "d2", "All"]})
    assert list(zip(got["model"], got["dataset"], strict=True)) == [
        ("a", "d1"), ("a", "d2"), ("b", "d2"), ("Total", "All"), ("x", "d1"),
    ]  # fmt: skip
    assert list(got.index) == [0, 1, 2, 3, 4]
    assert kinds_in_order(["intersectional (N=3)", "atomic", "intersectional"]) == [
        "intersectional", "atomic", "intersectional (N=3)",
    ]  # fmt: skip


def test_the_paper_comparison_is_registered_in_its_own_folder_and_category():
    (comparison,) = outputs.outputs(PAPER)
    assert comparison.category == "Paper" and comparison.caption == "paper/paper_vs_run.rst"
    assert RunLayout("results/demo").rq_output(PAPER, comparison.name, "csv") == (
        "results/demo/paper/paper_vs_run.csv"
    )
    for rq, names in outputs.COMPARISON_SOURCES.items():
        assert set(names) <= set(outputs.names(rq, outputs.TABLE))
