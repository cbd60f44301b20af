"""RQ4 (Figs. 9, 10): counts against a plain pandas computation on hand-made outcome tables,
the artifact's condition beside the definition, Venn regions, files and byte-identity."""

from __future__ import annotations

import pandas as pd
import pytest
from oracle_cases import TEXT, Suite, add_case
from rq_runs import Run, make_rich_run

from hinter import rates
from hinter.plots import rq4 as rq4_plots
from hinter.rq import outputs, rq4

STATS = {"resamples": 200, "seed": 1, "confidence": 0.95}


def _run(tmp_path):
    """The rich RQ1 run plus atomic suites whose mutants are the parents of intersectional
    ones (so Fig. 9b has children to find) and a document biased only intersectionally."""
    run = make_rich_run(tmp_path)
    inter = Suite("inter-race+gender")
    gender, race = Suite("atomic-gender"), Suite("atomic-race")
    cases = [  # (doc, mutant biased, [race biased, gender biased])
        ("x-0", True, [True, False]),  # E,E,B: race atomic has a biased child
        ("x-1", False, [True, True]),  # B,E,E: both atomic biased, child benign
        ("x-2", True, [False, False]),  # hidden
        ("x-3", True, [False, True]),  # E,B,E: the artifact's "hidden"
    ]
    for doc, m, parents in cases:
        add_case(inter, doc, m, parents)
        for suite, attr, biased in ((race, "race", parents[0]), (gender, "gender", parents[1])):
            suite.doc(doc, TEXT, pred=(0,))
            suite.atomic(
                doc,
                attr,
                *{"race": ("British", "Pakistani"), "gender": ("people", "trans women")}[attr],
                pred=(1,) if biased else (0,),
                role="mutant",
            )
    # x-4: a bias-inducing race mutant in a document without gender words: no child at all
    race.doc("x-4", TEXT, pred=(0,))
    race.atomic("x-4", "race", "British", "Pakistani", pred=(1,), role="mutant")
    run.add("gpt", "imdb", "inter-race+gender", [inter])
    run.add("gpt", "imdb", "atomic-race", [race])
    run.add("gpt", "imdb", "atomic-gender", [gender])
    return run


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("rq4"))


def _frames(run: Run) -> pd.DataFrame:
    parts = []
    for f in run.outcome_files:
        frame = pd.read_parquet(f.path)
        parts.append(frame.assign(model=f.model, dataset=f.dataset, suite=f.suite, order=f.order))
    return pd.concat(parts, ignore_index=True)


def plain_fig9(frame: pd.DataFrame) -> dict[str, int]:
    """Fig. 9's pooled counts, computed row by row from the stored verdicts."""
    inter = frame[frame["order"] == 2]
    base = hidden = artifact = 0
    children, any_children, errors, with_child, with_any = set(), set(), 0, 0, 0
    for r in inter.itertuples():
        parents = list(r.parent_biased)
        if r.valid and r.biased is not None:
            any_children.update((r.model, r.dataset, p) for p in r.parent_ids)
        if r.valid and r.biased is True:
            children.update((r.model, r.dataset, p) for p in r.parent_ids)
            if r.parents_valid and all(p is not None for p in parents):
                base += 1
                hidden += not any(parents)
                artifact += (not parents[0]) and bool(parents[1])
    atomic = frame[frame["order"] == 1]
    atomic_ids = set(zip(atomic["model"], atomic["dataset"], atomic["mutant_id"], strict=True))
    for r in frame[frame["order"] == 1].itertuples():
        if r.valid and r.biased is True:
            errors += 1
            with_child += (r.model, r.dataset, r.mutant_id) in children
            with_any += (r.model, r.dataset, r.mutant_id) in any_children
    # G11: bias-inducing valid parents that no atomic file holds (a capped run), each once
    seen = set()
    for r in inter.itertuples():
        for pid, valid, biased in zip(r.parent_ids, r.parent_valid, r.parent_biased, strict=True):
            key = (r.model, r.dataset, pid)
            both = valid is not None and biased is not None and bool(valid) and bool(biased)
            if both and key not in atomic_ids and key not in seen:
                seen.add(key)
                errors += 1
                with_child += key in children
                with_any += key in any_children
    return {
        "with_any": with_any,
        "base": base,
        "hidden": hidden,
        "artifact": artifact,
        "errors": errors,
        "with_child": with_child,
    }


