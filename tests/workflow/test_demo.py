"""The whole demo workflow, run once offline: every stage's outputs and their promises."""

from __future__ import annotations

import csv
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hinter import io, plan, tables
from hinter.config import load_yaml, validate_config
from hinter.data import FACTS, check_facts
from hinter.layout import RunLayout
from hinter.plan import higher_order_runs
from hinter.rq import outputs as rq_outputs

pytestmark = pytest.mark.workflow

DATASETS = ["ecthr_a", "scotus", "eurlex", "ledgar", "imdb"]


@pytest.fixture(scope="module")
def config(repo):
    return validate_config(load_yaml(repo / "config" / "demo.yaml"))


def _csv(path: str | Path) -> list[dict]:
    with Path(path).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_demo_corpora_follow_the_hub_schemas(demo_run):
    run = RunLayout(str(demo_run))
    for name in DATASETS:
        meta = io.read_json(run.meta(name))
        split_tables = {
            s: io.read_parquet(run.documents(name, s), tables.DOCUMENTS)
            for s in ("train", "validation", "test")
        }
        check_facts(FACTS[name], meta["label_names"], split_tables, check_sizes=False, where=name)
        assert meta["task_type"] == FACTS[name].task_type


def test_dictionary_outputs(demo_run):
    run = RunLayout(str(demo_run))
    pairs = io.read_parquet(run.dictionary("pairs.parquet"), tables.PAIRS)
    counts = {a: 0 for a in ("race", "gender", "body")}
    for attribute in pairs.column("attribute").to_pylist():
        counts[attribute] += 1
    assert counts == {"race": 3996, "gender": 1102, "body": 784}
    assert Path(run.dictionary("sbic_terms.tsv")).stat().st_size > 0
    assert "Per attribute" in Path(run.dictionary("coverage.md")).read_text()


def test_every_suite_of_every_dataset_has_mutants(demo_run, config):
    run = RunLayout(str(demo_run))
    for name in DATASETS:
        rows = _csv(run.mutation_summary("encoder", name))
        written = {}
        for row in rows:
            written[row["suite"]] = written.get(row["suite"], 0) + int(row["written"])
        expected = {s.name for s in plan.suites(config, name, "encoder")}
        assert set(written) == expected, name
        assert all(n > 0 for n in written.values()), (name, written)


def test_validity_summaries_show_discards_by_reason(demo_run):
    run = RunLayout(str(demo_run))
    reasons = set()
    shares = {}
    for name in DATASETS:
        for row in _csv(run.validity_summary("encoder", name)):
            assert int(row["generated"]) == int(row["valid"]) + int(row["discarded"])
            reasons |= {k for k, v in row.items() if k in ("pos", "dep") and int(v or 0) > 0}
            # decided by spaCy's real pipeline, named with its version
            assert (row["parser"], row["parser_version"]) == ("en_core_web_sm", "3.8.0")
            shares[(name, row["suite"])] = float(row["valid_share"])
    assert reasons == {"pos", "dep"}
    # a real parser discards: no longer >= 0.9 across the board (the synthetic parser's 0.92)
    assert min(shares.values()) < 0.9 and 0 < shares[("imdb", "all")] < 0.95


def test_predictions_cover_originals_and_every_valid_mutant(demo_run, config):
    from hinter.models.stage import predictions_metadata

    layout = RunLayout(str(demo_run))
    for run in plan.model_runs(config):
        for shard in plan.shard_ids(config, run.dataset):
            path = layout.predictions(run.model, run.dataset, shard)
            predicted = set(pq.read_table(path, columns=["text_id"]).column("text_id").to_pylist())
            docs = pq.read_table(layout.tested(run.dataset, shard)).to_pylist()
            tested = {d["doc_id"] for d in docs}
            if run.kind == "llm":  # its few-shot examples and the track's document cap
                meta = predictions_metadata(path)
                limit = meta["track_max_documents"]
                tested = {
                    d["doc_id"]
                    for d in docs
                    if d["doc_id"] not in meta["examples"] and d["position"] < limit
                }
                assert not set(meta["examples"]) & predicted
            assert tested <= predicted
            for suite in plan.suites(config, run.dataset, run.track, run.model):
                path = layout.validity(run.track, run.dataset, suite.name, shard)
                validity = pq.read_table(path).to_pylist()
                valid = {v["mutant_id"] for v in validity if v["valid"]}
                assert valid <= predicted, (run, suite.name, shard)


