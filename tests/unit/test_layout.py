"""The run layout is the one place paths are built: rules, CLI and RQ modules agree with it."""

from __future__ import annotations

import re
import subprocess

import pytest

from hinter.layout import DEFAULT_VARIANT, RunLayout, Variant


def test_paths_follow_the_documented_layout():
    run = RunLayout("results/demo")
    assert run.tested("imdb", "001") == "results/demo/data/imdb/tested/001.parquet"
    assert (
        run.mutants("encoder", "imdb", "inter-race+gender", "000")
        == "results/demo/mutants/encoder/imdb/inter-race+gender/000.parquet"
    )
    assert run.predictions("bert", "scotus", "003") == (
        "results/demo/predictions/bert/default/scotus/003.parquet"
    )
    assert run.outcomes("llama2", "imdb", "atomic-race", "alt1") == (
        "results/demo/outcomes/llama2/alt1/imdb/atomic-race.parquet"
    )
    assert run.rq_output(3, "fig7", "pdf") == "results/demo/rq3/fig7.pdf"
    assert run.report() == "results/demo/report.html"
    assert run.report_screenshot("fig4") == "results/demo/report-fig4.png"
    assert (
        run.grammar_scores("bert", "scotus") == "results/demo/grammar/bert/default/scotus.parquet"
    )
    assert run.grammar_summary("llama2", "imdb", "alt1") == (
        "results/demo/grammar/llama2/alt1/imdb.json"
    )
    assert (
        run.logs("mutate", "encoder", "imdb", "000")
        == "results/demo/logs/mutate/encoder/imdb/000.log"
    )
    with pytest.raises(ValueError):
        run.rq_dir(7)


def test_from_config_uses_results_dir_and_run_name():
    run = RunLayout.from_config({"results_dir": "/tmp/out/", "run_name": "paper"})
    assert run.meta("imdb") == "/tmp/out/paper/data/imdb/meta.json"
    assert RunLayout.from_config({"run_name": "demo"}).root == "results/demo"


def test_snakemake_wildcards_pass_through():
    run = RunLayout("results/x")
    pattern = run.outcomes("{model}", "{dataset}", "{suite}", "{variant}")
    assert pattern == "results/x/outcomes/{model}/{variant}/{dataset}/{suite}.parquet"


@pytest.mark.parametrize(
    ("variant", "name"),
    [
        (Variant(), DEFAULT_VARIANT),
        (Variant(run=2), "default-run2"),
        (Variant("alt1"), "alt1"),
        (Variant("alt2", 3), "alt2-run3"),
    ],
)
def test_variant_names_round_trip(variant, name):
    assert variant.name == name
    assert Variant.from_name(name) == variant
    assert variant.is_default == (name == DEFAULT_VARIANT)


@pytest.mark.parametrize("bad", ["", "a-b", "x-run0", "x-runs2", "../x"])
def test_bad_variant_names_are_refused(bad):
    with pytest.raises(ValueError):
        Variant.from_name(bad)


def test_the_snakemake_wildcard_constraint_accepts_exactly_variant_names(repo):
    text = (repo / "workflow" / "rules" / "common.smk").read_text()
    constraint = re.search(r'variant=r"([^"]+)"', text).group(1)
    for name in ("default", "default-run2", "alt1", "alt2-run3"):
        assert re.fullmatch(constraint, name)
    for name in ("a-b", "x/y", "default-run"):
        assert not re.fullmatch(constraint, name)


def test_no_run_directory_path_is_built_outside_the_layout(repo):
    """Rules, scripts, the CLI, the RQ modules, notebooks and tests name run files only through
    hinter.layout (a test's own scratch folders excepted)."""
    names = "outcomes predictions mutants validity examples grammar data models parser dictionary"
    folders = "(" + "|".join([*names.split(), "rq[1-6]"]) + ")"
    pattern = rf'(\{{RUN\}}|\bLOGS\b|/ "{folders}" /|/{folders}/\{{)'
    where = ["workflow", "src", "notebooks", "tests", "Snakefile", ":!tests/unit/test_layout.py"]
    proc = subprocess.run(
        ["git", "grep", "-n", "-E", pattern, "--", *where],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    # The content-addressed caches live under cache_dir, shipped inputs under resources/ and
    # test fixtures under tests/data/ and a test's scratch files under tmp_path, all outside any
    # run directory.
    outside = ("cache_dir", "resources", "RESOURCES", "rq1_golden", "tmp_path /",
               '"workflow" / "report"')  # fmt: skip
    hits = [
        line
        for line in proc.stdout.splitlines()
        if not line.startswith("src/hinter/layout.py") and not any(w in line for w in outside)
    ]
    assert not hits, "\n".join(hits)


def test_the_known_datasets_are_those_with_facts():
    """layout.KNOWN_DATASETS is a plain tuple (deriving it from hinter.data.FACTS would import
    pyarrow into Snakemake's start-up and close a cycle layout -> data -> plan -> layout), so
    this keeps the two in step."""
    from hinter.data import FACTS
    from hinter.layout import KNOWN_DATASETS

    assert tuple(FACTS) == KNOWN_DATASETS