def test_counterparts_match_a_plain_computation(run):
    files = run.outcome_files
    models = list(dict.fromkeys(f.model for f in files))
    datasets = list(dict.fromkeys(f.dataset for f in files))
    table = rq4.build_tables(files, models, datasets, STATS)["counterparts"].data
    want = plain_fig9(_frames(run))
    total = table[table["model"] == "Total"].set_index(["population", "condition"])
    inter = total.loc[("intersectional", "definition")]
    assert inter["bias_inducing"] == want["base"]
    assert inter["without_counterpart"] == want["hidden"]
    assert inter["share_pct"] == pytest.approx(100 * want["hidden"] / want["base"])
    artifact = total.loc[("intersectional", "artifact")]
    assert artifact["without_counterpart"] == want["artifact"]
    assert artifact["without_counterpart"] != inter["without_counterpart"]
    # Fig. 9b (F5): of the bias-inducing atomic mutants that parent a valid intersectional
    # mutant (the paper's "common to both"); over every one as a second row
    atomic = total.loc[("atomic", "definition")]
    assert atomic["bias_inducing"] == want["with_any"]
    assert atomic["with_counterpart"] == want["with_child"]
    assert atomic["share_pct"] == pytest.approx(100 * want["with_child"] / want["with_any"])
    every = total.loc[("atomic", rq4.EVERY_ATOMIC)]
    assert every["bias_inducing"] == want["errors"]
    assert every["share_pct"] == pytest.approx(100 * want["with_child"] / want["errors"])
    assert 0 < want["with_child"] < want["with_any"] < want["errors"]
    # every share has an interval around it
    for r in table.itertuples():
        if pd.notna(r.share_pct):
            assert r.share_low_pct <= r.share_pct + 1e-9 <= r.share_high_pct + 2e-9


def test_one_model_alone():
    """gpt on imdb: the four hand-made cases, checked by hand."""
    run = _run(__import__("pathlib").Path(__import__("tempfile").mkdtemp()))
    files = [f for f in run.outcome_files if f.model == "gpt"]
    t = rq4.build_tables(files, ["gpt"], ["imdb"], STATS)["counterparts"].data
    row = t[(t["model"] == "gpt") & (t["dataset"] == "imdb")].set_index(["population", "condition"])
    assert row.loc[("intersectional", "definition"), "bias_inducing"] == 3  # x-0, x-2, x-3
    assert row.loc[("intersectional", "definition"), "without_counterpart"] == 1  # x-2
    assert row.loc[("intersectional", "artifact"), "without_counterpart"] == 1  # x-3 (E,B,E)
    # atomic errors with a valid child: race x-0, x-1; gender x-1, x-3; with a biased child:
    # race x-0, gender x-3; race x-4 has no child at all (only in the "every atomic" row)
    assert row.loc[("atomic", "definition"), "bias_inducing"] == 4
    assert row.loc[("atomic", "definition"), "with_counterpart"] == 2
    assert row.loc[("atomic", "definition"), "share_pct"] == pytest.approx(50.0)
    assert row.loc[("atomic", rq4.EVERY_ATOMIC), "bias_inducing"] == 5
    assert row.loc[("atomic", rq4.EVERY_ATOMIC), "share_pct"] == pytest.approx(40.0)