def test_performance_table_lists_every_demo_model(demo_run, config):
    rows = _csv(RunLayout(str(demo_run)).model_performance("csv"))
    ours = {(r["model"], r["dataset"]) for r in rows}
    for run in plan.model_runs(config):
        if run.kind == "encoder":  # the table compares trained classifiers with LexGLUE's
            assert (run.model, run.dataset) in ours


def test_llm_performance_lists_every_demo_llm(demo_run, config):
    """SmolLM2's own accuracy and F1 on the tested originals (review F19), from its predictions;
    no published scores for a demo model."""
    rows = _csv(RunLayout(str(demo_run)).llm_performance("csv"))
    ours = {(r["model"], r["dataset"]) for r in rows}
    for run in plan.model_runs(config):
        if run.kind == "llm":
            assert (run.model, run.dataset) in ours
    for row in rows:
        assert int(row["documents"]) > 0, row
        assert 0 <= float(row["accuracy"]) <= 100 and 0 <= float(row["no_answer"]) <= 100
        assert row["hinter_micro_f1"] == "", row


def test_llm_is_tested_like_an_encoder(demo_run, config):
    """SmolLM2 answers the demo's IMDB and SCOTUS prompts (parsed exactly, with confidence), its
    outcomes sit in the RQ1 tables beside the encoders', its few-shot examples are never
    mutated, and RQ6's variants are there (greedy repeats equal the first run)."""
    from hinter.models.stage import predictions_metadata

    run = RunLayout(str(demo_run))
    statuses: dict[str, int] = {}
    for dataset in ("imdb", "scotus"):
        path = run.predictions("smollm2", dataset, "000")
        rows = pq.read_table(path).to_pylist()
        for row in rows:
            statuses[row["answer_status"]] = statuses.get(row["answer_status"], 0) + 1
            assert row["answer"] is not None and 0 <= row["confidence"] <= 1
        meta = predictions_metadata(path)
        assert meta["backend"] == "transformers" and meta["generation"]["do_sample"] is False
        for suite in plan.suites(config, dataset, "llm", "smollm2"):
            mutants = pq.read_table(run.mutants("llm", dataset, suite.name, "000"))
            assert not set(mutants.column("doc_id").to_pylist()) & set(meta["examples"])
        variants = plan.variants(config, "smollm2", dataset)
        assert variants == ["default", "default-run2", "alt1"]
        first = {r["text_id"]: r for r in rows}
        for variant in variants:
            other = pq.read_table(run.predictions("smollm2", dataset, "000", variant))
            # a variant predicts up to RQ6's order (IMDB's N=3 suite is the default run's only)
            wanted = plan.variant_suites(config, dataset, "llm", "smollm2", variant)
            ids = {r["text_id"] for r in rows if r["kind"] == "original"}
            for suite in wanted:
                t = pq.read_table(run.mutants("llm", dataset, suite.name, "000"))
                ids |= set(t.column("mutant_id").to_pylist())
            assert set(other.column("text_id").to_pylist()) <= ids, variant
            if variant.startswith("default-run"):
                assert other.num_rows > 0
                assert all(r == first[r["text_id"]] for r in other.to_pylist())
            outcomes = run.outcomes("smollm2", dataset, "inter-race+gender", variant)
            assert pq.read_table(outcomes).num_rows > 0
    assert statuses.get("answer", 0) > sum(statuses.values()) / 2, statuses
    table3 = Path(run.rq_output(1, "table3", "md")).read_text()
    assert "smollm2" in table3 and "tiny-bert" in table3
    correctness = _csv(run.rq_output(1, "correctness", "csv"))
    assert {r["model"] for r in correctness} >= {"smollm2", "minilm"}


