"""RQ5 (Tables 5, 6): per-order counts and rates against a plain pandas computation on
hand-made outcome tables, the N=3 suite's document limit, the paper's numbers beside, the
Table-6-style example, files and byte-identity."""

from __future__ import annotations

import pandas as pd
import pytest
from rq_runs import make_rich_run

from hinter.rq import outputs, paper, rq5

STATS = {"resamples": 200, "seed": 2, "confidence": 0.95}
KW = {
    "models": ["bert", "llama"],
    "datasets": ["scotus", "imdb", "ecthr_a"],
    "stats": STATS,
    "paper": paper.RQ5,
    "examples": 5,
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_rich_run(tmp_path_factory.mktemp("rq5"))


def plain(run, keep=None) -> pd.DataFrame:
    """Per order: generated, valid, errors, hidden of llama on imdb, from the stored verdicts."""
    rows = []
    for f in run.outcome_files:
        if (f.model, f.dataset) != ("llama", "imdb"):
            continue
        frame = pd.read_parquet(f.path)
        if keep is not None:
            frame = frame[frame["doc_id"].isin(keep)]
        biased = frame["biased"].fillna(False).astype(bool)
        rows.append(
            {
                "order": f.order,
                "generated": len(frame),
                "valid": int(frame["valid"].sum()),
                "errors": int((frame["valid"] & biased).sum()),
                "hidden": int(frame["hidden"].fillna(False).astype(bool).sum()),
            }
        )
    return pd.DataFrame(rows).groupby("order").sum()


def test_table5_matches_a_plain_computation_and_covers_only_runs_with_n3(run):
    t = rq5.build_tables(run.outcome_files, run.example_files, limits={}, positions={}, **KW)[
        "table5"
    ]
    data = t.data
    assert set(zip(data["model"], data["dataset"], strict=True)) == {("llama", "imdb")}
    assert data["setting"].tolist() == ["Atomic", "2-Intersectional", "3-Intersectional"]
    want = plain(run)
    for r in data.itertuples():
        w = want.loc[r.attributes]
        assert (r.generated, r.valid, r.errors) == (w["generated"], w["valid"], w["errors"])
        if r.attributes >= 2:
            assert r.hidden == w["hidden"]
        assert r.error_rate_low_pct <= r.error_rate_pct <= r.error_rate_high_pct
    three = data[data["attributes"] == 3].iloc[0]
    assert three["paper_error_rate"] == 3.94 and three["paper_hidden_rate"] == 3.36
    assert "3-Intersectional vs 2-Intersectional, error rate" in t.markdown


def test_the_n3_suites_document_limit_applies_to_every_row(run):
    files = run.outcome_files
    docs = sorted(
        {d for f in files if f.model == "llama" for d in pd.read_parquet(f.path)["doc_id"]}
    )
    positions = {"imdb": {d: i for i, d in enumerate(docs)}}
    limit = 2
    t = rq5.build_tables(
        files, run.example_files, limits={("llama", "imdb"): limit}, positions=positions, **KW
    )["table5"].data
    want = plain(run, keep=set(docs[:limit]))
    for r in t.itertuples():
        assert r.generated == want.loc[r.attributes, "generated"]
    with pytest.raises(Exception, match="not among the tested"):
        rq5.build_tables(
            files,
            run.example_files,
            limits={("llama", "imdb"): limit},
            positions={"imdb": {}},
            **KW,
        )


def test_table6_shows_three_atomic_lines_per_example(run):
    t = rq5.build_tables(run.outcome_files, run.example_files, limits={}, positions={}, **KW)[
        "table6"
    ]
    assert set(t.data["suite"]) == {"inter-body+gender+race"}
    per_example = t.data.groupby("mutant_id")["type"].apply(list)
    for lines in per_example:
        assert lines == ["Original", "Atomic I", "Atomic II", "Atomic III", "Intersectional"]


def test_files_are_the_registered_ones_and_byte_identical(run, tmp_path):
    kwargs = {"limits": {}, "positions": {}, **KW}
    first = rq5.write_tables(run.outcome_files, run.example_files, tmp_path / "a", **kwargs)
    second = rq5.write_tables(run.outcome_files, run.example_files, tmp_path / "b", **kwargs)
    assert {p.name for p in first} == {
        f"{o.name}.{e}" for o in outputs.outputs(5) for e in o.extensions
    }
    for a, b in zip(sorted(first), sorted(second), strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_runs_of_rq5_and_rq6_follow_the_paper_config(repo):
    from hinter import plan as runs
    from hinter.config import load_yaml, validate_config

    config = validate_config(load_yaml(repo / "config" / "config.yaml"))
    assert runs.higher_order_runs(config) == [
        runs.HigherOrderRun("llama2", "imdb", "inter-body+gender+race", 10_000)
    ]
    variant_runs = runs.variant_runs(config)
    assert [(m, d) for m, d, _ in variant_runs] == [("llama2", "scotus"), ("llama2", "imdb")]
    assert variant_runs[0][2] == [
        "default", "default-run2", "default-run3", "default-run4", "alt1", "alt2"
    ]  # fmt: skip
    assert runs.threshold_runs(config) == [("llama2", "scotus"), ("llama2", "imdb")]
    assert config["sensitivity"]["threshold_rule"] == "exclude"
