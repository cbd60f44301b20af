"""RQ2 (Fig. 8a): grammar scores of originals vs valid mutants from hand-made score files,
checked against a plain pandas computation; the figure's panels and labels; byte-identical
rerun."""

from __future__ import annotations

import pandas as pd
import pytest
from score_rows import sample, score_rows

from hinter import io, statistics
from hinter.grammar import SCORES
from hinter.plots import rq2 as rq2_plots
from hinter.rq import figures, rq2, scores
from hinter.rq.intervals import Bootstrap
from hinter.rq.scores import ScoreFile

BOOT = Bootstrap(resamples=200, seed=3, confidence=0.95)


@pytest.fixture
def files(tmp_path):
    out = []
    for model, dataset, seed in (("bert", "scotus", 1), ("bert", "imdb", 2), ("llama", "imdb", 3)):
        path = tmp_path / f"{model}-{dataset}.parquet"
        io.write_parquet(score_rows(sample(seed)), path, SCORES)
        out.append(ScoreFile(model, dataset, path))
    return out


def _pooled(frame: pd.DataFrame) -> float:
    return 100 * (1 - frame["issues"].sum() / frame["words"].sum())


def test_grammar_table_matches_pandas_and_reruns_identically(files, tmp_path):
    written = rq2.write_tables(files, tmp_path / "rq2", BOOT)
    assert sorted(p.name for p in written) == sorted(
        f"grammar_scores.{e}" for e in ("csv", "md", "html")
    )
    first = {p: p.read_bytes() for p in written}
    rq2.write_tables(files, tmp_path / "rq2", BOOT)
    assert {p: p.read_bytes() for p in written} == first

    table = pd.read_csv(tmp_path / "rq2" / "grammar_scores.csv")
    raw = pd.concat(
        [
            io.read_parquet(f.path).to_pandas().assign(model=f.model, dataset=f.dataset)
            for f in files
        ]
    )
    assert set(table["mutation"]) == {"atomic", "intersectional"}
    for order, mutation in ((1, "atomic"), (2, "intersectional")):
        part = raw[raw["order"] == order]
        originals = part[part["kind"] == "original"]
        valid = part[(part["kind"] == "mutant") & (part["valid"] == True)]  # noqa: E712
        expected = {
            ("original", "all"): _pooled(originals),
            ("original", "bias-inducing"): _pooled(originals[originals["biased"] == True]),  # noqa: E712
            ("original", "benign"): _pooled(originals[originals["biased"] == False]),  # noqa: E712
            ("valid mutant", "all"): _pooled(valid),
            ("valid mutant", "bias-inducing"): _pooled(valid[valid["biased"] == True]),  # noqa: E712
            ("valid mutant", "benign"): _pooled(valid[valid["biased"] == False]),  # noqa: E712
        }
        rows = table[table["mutation"] == mutation].set_index(["input", "outcome"])
        for key, value in expected.items():
            row = rows.loc[key]
            assert row["score_pct"] == pytest.approx(value, abs=1e-4), key
            assert row["low"] <= row["score_pct"] <= row["high"], key
        # discarded mutants are not RQ2's: the texts counted are the valid ones only
        assert rows.loc[("valid mutant", "all"), "texts"] == len(valid)
        # the comparisons: valid mutants vs originals, bias-inducing vs benign
        mutant_all = rows.loc[("valid mutant", "all")]
        assert mutant_all["compared_with"] == "original all"
        assert mutant_all["difference"] == pytest.approx(
            expected[("valid mutant", "all")] - expected[("original", "all")], abs=1e-4
        )
        bias = rows.loc[("original", "bias-inducing")]
        assert bias["compared_with"] == "original benign"
        assert bias["difference_low"] <= bias["difference"] <= bias["difference_high"]
        assert bias["significant"] == (bias["difference_low"] > 0 or bias["difference_high"] < 0)
        assert pd.isna(rows.loc[("original", "all"), "difference"])
    md = (tmp_path / "rq2" / "grammar_scores.md").read_text()
    assert "| Atomic | original | all |" in md and "95% percentile bootstrap interval" in md