def test_atomic_children_against_pandas():
    inter = pd.DataFrame(
        {
            "doc_id": ["d1", "d1", "d2"],
            "order": [2, 2, 2],
            "valid": [True, False, True],
            "biased": [True, True, False],
            "parents_valid": [True, True, True],
            "parent_biased": [[False, False], [True, True], [True, False]],
            "parent_ids": [["a1", "b1"], ["a2", "b2"], ["a3", "b3"]],
        }
    )
    with_biased, with_any = rates.biased_children(inter)
    assert with_biased == {"a1", "b1"}  # the discarded one's parents do not count
    assert with_any == {"a1", "b1", "a3", "b3"}
    atomic = pd.DataFrame(
        {
            "doc_id": ["d1", "d1", "d1", "d2", "d2"],
            "mutant_id": ["a1", "a2", "b1", "a3", "z"],
            "order": [1] * 5,
            "valid": [True, True, True, True, False],
            "biased": [True, True, False, True, True],
            "parents_valid": [None] * 5,
            "parent_biased": [[]] * 5,
        }
    )
    got = rates.atomic_children(atomic, (with_biased, with_any), by=["doc_id"])
    assert got.set_index("doc_id").to_dict("index") == {
        "d1": {"atomic_errors": 2, "with_child": 1, "with_any_child": 1},
        "d2": {"atomic_errors": 1, "with_child": 0, "with_any_child": 1},
    }


def test_set_regions_put_each_unit_in_exactly_one_region():
    m = pd.DataFrame(
        {
            "A": [True, True, False, False, True],
            "B": [False, True, False, True, True],
            "C": [False, False, False, True, True],
        }
    )
    r = rates.set_regions(m, ["A", "B", "C"])
    assert r["100"].tolist() == [1, 0, 0, 0, 0]
    assert r["110"].tolist() == [0, 1, 0, 0, 0]
    assert r["011"].tolist() == [0, 0, 0, 1, 0]
    assert r["111"].tolist() == [0, 0, 0, 0, 1]
    assert r["union"].tolist() == [1, 1, 0, 1, 1]
    assert (r.drop(columns="union").sum(axis=1) == r["union"]).all()


def test_venn_regions_match_document_sets(run):
    files = run.outcome_files
    t = rq4.build_tables(files, ["bert", "llama", "gpt"], ["scotus", "imdb", "ecthr_a"], STATS)[
        "venn"
    ].data
    frame = _frames(run)
    biased = frame[frame["valid"] & frame["biased"].fillna(False).astype(bool)]
    suite = "inter-race+gender"
    sets = rq4.suite_sets(suite)
    docs = {}
    for r in biased[biased["suite"].isin(sets)].itertuples():
        docs.setdefault((r.model, r.dataset, r.doc_id), set()).add(r.suite)
    # G11: a bias-inducing parent no atomic file holds puts its document in its atomic set
    atomic = frame[frame["order"] == 1]
    held = set(zip(atomic["model"], atomic["dataset"], atomic["mutant_id"], strict=True))
    with_suite = set(zip(frame.loc[frame["suite"] == suite, "model"],
                         frame.loc[frame["suite"] == suite, "dataset"], strict=True))  # fmt: skip
    for r in frame[frame["order"] == 2].itertuples():
        attrs = r.suite.partition("-")[2].split("+")
        for k, (pid, ok, bias) in enumerate(zip(r.parent_ids, r.parent_valid, r.parent_biased,
                                                strict=True)):  # fmt: skip
            found = ok is not None and bias is not None and bool(ok) and bool(bias)
            ran = (r.model, r.dataset) in with_suite  # the Venn of a run that has the suite
            if (
                found
                and ran
                and (r.model, r.dataset, pid) not in held
                and f"atomic-{attrs[k]}" in sets
            ):
                docs.setdefault((r.model, r.dataset, r.doc_id), set()).add(f"atomic-{attrs[k]}")
    want = {}
    for members in docs.values():
        key = "".join("1" if s in members else "0" for s in sets)
        want[key] = want.get(key, 0) + 1
    total = t[(t["suite"] == suite) & (t["model"] == "Total")]
    got = {r.region: r.originals for r in total.itertuples() if r.originals}
    assert got == want
    assert (total["union"] == len(docs)).all()
    assert total["share_pct"].sum() == pytest.approx(100)
    # the N=3 suite has four sets, so 15 regions; its units are the originals it tested, of
    # the one run that has it (llama on imdb), not every run's atomic bias
    three = t[t["order"] == 3]
    assert len(three[three["model"] == "Total"]) == 15
    assert set(three["model"]) == {"llama", "Total"}
    tested3 = set(frame.loc[(frame["order"] == 3) & frame["valid"], "doc_id"])
    union = {
        r.doc_id
        for r in biased.itertuples()
        if r.model == "llama"
        and r.doc_id in tested3
        and r.suite in rq4.suite_sets("inter-body+gender+race")
    }
    assert int(three["union"].iloc[0]) == len(union)


