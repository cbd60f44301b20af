"""The whole demo workflow, run once offline: every stage's outputs and their promises."""

from __future__ import annotations

import csv
import hashlib
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hinter import io, plan, tables
from hinter.config import load_yaml, validate_config
from hinter.data import FACTS, check_facts
from hinter.layout import RunLayout

pytestmark = pytest.mark.workflow

DATASETS = ["ecthr_a", "scotus", "eurlex", "ledgar", "imdb"]


@pytest.fixture(scope="module")
def config(repo):
    return validate_config(load_yaml(repo / "config" / "demo.yaml"))


def _csv(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_demo_corpora_follow_the_hub_schemas(demo_run):
    for name in DATASETS:
        meta = io.read_json(demo_run / "data" / name / "meta.json")
        split_tables = {
            s: io.read_parquet(demo_run / "data" / name / f"{s}.parquet", tables.DOCUMENTS)
            for s in ("train", "validation", "test")
        }
        check_facts(FACTS[name], meta["label_names"], split_tables, check_sizes=False, where=name)
        assert meta["task_type"] == FACTS[name].task_type


def test_demo_parser_is_accurate(demo_run):
    metrics = io.read_json(demo_run / "parser" / "metrics.json")
    assert (demo_run / "parser" / "pipeline" / "meta.json").exists()
    dev = metrics["dev"]
    assert dev["tag_acc"] >= 0.98 and dev["las"] >= 0.98


def test_dictionary_outputs(demo_run):
    pairs = io.read_parquet(demo_run / "dictionary" / "pairs.parquet", tables.PAIRS)
    counts = {a: 0 for a in ("race", "gender", "body")}
    for attribute in pairs.column("attribute").to_pylist():
        counts[attribute] += 1
    assert counts == {"race": 3996, "gender": 1102, "body": 784}
    assert (demo_run / "dictionary" / "sbic_terms.tsv").stat().st_size > 0
    assert "Per attribute" in (demo_run / "dictionary" / "coverage.md").read_text()


def test_every_suite_of_every_dataset_has_mutants(demo_run, config):
    for name in DATASETS:
        rows = _csv(demo_run / "mutants" / "encoder" / name / "summary.csv")
        written = {}
        for row in rows:
            written[row["suite"]] = written.get(row["suite"], 0) + int(row["written"])
        expected = {s.name for s in plan.suites(config, name, "encoder")}
        assert set(written) == expected, name
        assert all(n > 0 for n in written.values()), (name, written)


def test_validity_summaries_show_discards_by_reason(demo_run):
    reasons = set()
    for name in DATASETS:
        for row in _csv(demo_run / "validity" / "encoder" / name / "summary.csv"):
            assert int(row["generated"]) == int(row["valid"]) + int(row["discarded"])
            reasons |= {k for k, v in row.items() if k in ("pos", "dep") and int(v or 0) > 0}
    assert reasons == {"pos", "dep"}


def test_predictions_cover_originals_and_every_valid_mutant(demo_run, config):
    for run in plan.model_runs(config):
        for shard in plan.shard_ids(config, run.dataset):
            predicted = set(
                pq.read_table(
                    RunLayout(str(demo_run)).predictions(run.model, run.dataset, shard),
                    columns=["text_id"],
                )
                .column("text_id")
                .to_pylist()
            )
            docs = pq.read_table(RunLayout(str(demo_run)).tested(run.dataset, shard))
            assert set(docs.column("doc_id").to_pylist()) <= predicted
            for suite in plan.suites(config, run.dataset, run.track, run.model):
                path = RunLayout(str(demo_run)).validity(run.track, run.dataset, suite.name, shard)
                validity = pq.read_table(path).to_pylist()
                valid = {v["mutant_id"] for v in validity if v["valid"]}
                assert valid <= predicted, (run, suite.name, shard)


def test_performance_table_lists_every_demo_model(demo_run, config):
    rows = _csv(demo_run / "models" / "performance.csv")
    ours = {(r["model"], r["dataset"]) for r in rows}
    for run in plan.model_runs(config):
        assert (run.model, run.dataset) in ours


def test_rq1_tables_end_to_end(demo_run):
    table3 = (demo_run / "rq1" / "table3.md").read_text()
    for name in DATASETS:
        assert name.replace("_", "\\_") in table3
    truth = _csv(demo_run / "rq1" / "truth_table.csv")
    assert truth, "empty truth table"
    examples = (demo_run / "rq1" / "hidden_examples.md").read_text()
    assert "Intersectional" in examples and "**" in examples


def test_naive_and_incremental_invariant_agree_on_every_demo_mutant(demo_run, tmp_path):
    """Paper Alg. 3 run literally, the workflow's validity files and the incremental checker
    (cold cache) give identical verdicts on every distinct demo mutant."""
    import inv_corpus

    from hinter.invariant import load_pipeline

    nlp = load_pipeline(demo_run / "parser" / "pipeline")
    docs, rows, recorded = inv_corpus.run_mutants(demo_run)
    assert len(rows) > 10_000
    result = inv_corpus.compare(nlp, docs, rows, tmp_path / "parses.sqlite", memoise=True)
    assert [tuple(v) for v in result.naive] == [recorded[r["key"]] for r in rows]
    assert [tuple(v) for v in result.ours] == [tuple(v) for v in result.naive]


def _digests(root: Path) -> dict[str, str]:
    skip = ("logs", "models")  # logs carry timestamps; model dirs carry training timings
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (
            path.is_file()
            and rel.parts[0] not in skip
            and path.suffix in (".parquet", ".csv", ".md", ".tsv")
        ):
            out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_rerun_after_losing_a_file_is_byte_identical(demo_run, run_snakemake, repo):
    """Delete an upstream file (as if its job had been killed): the rerun regenerates it and
    everything downstream, byte for byte."""
    before = _digests(demo_run)
    lost = demo_run / "mutants" / "encoder" / "scotus" / "atomic-race" / "000.parquet"
    lost.unlink()
    proc = run_snakemake(
        "--cores", "2", "--configfile", str(repo / "config" / "demo.yaml"),
        "--set-threads", "train_encoder=1", "predict=1",
        workdir=demo_run.parent.parent, timeout=1200,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert "check_invariant" in proc.stdout + proc.stderr  # downstream jobs did run again
    assert _digests(demo_run) == before


def test_hinter_test_cli_on_a_demo_model(demo_run, tmp_path):
    out = tmp_path / "cli"
    proc = subprocess.run(
        [
            sys.executable, "-m", "hinter.cli", "test",
            str(demo_run / "models" / "tiny-bert" / "scotus" / "model"),
            str(demo_run / "data" / "scotus" / "test.parquet"),
            "--label-column", "labels", "--id-column", "doc_id",
            "--parser", str(demo_run / "parser" / "pipeline"),
            "--max-documents", "6", "--max-mutants-per-document", "20",
            "--out", str(out),
        ],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "inter-race+gender" in proc.stdout and "Hidden intersectional bias" in proc.stdout
    cli_run = RunLayout(str(out))
    rates = _csv(Path(cli_run.rq_output(1, "rates_by_suite", "csv")))
    assert {r["suite"] for r in rates} >= {"atomic-race", "inter-body+gender"}
    outcomes = pq.read_table(cli_run.outcomes("tiny-bert-scotus", "input", "inter-race+gender"))
    assert outcomes.num_rows > 0


def test_hinter_test_cli_bad_input_is_one_line(demo_run, tmp_path):
    data = tmp_path / "texts.csv"
    data.write_text("review\nA British man.\n")
    proc = subprocess.run(
        [
            sys.executable, "-m", "hinter.cli", "test",
            str(demo_run / "models" / "minilm" / "imdb" / "model"), str(data),
            "--out", str(tmp_path / "out"),
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"hinter: {data}: no column 'text' for --text-column (columns: review)"
    ]