def test_rq1_tables_end_to_end(demo_run):
    run = RunLayout(str(demo_run))
    table3 = Path(run.rq_output(1, "table3", "md")).read_text()
    for name in DATASETS:
        assert name.replace("_", "\\_") in table3
    truth = _csv(run.rq_output(1, "truth_table", "csv"))
    assert truth, "empty truth table"
    # the planted bias is found through the real parser's filter: errors and hidden errors
    total = next(r for r in _csv(run.rq_output(1, "table3", "csv")) if r["model"] == "Total")
    assert float(total["error_rate_pct"]) > 1 and int(total["hidden"]) > 0
    examples = Path(run.rq_output(1, "hidden_examples", "md")).read_text()
    assert "Intersectional" in examples and "**" in examples
    for output in rq_outputs.outputs(1):
        for ext in output.extensions:
            assert Path(run.rq_output(1, output.name, ext)).stat().st_size > 0, (output, ext)


def test_rq1_mutants_are_the_mutation_summarys_written(demo_run, config):
    """The per-suite table's Mutants column counts what the mutation summary calls written."""
    run = RunLayout(str(demo_run))
    track_of = {(r.model, r.dataset): r.track for r in plan.model_runs(config)}
    written = {}
    for track, name in sorted({(t, d) for (_, d), t in track_of.items()}):
        for row in _csv(run.mutation_summary(track, name)):
            written[(track, name, row["suite"])] = int(row["written"])
    rows = _csv(run.rq_output(1, "rates_by_suite", "csv"))
    assert {track_of[(r["model"], r["dataset"])] for r in rows} == {"encoder", "llm"}
    for row in rows:
        key = (track_of[(row["model"], row["dataset"])], row["dataset"], row["suite"])
        assert int(row["mutants"]) == written[key], row


