"""One caption source: every RQ table's definitions live in its report caption
(``workflow/report/<rq>/<name>.rst``) and its Markdown/HTML document quotes them
(:mod:`hinter.rq.definitions`), so the two cannot drift apart."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import rq_runs

from hinter.rq import definitions, outputs, rq1, rq2, rq3, rq4, rq5, rq6, scores
from hinter.rq.intervals import Bootstrap

TABLES = [o for rq in outputs.OUTPUTS for o in outputs.outputs(rq, outputs.TABLE, part=None)]


def _caption(markdown: str) -> str:
    """The paragraph after a document's title (``hinter.render.document``)."""
    return markdown.split("\n\n")[1]


@pytest.mark.parametrize("output", TABLES, ids=lambda o: o.caption)
def test_every_table_caption_has_one_plain_definitions_paragraph(output):
    text = (definitions.REPORT / output.caption).read_text(encoding="utf-8")
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.startswith(definitions.MARK)]
    assert len(paragraphs) == 1, output.caption
    assert "{" not in paragraphs[0] and "}" not in paragraphs[0]  # no Jinja: Python fills the run
    got = definitions.definitions(output)
    assert got and "``" not in got and "\n" not in got


def test_rst_markup_becomes_markdown():
    assert definitions.markdown(r"``a_b`` and *x*, \|r\|") == "`a_b` and *x*, |r|"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (None, "cannot read the caption template"),
        ("**T.** no definitions here\n", r"exactly one paragraph starting with \*Definitions"),
        ("*Definitions.* a\n\n*Definitions.* b\n", "found 2"),
        ("*Definitions.* run {{ snakemake.params.settings.run }}\n", "no Jinja"),
        ("*Definitions.*\n\n*Paper.* x\n", "is empty"),
    ],
)
def test_a_missing_or_garbled_caption_is_a_one_line_error_naming_the_file(tmp_path, text, error):
    output = outputs.get(1, "table3")
    if text is not None:
        (tmp_path / "rq1").mkdir()
        (tmp_path / output.caption).write_text(text, encoding="utf-8")
    with pytest.raises(definitions.CaptionError, match=error) as e:
        definitions.definitions(output, tmp_path)
    assert str(tmp_path / output.caption) in str(e.value) and "\n" not in str(e.value)


@pytest.fixture
def marked(tmp_path, monkeypatch):
    """A copy of the report captions whose definitions are unique markers, installed as the
    source the RQ modules read: a table that still carried its own text would miss its marker."""
    report = tmp_path / "report"
    shutil.copytree(definitions.REPORT, report)
    for o in TABLES:
        path = report / o.caption
        text = path.read_text(encoding="utf-8")
        old = next(p for p in re.split(r"\n\s*\n", text) if p.startswith(definitions.MARK))
        path.write_text(text.replace(old, f"{definitions.MARK} MARK-{o.rq}-{o.name}"), "utf-8")
    monkeypatch.setattr(definitions, "REPORT", report)
    return lambda o: f"MARK-{o.rq}-{o.name}"


def test_the_markdown_caption_of_each_built_table_is_its_rst_definition(tmp_path, marked):
    run = rq_runs.make_run(tmp_path / "work")
    boot = Bootstrap(resamples=50)
    built = {
        (1, name): table.markdown
        for name, table in rq1.build_tables(
            rq1.collect(run.outcome_files), run.example_files, boot=boot
        ).items()
    }
    empty = scores.read_scores([])
    built[2, "grammar_scores"] = rq2.grammar_scores(empty, boot).markdown
    built[3, "grammar_validity"] = rq3.grammar_validity(empty, boot).markdown
    stats = {"resamples": 50, "seed": 1, "confidence": 0.95}
    models = sorted({f.model for f in run.outcome_files})
    datasets = sorted({f.dataset for f in run.outcome_files})
    for name, table in rq4.build_tables(run.outcome_files, models, datasets, stats).items():
        built[4, name] = table.markdown
    rq5_tables = rq5.build_tables(
        [], [], models=models, datasets=datasets, stats=stats, paper={}, limits={}, positions={}
    )
    built.update({(5, name): table.markdown for name, table in rq5_tables.items()})
    rq6.write_tables(
        [], [], tmp_path / "rq6", models=models, datasets=datasets, variant_names=[],
        thresholds=[0.0, 0.5], rule="exclude", stats=stats,
    )  # fmt: skip
    built.update({(6, p.stem): p.read_text("utf-8") for p in (tmp_path / "rq6").glob("*.md")})
    assert len(built) == 16
    for (rq, name), markdown in built.items():
        mark = marked(outputs.get(rq, name))
        caption = _caption(markdown)
        assert caption == mark or caption.startswith(f"{mark} "), (rq, name)
    # the run's own sentences follow the definitions
    assert boot.describe() in _caption(built[1, "table3"])
    assert rq1.LEGEND in _caption(built[1, "table3"])
    assert "This run's rule: exclude" in _caption(built[6, "thresholds"])


def test_the_real_definitions_reach_the_markdown(tmp_path):
    run = rq_runs.make_run(tmp_path / "work")
    collected = rq1.collect(run.outcome_files)
    table = rq1.rates_by_suite(collected)
    want = definitions.definitions(outputs.get(1, "rates_by_suite"))
    # then the run's own sentence: the small run's models give every original one label set
    assert (
        collected.constant and _caption(table.markdown) == f"{want} {rq1.constant_note(collected)}"
    )
    assert "`written`" in want  # ``written`` in the rst


def test_the_report_folder_is_the_repositorys():
    assert Path(__file__).resolve().parents[2] / "workflow" / "report" == definitions.REPORT


def test_the_group_bias_caption_states_the_flag_minimum_the_code_applies():
    """The report's definition of a biased group names the same document minimum as
    hinter.statistics.MIN_DOCUMENTS (the RQ1 groups table and the hinter test report apply it)."""
    from hinter.rq import outputs
    from hinter.rq.definitions import definitions
    from hinter.statistics import MIN_DOCUMENTS

    text = definitions(outputs.get(1, "group_bias"))
    assert f"at least {MIN_DOCUMENTS} original documents" in " ".join(text.split())
    assert "Clopper–Pearson" in text