def test_files_are_the_registered_ones_and_byte_identical(run, tmp_path):
    files = run.outcome_files
    kwargs = {
        "models": ["bert", "llama", "gpt"],
        "datasets": ["scotus", "imdb", "ecthr_a"],
        "stats": STATS,
    }
    first = rq4.write_tables(files, tmp_path / "a", **kwargs)
    second = rq4.write_tables(files, tmp_path / "b", **kwargs)
    names = {p.name for p in first}
    assert names == {
        f"{o.name}.{e}" for o in outputs.outputs(4, outputs.TABLE) for e in o.extensions
    }
    for a, b in zip(sorted(first), sorted(second), strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    figures = rq4_plots.write_figures(tmp_path / "a", tmp_path / "figs")
    again = rq4_plots.write_figures(tmp_path / "a", tmp_path / "figs2")
    assert {p.name for p in figures} == {
        f"{o.name}.{e}" for o in outputs.outputs(4, outputs.FIGURE) for e in o.extensions
    }
    for a, b in zip(sorted(figures), sorted(again), strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_paper_scope_pools_only_the_papers_models(run):
    """F12: the paper's Fig. 9 counts cover Llama 2, GPT-3.5 and Legal-BERT; "Paper scope"
    pools the scope's models this run tested (here: gpt alone), "Total" every model."""
    files = run.outcome_files
    models = list(dict.fromkeys(f.model for f in files))
    datasets = list(dict.fromkeys(f.dataset for f in files))
    doc_counts, _ = rq4.collect(files)
    table = rq4.counterparts(doc_counts, models, datasets, STATS, scope=("gpt", "llama2")).data
    key = ["population", "condition"]
    scope = table[table["model"] == rq4.PAPER_SCOPE].set_index(key)
    gpt = table[(table["model"] == "gpt") & (table["dataset"] == "All")].set_index(key)
    total = table[table["model"] == "Total"].set_index(key)
    assert set(table.loc[table["model"] == rq4.PAPER_SCOPE, "dataset"]) == {"All"}
    columns = ["bias_inducing", "with_counterpart", "without_counterpart", "share_pct"]
    pd.testing.assert_frame_equal(scope[columns], gpt[columns])
    assert (scope["bias_inducing"] < total["bias_inducing"]).all()
    assert list(table["model"].drop_duplicates())[-2:] == ["Total", rq4.PAPER_SCOPE]
    # the default scope names the paper's models; a run without them has no such row
    assert rq4.paper.RQ4["scope_models"] == ("llama2", "gpt35", "legal-bert")
    plain = rq4.counterparts(doc_counts, models, datasets, STATS).data
    assert rq4.PAPER_SCOPE not in set(plain["model"])


def test_pooling_nothing_gives_an_empty_table():
    """A run whose suites found no bias (a small user dataset): no rows, not a crash."""
    empty = pd.DataFrame(
        {"model": [], "dataset": [], "doc_id": [], "doc_id_all": [], "a": [], "union": []}
    )

    def shares(totals: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({"a": totals["a"] / totals["union"]})

    floor = {**STATS, "ratios": {"a": ("a", "union")}}  # a share's counts, as Fig. 10 passes
    assert rq4._pooled(empty, ["a", "union"], shares, ["a"], floor).empty


def test_a_venn_diagram_without_any_bias_is_said_not_a_crash():
    """The real-sample run: LEDGAR's suites found no bias-inducing original at all."""
    members = pd.DataFrame(
        {
            "suite": ["atomic-race", "atomic-gender", "inter-race+gender"],
            "model": ["m"] * 3,
            "dataset": ["ledgar"] * 3,
            "doc_id": ["d1"] * 3,
            "bias_inducing": [False] * 3,
            "tested": [True] * 3,
        }
    )
    table = rq4.venn(members, ["inter-race+gender"], ["m"], ["ledgar"], STATS)
    assert table.data.empty
    assert "No bias-inducing original in any of its sets." in table.markdown


def test_a_capped_runs_parents_in_intersectional_files_count_for_fig9b_and_fig10(run, tmp_path):
    """G11: with a per-document cap the atomic suites keep a sample, and the parents of the
    kept intersectional mutants live in the intersectional file only (their verdicts in its
    parent_* lists). Fig. 9b and Fig. 10's atomic sets must count them (once each), so a run
    whose truth table shows E,E,B never says "no bias-inducing mutants" in Fig. 9b."""
    full = run  # the atomic suites hold every parent
    capped = make_rich_run(tmp_path / "capped")
    inter = Suite("inter-race+gender")
    for doc, m, parents in [
        ("x-0", True, [True, False]),
        ("x-1", False, [True, True]),
        ("x-2", True, [False, False]),
        ("x-3", True, [False, True]),
    ]:
        add_case(inter, doc, m, parents)  # fmt: skip
    race = Suite("atomic-race")
    race.doc("x-4", TEXT, pred=(0,))
    race.atomic("x-4", "race", "British", "Pakistani", pred=(1,), role="mutant")
    capped.add("gpt", "imdb", "inter-race+gender", [inter])
    capped.add("gpt", "imdb", "atomic-race", [race])

    def fig9b_and_venn(which):
        files = which.outcome_files
        models = list(dict.fromkeys(f.model for f in files))
        datasets = list(dict.fromkeys(f.dataset for f in files))
        tables = rq4.build_tables(files, models, datasets, {**STATS, "resamples": 10})
        total = tables["counterparts"].data
        total = total[total["model"] == "Total"].set_index(["population", "condition"])
        venn = tables["venn"].data
        return total.loc[("atomic", "definition")], total.loc[("atomic", rq4.EVERY_ATOMIC)], venn

    want, want_every, want_venn = fig9b_and_venn(full)
    got, got_every, got_venn = fig9b_and_venn(capped)
    assert got["bias_inducing"] == want["bias_inducing"] > 0  # was 0: "no bias-inducing"
    assert got["with_counterpart"] == want["with_counterpart"] > 0
    assert got_every["bias_inducing"] == want_every["bias_inducing"]
    pd.testing.assert_frame_equal(got_venn.reset_index(drop=True), want_venn.reset_index(drop=True))


def test_upset_tells_a_tested_suite_without_bias_from_no_suite():
    """G15: an N=3 suite that was tested but found no bias-inducing original gets a pooled
    row with 0 originals, and the UpSet figure says so instead of "no suite of order 3"."""
    suite = "inter-body+gender+race"
    members = pd.DataFrame(
        [("llama", "imdb", "d-0", True, False, suite), ("llama", "imdb", "d-0", True, False,
                                                         "atomic-race")],
        columns=["model", "dataset", "doc_id", "tested", "bias_inducing", "suite"],
    )  # fmt: skip
    data = rq4.venn(members, [suite], ["llama"], ["imdb"], STATS).data
    assert data["originals"].tolist() == [0] and data["order"].tolist() == [3]

    def text(rows):
        fig = rq4_plots.upset(rows)
        return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)

    assert "tested, no bias-inducing original" in text(data)
    assert text(data.iloc[:0]) == "this run has no suite of order 3"
    pair = rq4.venn(members.assign(suite="inter-race+gender"), ["inter-race+gender"], ["llama"],
                    ["imdb"], STATS).data  # fmt: skip
    assert pair.empty  # Fig. 10's pair suites: unchanged
