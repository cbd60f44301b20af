"""The DAG follows from the config alone: dry-runs offline, lint, and start-up failures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hinter import estimate, plan
from hinter.config import load_yaml, validate_config
from hinter.layout import RunLayout

pytestmark = pytest.mark.workflow
REPO = Path(__file__).resolve().parents[2]


def _job_counts(stdout: str) -> dict[str, int]:
    counts = {}
    for line in stdout.splitlines():
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if match:
            counts[match.group(1)] = int(match.group(2))
    return counts


def test_paper_dag_dry_run_offline(tmp_path, run_snakemake):
    proc = run_snakemake("-n", "--quiet", "rules", workdir=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = _job_counts(proc.stdout)
    assert counts["download_dataset"] == 5
    assert counts["download_sbic"] == 1 and counts["extract_sbic_terms"] == 1
    assert counts["train_encoder"] == 16  # 4 encoders x 4 LexGLUE tasks
    # 6 suites of LexGLUE on two tracks, IMDB only on the LLM track (+1 N=3 suite).
    config = validate_config(load_yaml(REPO / "config" / "config.yaml"))
    shards = {ds: plan.n_shards(config, ds) for ds in config["datasets"]}
    expected = (
        sum(n * 6 for n in shards.values())
        + sum(n * 6 for d, n in shards.items() if d != "imdb")
        + shards["imdb"]
    )
    assert counts["mutate"] == expected
    assert counts["check_invariant"] == expected
    # Predictions: 4 encoders on the LexGLUE shards; Llama 2 and GPT-3.5 on every shard of the
    # five datasets; Llama 2's five RQ6 variants (3 more runs, 2 templates) on IMDB and SCOTUS.
    encoders = 4 * sum(n for d, n in shards.items() if d != "imdb")
    llms = 2 * sum(shards.values())
    rq6 = 5 * (shards["imdb"] + shards["scotus"])
    assert counts["predict"] == encoders + llms + rq6
    # Outcomes: 16 encoder runs x 6 suites; 2 LLMs x 5 datasets x 6 suites + Llama 2's N=3 IMDB
    # suite; the 5 variants' intersectional N=2 suites on IMDB and SCOTUS (3 each), all RQ6 reads.
    assert counts["outcomes"] == 16 * 6 + (2 * 5 * 6 + 1) + 5 * (3 + 3)
    assert not list(tmp_path.glob("results/*")), "a dry-run must not write results"
    # The cost model (hinter estimate) counts the same jobs as Snakemake's DAG.
    jobs = estimate.stage_jobs(estimate.project(config, estimate.load_unit_costs()))
    for rule in ("shard_documents", "mutate", "check_invariant", "train_encoder"):
        assert jobs[rule] == counts[rule], rule


def test_paper_llm_targets_plan_offline_without_an_api_key(tmp_path, run_snakemake):
    """Llama 2 (N=3 on IMDB) and GPT-3.5 are planned offline with no API key in sight."""
    from hinter.layout import RunLayout

    run = RunLayout("results/paper")
    targets = [
        run.outcomes("llama2", "imdb", "inter-body+gender+race"),
        run.outcomes("gpt35", "ecthr_a", "inter-race+gender"),
        run.outcomes("llama2", "scotus", "atomic-race", "alt2"),
        run.predictions("gpt35", "eurlex", "031"),
    ]
    proc = run_snakemake("-n", *targets, workdir=tmp_path, env={"OPENAI_API_KEY": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    missing = run.outcomes("gpt35", "imdb", "inter-body+gender+race")
    proc = run_snakemake("-n", missing, workdir=tmp_path)
    assert proc.returncode != 0  # RQ5's N=3 suite is Llama 2's only


def test_demo_dag_dry_run(tmp_path, run_snakemake):
    proc = run_snakemake(
        "-n", "--quiet", "rules", "--configfile", "config/demo.yaml", workdir=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = _job_counts(proc.stdout)
    assert counts["demo_dataset"] == 5
    assert not {"demo_treebank", "train_demo_parser"} & set(counts)  # the real parser, installed
    assert "download_dataset" not in counts


def test_one_rq_target_dry_run(tmp_path, run_snakemake):
    proc = run_snakemake("rq3", "-n", "--configfile", "config/demo.yaml", workdir=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_bad_config_key_stops_before_any_job(tmp_path, run_snakemake):
    proc = run_snakemake(
        "--cores",
        "1",
        "--configfile",
        "config/demo.yaml",
        "--config",
        "mutaton={}",
        workdir=tmp_path,
    )
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hinter:")]
    assert lines == [
        "hinter: config key 'mutaton': unknown key (known keys: "
        + lines[0].split("(known keys: ")[1]
    ]
    assert not (tmp_path / "results").exists()


def test_offline_hub_request_ends_with_one_line_and_no_output(tmp_path, run_snakemake):
    proc = run_snakemake(
        "--cores",
        "1",
        "--config",
        "datasets=[imdb]",
        "--",
        RunLayout("results/paper").meta("imdb"),
        workdir=tmp_path,
        timeout=120,
    )
    assert proc.returncode != 0
    messages = [
        line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("hinter:")
    ]
    assert messages and "go online" in messages[0] and "config/demo.yaml" in messages[0]
    data_dir = tmp_path / RunLayout("results/paper").data_dir("imdb")
    assert not data_dir.exists() or not any(
        p.suffix in (".parquet", ".json") for p in data_dir.iterdir()
    )


def test_lint_and_format_are_clean(run_snakemake, repo):
    lint = run_snakemake("--lint", "--configfile", "config/demo.yaml")
    assert lint.returncode == 0, lint.stderr[-3000:]
    assert "Lints for" not in lint.stdout + lint.stderr, lint.stdout[-3000:]
    bindir = Path(sys.executable).parent
    fmt = subprocess.run(
        [str(bindir / "snakefmt"), "--check", "Snakefile", "workflow/rules"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stderr[-2000:]
    ruff = subprocess.run(
        [str(bindir / "ruff"), "check", "src", "tests", "workflow/scripts"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout[-3000:]


def test_rq2_and_rq3_plan_only_what_they_need(tmp_path, run_snakemake):
    """On the paper config, `rq2` plans the grammar runs and nothing of the other RQs; `rq3`
    adds the validity summaries and every default outcome, but no examples, RQ1 or RQ2 tables.
    Planned on one shard per dataset (see ONE_SHARD below)."""
    config = validate_config(load_yaml(REPO / "config" / "config.yaml"))
    runs = len(plan.grammar_runs(config))
    summaries = sum(len(plan.tracks(config, ds)) for ds in config["datasets"])
    rq2 = _plan("rq2", tmp_path, run_snakemake)
    rq3 = _plan("rq3", tmp_path, run_snakemake)
    assert rq2["rq2_tables"] == rq2["rq2_figures"] == 1 and rq2["grammar_scores"] == runs
    assert rq3["rq3_tables"] == rq3["rq3_figures"] == 1 and rq3["grammar_scores"] == runs
    assert rq3["summarise_invariant"] == summaries
    # every default-variant outcome and the predictions behind them only: none of RQ6's
    # variants (Llama 2's extra runs, templates)
    assert rq3["outcomes"] == UPSTREAM["outcomes"] and rq3["predict"] == UPSTREAM["predict"]
    for other in ("hidden_examples", "mutation_summary", "model_performance", "rq1_tables",
                  "rq1_groups", "rq3_tables", "summarise_invariant"):  # fmt: skip
        assert other not in rq2, other
    for other in ("hidden_examples", "rq1_tables", "rq1_groups", "rq2_tables"):
        assert other not in rq3, other


# -- research-question targets plan what they need and nothing more ----------------------------
# The paper config with one shard per dataset: the same rules and runs, a DAG of ~400 jobs
# instead of ~11,000 (seconds instead of minutes). Jobs that scale with shards are counted per
# shard; the RQ jobs do not depend on sharding.
ONE_SHARD = """
mutation:
  default_shards: 1
  shards: {ecthr_a: 1, scotus: 1, eurlex: 1, ledgar: 1, imdb: 1}