def test_a_clear_difference_is_significant_and_none_is_not(tmp_path):
    """Mutants with many more issues than their originals: significant; identical: not."""
    rows = []
    for d in range(30):
        rows.append(
            dict(kind="original", doc_id=f"d{d}", order=2, biased=False, words=50, issues=1 + d % 2)
        )
        rows.append(
            dict(
                kind="mutant",
                doc_id=f"d{d}",
                order=2,
                valid=True,
                biased=False,
                words=50,
                issues=10 + d % 3,
            )
        )
        rows.append(
            dict(kind="original", doc_id=f"d{d}", order=1, biased=False, words=50, issues=2)
        )
        rows.append(
            dict(
                kind="mutant", doc_id=f"d{d}", order=1, valid=True, biased=False, words=50, issues=2
            )
        )
    path = tmp_path / "s.parquet"
    io.write_parquet(score_rows(rows), path, SCORES)
    table = rq2.build_tables(scores.read_scores([ScoreFile("m", "imdb", path)]), BOOT)
    data = table["grammar_scores"].data.set_index(["mutation", "input", "outcome"])
    inter = data.loc[("intersectional", "valid mutant", "all")]
    assert inter["difference"] < -10 and bool(inter["significant"])
    atomic = data.loc[("atomic", "valid mutant", "all")]
    assert atomic["difference"] == 0 and not bool(atomic["significant"])


def test_no_grammar_runs_give_an_empty_table_and_figure(tmp_path):
    tables = rq2.build_tables(scores.read_scores([]), BOOT)
    assert tables["grammar_scores"].data.empty
    assert "No grammar scores" in tables["grammar_scores"].markdown
    fig = rq2_plots.build_figures({"grammar_scores": tables["grammar_scores"].data})["fig8a"]
    assert len(fig.axes) == 2


def test_fig8a_has_a_panel_per_kind_with_labelled_bars(files, tmp_path):
    rq2.write_tables(files, tmp_path, BOOT)
    fig = rq2_plots.build_figures(figures.read_tables(tmp_path, ["grammar_scores"]))["fig8a"]
    axes = fig.axes
    assert [ax.get_title(loc="left") for ax in axes] == ["(a) Atomic", "(b) Intersectional"]
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["All", "Bias-inducing", "Benign"]
    assert axes[0].get_ylabel() == "Grammar score (%)" and axes[0].get_ylim()[0] == 0
    assert len(axes[0].patches) == 6  # 3 outcomes x (original, valid mutant)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["Original", "Valid mutant"]


def test_the_caption_counts_distinct_texts(files):
    """F13: the same seeded sample drawn for several models: the caption says how many of the
    scored texts are distinct."""
    frame = scores.read_scores(files)
    doubled = pd.concat([frame, frame[frame["model"] == "llama"].assign(model="gpt")])
    md = rq2.build_tables(doubled, BOOT)["grammar_scores"].markdown
    drawn, distinct = len(doubled), len(frame.drop_duplicates(["dataset", "kind", "text_id"]))
    assert distinct < drawn
    text = " ".join(md.split())
    assert f"This sample: {drawn:,} scored texts, {distinct:,} distinct" in text
    assert f"Checker: {', '.join(sorted(set(frame['checker'])))}; score levels differ" in text


@pytest.mark.parametrize("documents", [1, 4])
def test_a_comparison_over_too_few_documents_gets_no_verdict(tmp_path, documents):
    """G7: the old table said "yes" for a difference from one text (its bootstrap interval is a
    point). Below MIN_DOCUMENTS documents a side gets "too few", never "yes"; the same rows
    over MIN_DOCUMENTS documents are significant."""
    assert documents < statistics.MIN_DOCUMENTS

    def rows(n: int) -> list[dict]:
        out = []
        for d in range(n):
            common = dict(doc_id=f"d{d}", order=2, biased=False, words=50)
            out.append(dict(kind="original", issues=1 + d % 2, **common))
            out.append(dict(kind="mutant", valid=True, issues=10 + d % 3, **common))
        return out

    for n, verdict in ((documents, statistics.TOO_FEW), (statistics.MIN_DOCUMENTS, "yes")):
        path = tmp_path / f"s{n}.parquet"
        io.write_parquet(score_rows(rows(n)), path, SCORES)
        table = rq2.build_tables(scores.read_scores([ScoreFile("m", "imdb", path)]), BOOT)
        data = table["grammar_scores"].data.set_index(["mutation", "input", "outcome"])
        inter = data.loc[("intersectional", "valid mutant", "all")]
        assert inter["difference"] < -10  # a clear difference either way
        assert bool(inter["significant"]) == (verdict == "yes")
        line = next(
            line
            for line in table["grammar_scores"].markdown.splitlines()
            if "| valid mutant | all |" in line and "original" in line
        )
        assert line.rstrip().endswith(f"| {verdict} |"), line
