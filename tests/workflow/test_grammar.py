"""The grammar-scoring stage in the demo workflow: a balanced, labelled, scored sample per
(model, dataset), consistent with the run's own tables; bad grammar keys stop the run."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from hinter import io, plan, tables
from hinter.config import load_yaml, validate_config
from hinter.edits import apply_edits
from hinter.grammar import SCORES, count_words, make_checker, score
from hinter.grammar.scoring import COUNTED
from hinter.layout import RunLayout
from hinter.plan import grammar_runs

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def config(repo):
    return validate_config(load_yaml(repo / "config" / "demo.yaml"))


def test_every_demo_run_has_a_balanced_scored_sample(demo_run, config):
    layout = RunLayout(str(demo_run))
    runs = grammar_runs(config)
    assert len(runs) == 11  # 9 encoder runs and SmolLM2 on IMDB and SCOTUS
    sample = config["grammar"]["sample"]
    biased_total = mutants_total = 0
    for r in runs:
        table = pq.read_table(layout.grammar_scores(r.model, r.dataset))
        assert table.schema.equals(SCORES, check_metadata=False)
        frame = table.to_pandas()
        summary = io.read_json(layout.grammar_summary(r.model, r.dataset))
        assert summary["checker"]["identity"] == "harper/american/plaintext"
        mutants = frame[frame["kind"] == "mutant"]
        for suite, cells in summary["cells"].items():
            for name, cell in cells.items():
                part = mutants[
                    (mutants["suite"] == suite) & (mutants["valid"] == (name == "valid"))
                ]
                assert len(part) == sum(cell["sampled"].values())
                assert len(part) == min(cell["quota"], sum(cell["available"].values()))
        n_suites = len(summary["cells"])
        assert len(mutants) <= sample["valid"] + sample["discarded"] + n_suites
        originals = frame[frame["kind"] == "original"]
        assert set(zip(originals["doc_id"], originals["order"], strict=True)) == set(
            zip(mutants["doc_id"], mutants["order"], strict=True)
        )
        assert frame["score"].between(0, 100).all()
        biased_total += int(mutants["biased"].fillna(False).sum())
        mutants_total += len(mutants)
    assert 0.1 < biased_total / mutants_total < 0.5  # about a quarter, where there is enough


def test_scores_match_the_materialised_texts(demo_run, config):
    """Re-materialise a few sampled mutants from the run's own tables and check them again."""
    layout = RunLayout(str(demo_run))
    r = grammar_runs(config)[0]
    frame = pq.read_table(layout.grammar_scores(r.model, r.dataset)).to_pandas()
    mutants = frame[frame["kind"] == "mutant"].head(12)
    docs = {}
    shards = plan.shard_ids(config, r.dataset)
    for shard in shards:
        for row in io.read_parquet(
            layout.tested(r.dataset, shard), tables.TESTED_DOCUMENTS
        ).to_pylist():
            docs[row["doc_id"]] = row["text"]
    edits = {}
    for suite in set(mutants["suite"]):
        for shard in shards:
            t = io.read_parquet(layout.mutants(r.track, r.dataset, suite, shard), tables.MUTANTS)
            edits.update(zip(t["mutant_id"].to_pylist(), t["edits"].to_pylist(), strict=True))
    checker = make_checker("harper")
    for row in mutants.itertuples():
        text = apply_edits(docs[row.doc_id], edits[row.text_id])
        issues = sum(1 for i in checker.check(text) if i.category in COUNTED)
        assert (row.words, row.issues) == (count_words(text), issues)
        assert row.score == pytest.approx(score(issues, count_words(text)))


def test_unknown_grammar_dataset_stops_before_any_job(tmp_path, run_snakemake, repo):
    proc = run_snakemake(
        "-n", "--configfile", str(repo / "config" / "demo.yaml"),
        "--config", "grammar={datasets: [sst2]}", workdir=tmp_path,
    )  # fmt: skip
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hinter:")]
    assert lines == [
        "hinter: config key 'grammar.datasets': unknown dataset 'sst2' "
        "(known: ecthr_a, eurlex, imdb, ledgar, scotus)"
    ]