"""
# What every RQ over the default outcomes needs, counted on one shard per dataset.
UPSTREAM = {
    "compile_pairs": 1,
    "download_dataset": 5,
    "shard_documents": 5,
    "track_windows": 5,
    "train_encoder": 16,  # 4 encoders x 4 LexGLUE tasks
    "mutate": 55,  # encoder track 6 suites x 4, LLM track 6 x 5 + IMDB's N=3 suite
    "check_invariant": 55,
    "predict": 16 + 2 * 5,  # the encoders' and LLMs' default runs only, no RQ6 variant
    "outcomes": 16 * 6 + (2 * 5 * 6 + 1),  # default variants: RQ6's 58 are not planned
}


def _plan(target: str, tmp_path: Path, run_snakemake) -> dict[str, int]:
    override = tmp_path / "one_shard.yaml"
    override.write_text(ONE_SHARD)
    proc = run_snakemake(
        target, "-n", "--quiet", "rules",
        "--configfile", str(REPO / "config" / "config.yaml"), str(override),
        workdir=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = _job_counts(proc.stdout)
    counts.pop("total", None)
    return counts


def test_rq1_plans_its_tables_figures_and_their_inputs_only(tmp_path, run_snakemake):
    counts = _plan("rq1", tmp_path, run_snakemake)
    # hidden-bias examples: one per intersectional suite of each default run (N=2 and N=3)
    want = {**UPSTREAM, "hidden_examples": 16 * 3 + (2 * 5 * 3 + 1), "rq1_tables": 1,
            "rq1_figures": 1, "rq1_groups": 1, "rq1": 1}  # fmt: skip
    assert counts == want


def test_the_paper_comparison_plans_rq_tables_and_grammar_scores_only(tmp_path, run_snakemake):
    counts = _plan("paper_comparison", tmp_path, run_snakemake)
    want = {
        **UPSTREAM,
        "hidden_examples": 16 * 3 + (2 * 5 * 3 + 1),
        # the comparison reads RQ1's, RQ3's and RQ5's tables, not their figures
        "rq1_tables": 1,
        "rq3_tables": 1,
        "rq5_tables": 1,
        "summarise_invariant": 4 * 2 + 1,  # Fig. 7's validity summaries (LexGLUE on 2 tracks)
        "grammar_scores": 6 * 4,  # the grammar sample: 6 models x 4 LexGLUE datasets
        "paper_comparison": 1,
    }
    assert counts == want
    assert not list(tmp_path.glob("results/*")), "a dry-run must not write results"


# -- RQ4-RQ6: each target plans what it needs and nothing more --------------------------------


def test_paper_rq4_rq5_rq6_plan_only_what_they_need(tmp_path, run_snakemake):
    """On the paper config (one shard per dataset): RQ5 plans Llama 2 on IMDB only, RQ6 Llama
    2's six variants on IMDB and SCOTUS (their N=2 suites), RQ4 every default run."""
    rq5 = _plan("rq5", tmp_path, run_snakemake)
    assert rq5["outcomes"] == 7 and rq5["predict"] == 1  # its 7 suites, N=3 included
    assert rq5["rq5_tables"] == 1 and "train_encoder" not in rq5
    assert not {"rq4_tables", "rq6_tables", "rq1_tables"} & set(rq5)
    rq6 = _plan("rq6", tmp_path, run_snakemake)
    assert rq6["outcomes"] == 6 * 2 * 3 and rq6["predict"] == 6 * 2
    assert "train_encoder" not in rq6 and "rq5_tables" not in rq6 and "rq4_tables" not in rq6
    rq4 = _plan("rq4", tmp_path, run_snakemake)
    assert rq4["outcomes"] == UPSTREAM["outcomes"] and rq4["predict"] == UPSTREAM["predict"]
    assert rq4["rq4_tables"] == rq4["rq4_figures"] == 1
    assert not {"rq6_tables", "rq5_tables", "rq1_tables", "hidden_examples"} & set(rq4)