def test_rq1_rerun_after_deleting_its_outputs_is_byte_identical(demo_run, run_snakemake, repo):
    """Tables (CSV, Markdown, HTML) and figures (PDF, PNG) come back byte for byte."""
    run = RunLayout(str(demo_run))
    files = [
        Path(run.rq_output(1, o.name, ext)) for o in rq_outputs.outputs(1) for ext in o.extensions
    ]
    before = {p: p.read_bytes() for p in files}
    for path in files:
        path.unlink()
    proc = run_snakemake(
        "rq1", "--cores", "2", "--configfile", str(repo / "config" / "demo.yaml"),
        workdir=demo_run.parent.parent, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert "rq1_figures" in proc.stdout + proc.stderr
    for path in files:
        assert path.read_bytes() == before[path], f"{path.name} differs after the rerun"


def test_naive_and_incremental_invariant_agree_on_every_demo_mutant(demo_run, tmp_path):
    """Paper Alg. 3 run literally, the workflow's validity files and the incremental checker
    (cold cache) give identical verdicts on every distinct demo mutant, with the real parser.
    Each distinct sentence is parsed once for both algorithms (inv_corpus.compare)."""
    import inv_corpus

    nlp = inv_corpus.real_pipeline()
    docs, rows, recorded = inv_corpus.run_mutants(demo_run)
    assert len(rows) > 10_000
    result = inv_corpus.compare(nlp, docs, rows, tmp_path / "parses.sqlite", memoise=True)
    assert [tuple(v) for v in result.naive] == [recorded[r["key"]] for r in rows]
    assert [tuple(v) for v in result.ours] == [tuple(v) for v in result.naive]


def _digests(root: Path) -> dict[str, str]:
    # logs carry timestamps, benchmarks the jobs' timings; model dirs carry training timings
    skip = ("logs", "benchmarks", "models")
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (
            path.is_file()
            and rel.parts[0] not in skip
            and not rel.name.startswith("report")  # the report and its screenshots
            and path.suffix in (".parquet", ".csv", ".md", ".tsv", ".html", ".pdf", ".png")
        ):
            out[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_rerun_after_losing_a_file_is_byte_identical(demo_run, run_snakemake, repo):
    """Delete an upstream file (as if its job had been killed): the rerun regenerates it and
    everything downstream, byte for byte."""
    before = _digests(demo_run)
    lost = Path(RunLayout(str(demo_run)).mutants("encoder", "scotus", "atomic-race", "000"))
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
    run = RunLayout(str(demo_run))
    out = tmp_path / "cli"
    proc = subprocess.run(
        [
            sys.executable, "-m", "hinter.cli", "test",
            run.model_weights("tiny-bert", "scotus"),
            run.documents("scotus", "test"),
            "--label-column", "labels", "--id-column", "doc_id",  # no --parser: en_core_web_sm
            "--max-documents", "6", "--max-mutants-per-document", "20",
            "--out", str(out),
        ],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the terminal: rates per suite, then the pooled rates with counts and intervals (the
    # hidden-bias examples are the report's)
    assert "inter-race+gender" in proc.stdout and "Pooled rates" in proc.stdout
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
            RunLayout(str(demo_run)).model_weights("minilm", "imdb"), str(data),
            "--out", str(tmp_path / "out"),
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"hinter: {data}: no column 'text' for --text-column (columns: review)"
    ]


# -- RQ2, RQ3 and RQ1's group bias -----------------------------------------------------------
def _rq23_files(run: RunLayout) -> list[Path]:
    chosen = [
        *rq_outputs.outputs(2),
        *rq_outputs.outputs(3),
        *rq_outputs.outputs(1, part="groups"),
    ]
    return [Path(run.rq_output(o.rq, o.name, ext)) for o in chosen for ext in o.extensions]


def test_rq2_rq3_and_group_outputs_end_to_end(demo_run, config):
    run = RunLayout(str(demo_run))
    for path in _rq23_files(run):
        assert path.stat().st_size > 0, path
    # Fig. 7: every demo dataset, a discarded share strictly between 0 and 100%, and the
    # counts of the validity summaries
    validity = _csv(run.rq_output(3, "validity", "csv"))
    pooled = [r for r in validity if r["track"] == "All" and r["mutation"] == "all"]
    assert [r["dataset"] for r in pooled] == [*DATASETS, "All"]
    total = pooled[-1]
    assert 0 < float(total["discarded_pct"]) < 100
    assert float(total["low"]) <= float(total["discarded_pct"]) <= float(total["high"])
    # RQ3 covers orders N <= 2: RQ5's three-attribute suite is left out
    generated = sum(
        int(row["generated"])
        for ds in DATASETS
        for track in plan.tracks(config, ds)
        for row in _csv(run.validity_summary(track, ds))
        if row["suite"] != "all" and len(plan.parse_suite(row["suite"])) <= plan.RQ_ORDER
    )
    assert int(total["generated"]) == generated
    # Fig. 8b: the demo predicts discarded mutants; its true positives are RQ1's errors (N <= 2)
    positives = _csv(run.rq_output(3, "positives", "csv"))
    everything = next(
        r for r in positives if (r["model"], r["dataset"], r["mutation"]) == ("Total", "All", "all")
    )
    assert everything["predicted_discarded"] == "True"
    errors = sum(
        int(r["errors"])
        for r in _csv(run.rq_output(1, "rates_by_suite", "csv"))
        if int(r["order"]) <= plan.RQ_ORDER
    )
    assert int(everything["true_positives"]) == errors
    assert int(everything["false_positives"]) > 0
    # Figs. 8a and 8c: scores of originals and mutants, atomic and intersectional
    grammar = _csv(run.rq_output(2, "grammar_scores", "csv"))
    assert {r["mutation"] for r in grammar} >= {"atomic", "intersectional"}
    for row in grammar:
        assert 0 <= float(row["score_pct"]) <= 100 and int(row["texts"]) > 0, row
    inputs = {r["input"] for r in _csv(run.rq_output(3, "grammar_validity", "csv"))}
    assert inputs == {"original", "valid mutant", "discarded mutant"}
    # group bias: atomic and intersectional groups per model and dataset, pooled, flagged
    groups = _csv(run.rq_output(1, "group_bias", "csv"))
    assert {r["kind"] for r in groups} == {"GAB", "GIB"}
    assert any(r["model"] == "Total" and r["above_mean"] == "True" for r in groups)
    tested = {
        r["model"] for r in _csv(run.rq_output(1, "rates_by_suite", "csv")) if int(r["decided"]) > 0
    }
    assert {r["model"] for r in groups} == tested | {"Total"}


def test_rq2_rq3_rerun_after_deleting_their_outputs_is_byte_identical(
    demo_run, run_snakemake, repo
):
    run = RunLayout(str(demo_run))
    files = _rq23_files(run)
    before = {p: p.read_bytes() for p in files}
    for path in files:
        path.unlink()
    proc = run_snakemake(
        "rq2", "rq3", "rq1", "--cores", "2", "--configfile", str(repo / "config" / "demo.yaml"),
        workdir=demo_run.parent.parent, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    log = proc.stdout + proc.stderr
    assert "rq3_tables" in log and "rq1_groups" in log and "rq1_tables" not in log
    for path in files:
        assert path.read_bytes() == before[path], f"{path.name} differs after the rerun"


# -- the paper vs this run (hinter.rq.comparison) ----------------------------------------------
def test_the_paper_comparison_sets_the_papers_numbers_beside_the_demos(demo_run):
    run = RunLayout(str(demo_run))
    rows = {r["quantity"]: r for r in _csv(run.rq_output(rq_outputs.PAPER, "paper_vs_run", "csv"))}
    table3 = _csv(run.rq_output(1, "table3", "csv"))
    total = next(r for r in table3 if (r["dataset"], r["model"]) == ("All", "Total"))
    i_all = rows["Intersectional error rate I, all models and datasets"]
    assert float(i_all["paper"]) == 14.61
    assert float(i_all["run"]) == pytest.approx(float(total["error_rate_pct"]), abs=1e-4)
    lo, hi = float(i_all["run_lo"]), float(i_all["run_hi"])
    assert lo <= float(i_all["run"]) <= hi
    # the demo pools its own models, not the paper's: the pooled cell is shown, never judged (G6)
    assert i_all["within"] == "not comparable (other models)"
    # every section the demo covers has its number: grammar sample, invariant, the N=3 suite
    for quantity in (
        "Grammar score of originals, intersectional sample",
        "Grammar score of valid 2-intersectional mutants",
        "Grammar score difference, valid 2-intersectional mutants − originals",
        "Mutants discarded by the invariant", "3-intersectional error rate",
        "I, imdb × Total",
    ):  # fmt: skip
        assert rows[quantity]["run"] != "", quantity
    assert rows["I, ecthr_a × llama2"]["run"] == ""  # the paper's models are not the demo's
    md = Path(run.rq_output(rq_outputs.PAPER, "paper_vs_run", "md")).read_text()
    assert "config/demo.yaml" in md and "not run" in md


def test_paper_comparison_rerun_recomputes_only_it_byte_identically(demo_run, run_snakemake, repo):
    run = RunLayout(str(demo_run))
    out = rq_outputs.get(rq_outputs.PAPER, "paper_vs_run")
    files = [Path(run.rq_output(rq_outputs.PAPER, out.name, ext)) for ext in out.extensions]
    before = {p: p.read_bytes() for p in files}
    for path in files:
        path.unlink()
    proc = run_snakemake(
        "paper_comparison", "--cores", "1", "--configfile", str(repo / "config" / "demo.yaml"),
        workdir=demo_run.parent.parent, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    log = proc.stdout + proc.stderr
    assert "rule paper_comparison:" in log and "rule rq1_tables:" not in log
    for path in files:
        assert path.read_bytes() == before[path], f"{path.name} differs after the rerun"


# -- RQ4-RQ6 ------------------------------------------------------------------------------------


def test_rq4_rq5_rq6_outputs_exist(demo_run):
    run = RunLayout(str(demo_run))
    for rq in (4, 5, 6):
        for output in rq_outputs.outputs(rq):
            for ext in output.extensions:
                path = Path(run.rq_output(rq, output.name, ext))
                assert path.stat().st_size > 0, (rq, output.name, ext)


def test_rq4_counts_agree_with_rq1(demo_run):
    """Fig. 9a's pooled intersectional counts are RQ1's Table 3 totals (hidden / base)."""
    run = RunLayout(str(demo_run))
    table3 = _csv(run.rq_output(1, "table3", "csv"))
    total = next(r for r in table3 if (r["model"], r["dataset"]) == ("Total", "All"))
    rows = _csv(run.rq_output(4, "counterparts", "csv"))
    pooled = {(r["population"], r["condition"]): r for r in rows if r["model"] == "Total"}
    inter = pooled[("intersectional", "definition")]
    assert int(inter["bias_inducing"]) == int(total["hidden_base"])
    assert int(inter["without_counterpart"]) == int(total["hidden"])
    assert int(pooled[("atomic", "definition")]["bias_inducing"]) > 0
    venn = _csv(run.rq_output(4, "venn", "csv"))
    assert {r["suite"] for r in venn} >= {"inter-race+gender", "inter-body+gender+race"}


def test_rq5_table5_has_three_rows_for_smollm2_on_imdb(demo_run, config):
    run = RunLayout(str(demo_run))
    rows = _csv(run.rq_output(5, "table5", "csv"))
    mine = [r for r in rows if (r["model"], r["dataset"]) == ("smollm2", "imdb")]
    assert [r["attributes"] for r in mine] == ["1", "2", "3"]
    assert all(int(r["generated"]) >= int(r["valid"]) > 0 for r in mine)
    # exactly the runs with an N=3 suite (the demo gives every IMDB model one)
    want = {(r.model, r.dataset) for r in higher_order_runs(config)}
    assert {(r["model"], r["dataset"]) for r in rows} == want


def test_rq6_fig11_has_the_demos_three_variants(demo_run, config):
    run = RunLayout(str(demo_run))
    rows = _csv(run.rq_output(6, "variants", "csv"))
    for dataset in config["sensitivity"]["datasets"]:
        variants = [
            r["variant"] for r in rows if (r["model"], r["dataset"]) == ("smollm2", dataset)
        ]
        assert variants == ["default", "default-run2", "alt1"], dataset
    thresholds = _csv(run.rq_output(6, "thresholds", "csv"))
    assert {r["rule"] for r in thresholds} == {"exclude", "benign"}
    assert len(thresholds) == 2 * 2 * len(config["sensitivity"]["thresholds"])
    # Fig. 12 (c), (d): with no threshold every prediction is kept
    accuracy = _csv(run.rq_output(6, "accuracy", "csv"))
    assert len(accuracy) == 2 * len(config["sensitivity"]["thresholds"])
    first = [r for r in accuracy if float(r["threshold_pct"]) == 0]
    assert len(first) == 2 and all(int(r["originals"]) > 0 for r in first)
    assert all(float(r["original_kept_pct"]) == float(r["mutant_kept_pct"]) == 100 for r in first)


def test_rq4_rq5_rq6_rerun_after_deleting_their_outputs_is_byte_identical(
    demo_run, run_snakemake, repo
):
    run = RunLayout(str(demo_run))
    files = [
        Path(run.rq_output(rq, o.name, ext))
        for rq in (4, 5, 6)
        for o in rq_outputs.outputs(rq)
        for ext in o.extensions
    ]
    before = {p: p.read_bytes() for p in files}
    for path in files:
        path.unlink()
    proc = run_snakemake(
        "rq4", "rq5", "rq6", "--cores", "2", "--configfile", str(repo / "config" / "demo.yaml"),
        workdir=demo_run.parent.parent, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    log = proc.stdout + proc.stderr
    # only these RQs' rules ran: no outcome, no other RQ recomputed
    ran = set(re.findall(r"^\s*(?:local)?rule (\w+):", log, flags=re.MULTILINE))
    assert ran <= {
        "rq4_tables",
        "rq4_figures",
        "rq4",
        "rq5_tables",
        "rq5",
        "rq6_tables",
        "rq6_figures",
        "rq6",
    }, ran
    for path in files:
        assert path.read_bytes() == before[path], f"{path.name} differs after the rerun"
