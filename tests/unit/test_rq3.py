"""RQ3 (Figs. 7, 8b, 8c) from hand-made validity shards, outcomes and grammar scores, checked
against plain pandas computations; a run without predicted discarded mutants says so; the
figures' panels and labels; byte-identical rerun."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from oracle_cases import MISSING, TEXT, Suite, add_case
from rq_runs import Run, make_rich_run
from score_rows import sample, score_rows

from hinter import io, tables
from hinter.errors import DataError
from hinter.grammar import SCORES
from hinter.plots import rq3 as rq3_plots
from hinter.rq import rq3, scores
from hinter.rq.intervals import Bootstrap
from hinter.rq.scores import ScoreFile

BOOT = Bootstrap(resamples=200, seed=5, confidence=0.95)
# (track, dataset) -> documents; a document's mutants are valid unless its index says otherwise
PLAN = {("encoder", "scotus"): 6, ("encoder", "imdb"): 5, ("llm", "imdb"): 3}


def validity_inputs(root: Path) -> tuple[list[rq3.ValidityShard], list[rq3.ValiditySummary]]:
    """Two shards per (track, dataset, suite): atomic mutants and intersectional mutants (with
    their atomic parents, role = parent, which are not counted), valid or discarded."""
    shards, summaries = [], []
    for (track, dataset), docs in PLAN.items():
        rows = []
        for suite in ("atomic-race", "inter-race+gender"):
            for shard in range(2):
                s = Suite(suite)
                for d in range(shard, docs, 2):
                    doc = f"{dataset}-{d}"
                    if suite.startswith("atomic"):
                        s.doc(doc, TEXT)
                        s.atomic(
                            doc, "race", "British", "Pakistani", valid=d % 3 == 0, role="mutant"
                        )
                        s.atomic(doc, "race", "people", "Pakistanis", valid=False, role="mutant")
                    else:
                        add_case(s, doc, False, [False, False], valid=(d + len(track)) % 2 == 0)
                mutants, validity, _, _ = s.tables()
                m = root / track / dataset / suite / f"{shard:03d}.mutants.parquet"
                v = root / track / dataset / suite / f"{shard:03d}.validity.parquet"
                io.write_parquet(mutants, m, tables.MUTANTS)
                io.write_parquet(validity, v, tables.VALIDITY)
                shards.append(rq3.ValidityShard(track, dataset, suite, m, v))
                frame = mutants.to_pandas().merge(validity.to_pandas(), on="mutant_id")
                frame = frame[frame["role"] == "mutant"]
                rows.append(
                    {"suite": suite, "generated": len(frame), "valid": int(frame["valid"].sum())}
                )
        summary = pd.DataFrame(rows).groupby("suite", sort=True).sum().reset_index()
        summary["order"] = summary["suite"].map(lambda s: 1 if s.startswith("atomic") else 2)
        path = root / track / dataset / "summary.csv"
        summary.to_csv(path, index=False)
        summaries.append(rq3.ValiditySummary(track, dataset, path))
    return shards, summaries


def raw_validity(shards) -> pd.DataFrame:
    frames = []
    for s in shards:
        m = io.read_parquet(s.mutants).to_pandas()
        v = io.read_parquet(s.validity).to_pandas()
        f = m.merge(v, on="mutant_id")
        frames.append(f[f["role"] == "mutant"].assign(track=s.track, dataset=s.dataset))
    return pd.concat(frames, ignore_index=True)


def test_validity_table_matches_pandas(tmp_path):
    shards, summaries = validity_inputs(tmp_path)
    docs = rq3.document_validity(shards)
    table = rq3.validity(docs, rq3.read_summaries(summaries), ["scotus", "imdb"], BOOT).data
    raw = raw_validity(shards)
    raw["mutation"] = raw["order"].map({1: "atomic", 2: "intersectional"})

    def expected(frame):
        return 100 * (~frame["valid"]).sum() / len(frame), len(frame), int(frame["valid"].sum())

    checks = {
        ("imdb", "All", "all"): raw[raw["dataset"] == "imdb"],
        ("imdb", "llm", "intersectional"): raw[
            (raw["dataset"] == "imdb")
            & (raw["track"] == "llm")
            & (raw["mutation"] == "intersectional")
        ],
        ("scotus", "encoder", "atomic"): raw[
            (raw["dataset"] == "scotus") & (raw["mutation"] == "atomic")
        ],
        ("All", "All", "all"): raw,
        ("All", "All", "atomic"): raw[raw["mutation"] == "atomic"],
    }
    rows = table.set_index(["dataset", "track", "mutation"])
    for key, frame in checks.items():
        share, generated, valid = expected(frame)
        row = rows.loc[key]
        assert (row["generated"], row["valid"]) == (generated, valid), key
        assert row["discarded"] == generated - valid
        assert row["discarded_pct"] == pytest.approx(share), key
        assert row["low"] <= row["discarded_pct"] <= row["high"], key
    # the pooled dataset row resamples documents: the interval is a real one
    assert rows.loc[("All", "All", "all"), "low"] < rows.loc[("All", "All", "all"), "high"]
    # intersectional vs atomic: the difference of the discarded shares, paired by document
    inter = rows.loc[("All", "All", "intersectional")]
    atomic_share = expected(raw[raw["mutation"] == "atomic"])[0]
    inter_share = expected(raw[raw["mutation"] == "intersectional"])[0]
    assert inter["vs_atomic_pct"] == pytest.approx(inter_share - atomic_share)
    assert inter["vs_atomic_low"] <= inter["vs_atomic_pct"] <= inter["vs_atomic_high"]
    assert 0 < inter["vs_atomic_p_value"] <= 1
    assert pd.isna(rows.loc[("All", "All", "atomic"), "vs_atomic_pct"])
    # rows in the configured dataset order, pooled last; "all" first within a dataset
    assert list(dict.fromkeys(table["dataset"])) == ["scotus", "imdb", "All"]
    assert table["mutation"].iloc[0] == "all"


def test_validity_shards_must_add_up_to_the_summaries(tmp_path):
    shards, summaries = validity_inputs(tmp_path)
    docs = rq3.document_validity(shards)
    wrong = rq3.read_summaries(summaries)
    wrong.loc[0, "valid"] += 1
    with pytest.raises(DataError, match=r"validity summary of .* has"):
        rq3.validity(docs, wrong, ["scotus", "imdb"], BOOT)
    # a validity file that does not list its mutants row by row
    s = shards[0]
    v = io.read_parquet(s.validity)
    io.write_parquet(v.slice(1), s.validity, tables.VALIDITY)
    with pytest.raises(DataError, match="does not list the mutants"):
        rq3.document_validity([s])


def _outcome_rows(files) -> pd.DataFrame:
    return pd.concat(
        [
            io.read_parquet(f.path).to_pandas().assign(model=f.model, dataset=f.dataset)
            for f in files
        ],
        ignore_index=True,
    )


def test_positives_match_pandas(tmp_path):
    run = make_rich_run(tmp_path)
    files = run.outcome_files
    docs = rq3.document_positives(files)
    table = rq3.positives(
        docs, ["bert", "llama"], ["scotus", "imdb", "ecthr_a"], BOOT, ["bert", "llama"]
    ).data
    raw = _outcome_rows(files)
    known = raw["biased"].notna()
    biased = raw["biased"].fillna(False).astype(bool)
    tp = int((raw["valid"] & biased).sum())
    fp = int((~raw["valid"] & biased).sum())
    assert fp >= 1  # the rich run has a bias-inducing discarded mutant
    total = table.set_index(["model", "dataset", "mutation"]).loc[("Total", "All", "all")]
    assert (total["true_positives"], total["false_positives"]) == (tp, fp)
    assert total["decided"] == int((raw["valid"] & known).sum())
    assert total["discarded_decided"] == int((~raw["valid"] & known).sum())
    assert total["false_positive_share_pct"] == pytest.approx(100 * fp / (tp + fp), abs=1e-9)
    assert total["error_rate_pct"] == pytest.approx(
        100 * tp / (raw["valid"] & known).sum(), abs=1e-9
    )
    assert bool(total["predicted_discarded"])
    lo, hi = total["false_positive_share_pct_low"], total["false_positive_share_pct_high"]
    assert lo <= total["false_positive_share_pct"] <= hi
    # per model, pooled over datasets, and per (model, dataset) rows
    bert = raw[(raw["model"] == "bert") & (raw["order"] >= 2)]
    row = table.set_index(["model", "dataset", "mutation"]).loc[("bert", "All", "intersectional")]
    assert row["true_positives"] == int((bert["valid"] & bert["biased"].fillna(False)).sum())
    assert {"scotus", "imdb", "ecthr_a", "All"} <= set(table["dataset"])


def test_positives_without_predicted_discarded_mutants_say_so(tmp_path):
    """invariant.keep_discarded: false — discarded mutants have no outcome: no false positives
    are counted, and the table and figure say so instead of showing zeros."""
    run = Run(tmp_path)
    s = Suite("atomic-race")
    for d in range(4):
        doc = f"imdb-{d}"
        s.doc(doc, TEXT, pred=(0,))
        s.atomic(doc, "race", "British", "Pakistani", pred=(1,) if d % 2 else (0,), role="mutant")
        s.atomic(doc, "race", "people", "Pakistanis", valid=False, pred=MISSING, role="mutant")
    run.add("bert", "imdb", "atomic-race", [s])
    docs = rq3.document_positives(run.outcome_files)
    out = rq3.positives(docs, ["bert"], ["imdb"], BOOT)
    total = out.data.set_index(["model", "dataset", "mutation"]).loc[("Total", "All", "all")]
    assert not bool(total["predicted_discarded"]) and total["discarded"] == 4
    assert total["true_positives"] == 2 and pd.isna(total["false_positive_share_pct"])
    assert "Discarded mutants were not predicted" in out.markdown
    assert "not predicted" in out.markdown.split("| Model")[1]
    fig = rq3_plots.positives_figure(out.data)
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["(a) Bias found", "(b) Error rate"]


def _two_models(run: Run) -> None:
    """bert predicted its discarded mutants (one bias-inducing); llama did not (valid only)."""
    for model in ("bert", "llama"):
        s = Suite("atomic-race")
        for d in range(4):
            doc = f"imdb-{d}"
            s.doc(doc, TEXT, pred=(0,))
            s.atomic(doc, "race", "British", "Pakistani", pred=(1,), role="mutant")
            dropped = (1,) if model == "bert" and d == 0 else (0,) if model == "bert" else MISSING
            s.atomic(doc, "race", "people", "Pakistanis", valid=False, pred=dropped, role="mutant")
        run.add(model, "imdb", "atomic-race", [s])


def test_total_pools_the_models_that_predicted_discarded_mutants(tmp_path):
    """F1: RQ3.2's totals are over the models that predicted their discarded mutants (the
    paper: its fine-tuned encoders), not over LLMs that saw valid mutants only."""
    run = Run(tmp_path)
    _two_models(run)
    docs = rq3.document_positives(run.outcome_files)
    for given in (None, ["bert"]):  # found in the outcomes, or named by the config
        out = rq3.positives(docs, ["bert", "llama"], ["imdb"], BOOT, given)
        rows = out.data.set_index(["model", "dataset", "mutation"])
        total = rows.loc[("Total", "All", "all")]
        assert (total["true_positives"], total["false_positives"]) == (4, 1)
        assert total["false_positive_share_pct"] == pytest.approx(20.0)
        assert rows.loc[("llama", "All", "all"), "true_positives"] == 4
        assert not bool(rows.loc[("llama", "All", "all"), "predicted_discarded"])
        assert "Total pools bert (the models that predicted their discarded mutants)" in (
            " ".join(out.markdown.split())
        )
    # no model predicted them: Total pools every model, true positives only
    out = rq3.positives(docs, ["bert", "llama"], ["imdb"], BOOT, [])
    total = out.data.set_index(["model", "dataset", "mutation"]).loc[("Total", "All", "all")]
    assert total["true_positives"] == 8


def test_rq3_covers_orders_up_to_two(tmp_path):
    """F2: RQ5's N=3 suite is not part of RQ3's "all mutants" (002 RQ3: 129M/132M)."""
    run = make_rich_run(tmp_path / "run")
    assert any(f.order == 3 for f in run.outcome_files)
    captured = {}
    real = rq3.document_positives

    def spy(files):
        captured["orders"] = {f.order for f in files}
        return real(files)

    shards, summaries = validity_inputs(tmp_path / "v")
    three = shards[0]
    extra = rq3.ValidityShard(three.track, three.dataset, "inter-body+gender+race",
                              three.mutants, three.validity)  # fmt: skip
    try:
        rq3.document_positives = spy
        built = rq3.build_tables(
            shards=[*shards, extra], summaries=summaries, outcome_files=run.outcome_files,
            score_files=[], datasets=["scotus", "imdb"], boot=BOOT,
        )  # fmt: skip
    finally:
        rq3.document_positives = real
    assert captured["orders"] == {1, 2}
    all_row = built["validity"].data.set_index(["dataset", "track", "mutation"])
    raw = raw_validity(shards)
    assert all_row.loc[("All", "All", "all"), "generated"] == len(raw)


def test_grammar_validity_matches_pandas(tmp_path):
    files = []
    for model, dataset, seed in (("bert", "scotus", 1), ("llama", "imdb", 2)):
        path = tmp_path / f"{model}-{dataset}.parquet"
        io.write_parquet(score_rows(sample(seed)), path, SCORES)
        files.append(ScoreFile(model, dataset, path))
    out = rq3.grammar_validity(scores.read_scores(files), BOOT)
    raw = pd.concat([io.read_parquet(f.path).to_pandas().assign(model=f.model) for f in files])

    def pooled(frame):
        return 100 * (1 - frame["issues"].sum() / frame["words"].sum())

    # a group's score, once (a discarded mutant has a row per comparison)
    rows = out.data.drop_duplicates(["mutation", "input"]).set_index(["mutation", "input"])
    mutants = raw[raw["kind"] == "mutant"]
    valid, discarded = mutants[mutants["valid"] == True], mutants[mutants["valid"] == False]  # noqa: E712
    originals = raw[raw["kind"] == "original"].drop_duplicates(["model", "doc_id"])
    assert rows.loc[("all", "valid mutant"), "score_pct"] == pytest.approx(pooled(valid), abs=1e-4)
    assert rows.loc[("all", "discarded mutant"), "score_pct"] == pytest.approx(
        pooled(discarded), abs=1e-4
    )
    assert rows.loc[("all", "original"), "score_pct"] == pytest.approx(pooled(originals), abs=1e-4)
    # an original sampled for both orders is one text in "all"
    assert rows.loc[("all", "original"), "texts"] == len(originals)
    # a discarded mutant is compared twice (002 RQ3.3): with the valid ones and with the originals
    d = out.data[(out.data["mutation"] == "all") & (out.data["input"] == "discarded mutant")]
    d = d.set_index("compared_with")
    assert list(d.index) == ["valid mutant all", "original all"]
    assert d.loc["valid mutant all", "difference"] == pytest.approx(
        pooled(discarded) - pooled(valid), abs=1e-4
    )
    assert d.loc["original all", "difference"] == pytest.approx(
        pooled(discarded) - pooled(originals), abs=1e-4
    )
    assert d["score_pct"].nunique() == 1  # the same group, once per comparison
    inter = raw[(raw["order"] == 2) & (raw["kind"] == "mutant") & (raw["valid"] == False)]  # noqa: E712
    assert rows.loc[("intersectional", "discarded mutant"), "score_pct"] == pytest.approx(
        pooled(inter), abs=1e-4
    )
    fig = rq3_plots.grammar_figure(out.data)
    labels = [t.get_text().split("\n") for t in fig.axes[0].get_xticklabels()]
    assert [lines[0] for lines in labels] == ["All", "Atomic", "Intersectional"]
    # the three comparisons under each kind: V−O, D−V and the paper's D−O
    assert [line.split(" ")[0] for line in labels[0][1:]] == ["V−O", "D−V", "D−O"]
    assert labels[0][3].startswith(
        f"D−O {d.loc['original all', 'difference']:+.2f}".replace("-", "−")
    )
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "Original",
        "Valid mutant",
        "Discarded mutant",
    ]


def test_rq3_writes_every_table_and_figure_and_reruns_identically(tmp_path):
    shards, summaries = validity_inputs(tmp_path / "v")
    run = make_rich_run(tmp_path / "run")
    path = tmp_path / "scores.parquet"
    io.write_parquet(score_rows(sample(4)), path, SCORES)
    inputs = dict(
        shards=shards,
        summaries=summaries,
        outcome_files=run.outcome_files,
        score_files=[ScoreFile("bert", "imdb", path)],
        datasets=["scotus", "imdb"],
        boot=BOOT,
    )
    out = tmp_path / "rq3"
    written = rq3.write_tables(out, **inputs) + rq3_plots.write_figures(out, out)
    names = {p.name for p in written}
    assert names == {f"{n}.{e}" for n in rq3.TABLES for e in ("csv", "md", "html")} | {
        f"{n}.{e}" for n in rq3_plots.FIGURES for e in ("pdf", "png")
    }
    first = {p: p.read_bytes() for p in written}
    rq3.write_tables(out, **inputs)
    rq3_plots.write_figures(out, out)
    assert {p: p.read_bytes() for p in written} == first
    fig = rq3_plots.validity_figure(pd.read_csv(out / "validity.csv"))
    assert [ax.get_title(loc="left") for ax in fig.axes] == [
        "(a) All mutants",
        "(b) Intersectional",
        "(c) Atomic",
    ]
    assert [t.get_text().split("\n")[0] for t in fig.axes[0].get_xticklabels()] == [
        "SCOTUS",
        "IMDB",
        "All datasets",
    ]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Valid", "Discarded"]


def test_rq2_rq3_and_group_captions_quote_the_papers_numbers(repo):
    """The report's captions quote the paper as printed (two decimals) and the run's config."""
    import jinja2

    from hinter.config import load_yaml, validate_config
    from hinter.rq import captions, outputs

    config = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)

    def render(rq: int, name: str) -> str:
        template = (repo / "workflow" / "report" / outputs.get(rq, name).caption).read_text()
        snakemake = type("Snakemake", (), {"params": captions.params(rq, config)})
        return env.from_string(template).render(snakemake=snakemake)

    assert "97.58%" in render(3, "validity") and "129M of 132M" in render(3, "fig7")
    positives = render(3, "positives")
    assert "7,604,247" in positives and "90.71%" in positives
    assert "predicted too (invariant.keep_discarded: true)" in positives
    paper = validate_config(load_yaml(repo / "config" / "config.yaml"))
    assert captions.settings(paper)["keep_discarded"] == (
        "predicted by bert, roberta, deberta, legal-bert only (invariant.keep_discarded: "
        "[encoders]); the other models predicted valid mutants only"
    )
    assert "73.40%" in render(3, "grammar_validity") and "79.50%" in render(3, "fig8c")
    grammar = render(2, "grammar_scores")
    assert "78.73%" in grammar and "harper" in grammar and "1000 resamples" in grammar
    assert "35/76" in render(1, "group_bias") and "35/76" in render(1, "fig_groups")


def test_fig7_caption_reports_the_share_discarded_by_the_artifacts_sentence_cap(tmp_path):
    """G2: the too_long discards of the validity summaries, per dataset and pooled, in Fig. 7's
    table caption, named as the original artifact's cap (a summary without the column: none)."""
    shards, summaries = validity_inputs(tmp_path)
    read = rq3.read_summaries(summaries)
    assert set(read["too_long"]) == {0}  # old summaries: no too_long column, counted 0
    discarded = read.assign(d=read["generated"] - read["valid"]).groupby("dataset")["d"].sum()
    planted = read.assign(too_long=(read["dataset"] == "scotus") * 2)
    text = rq3.too_long_sentence(planted, ["scotus", "imdb"])
    total = int(discarded.sum())
    assert f"4 of {total} discarded mutants ({100 * 4 / total:.1f}%" in text
    assert f"4 of {int(discarded['scotus'])}" in text and f"0 of {int(discarded['imdb'])}" in text
    assert "original artifact's cap, not Alg. 3's" in text
    table = rq3.validity(rq3.document_validity(shards), planted, ["scotus", "imdb"], BOOT)
    assert "Discarded as too_long" in table.markdown and "docs/reconciliation.md" in table.markdown
    rows = table.data.set_index(["dataset", "track", "mutation"])["too_long"]
    assert rows[("scotus", "All", "all")] == 4 and rows[("All", "All", "all")] == 4
    assert rows[("scotus", "All", "atomic")] == 2 and rows[("imdb", "All", "all")] == 0
    fig = rq3_plots.validity_figure(table.data)
    notes = " ".join(t.get_text() for ax in fig.axes for t in [*ax.texts, *ax.get_xticklabels()])
    assert "4 too long" in notes


def test_rq3_grammar_all_rows_leave_out_the_three_attribute_suite(tmp_path):
    """G14: a scored N=3 text (RQ5's suite) must not enter RQ3.3's pooled ``all`` rows, which
    paper_vs_run compares with the paper's 73.40 − 78.44."""
    rows = sample(4)
    base = score_rows(rows)
    extra = [
        dict(kind="mutant", doc_id="d0", order=3, valid=False, biased=True, words=10, issues=9)
    ]
    with_n3 = score_rows(rows + extra)
    paths = []
    for name, table in (("base", base), ("n3", with_n3)):
        path = tmp_path / f"{name}.parquet"
        io.write_parquet(table, path, SCORES)
        paths.append(path)
    shards, summaries = validity_inputs(tmp_path / "v")
    run = make_rich_run(tmp_path / "run")

    def grammar(path):
        return rq3.build_tables(
            shards=shards, summaries=summaries, outcome_files=run.outcome_files,
            score_files=[ScoreFile("bert", "imdb", path)], datasets=["scotus", "imdb"],
            boot=BOOT,
        )["grammar_validity"].data  # fmt: skip

    assert grammar(paths[1]).equals(grammar(paths[0]))
