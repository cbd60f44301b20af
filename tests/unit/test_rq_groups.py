"""RQ1 group-level bias: the group table from hand-made outcomes, checked against a plain
pandas grouping; pooled groups sum the per-run counts; the heatmap's panels; rerun identity."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from oracle_cases import TEXT, Suite
from rq_runs import Run

from hinter import io, tables
from hinter.plots import groups as group_plots
from hinter.rq import groups
from hinter.rq.intervals import Bootstrap

BOOT = Bootstrap(resamples=200, seed=11, confidence=0.95)
# pair id -> (attribute, source class, target class)
PAIRS = {
    "race:asian": ("race", "european", "asian"),
    "race:african": ("race", "european", "african"),
    "race:minority": ("race", "majority", "minority"),
    "gender:female": ("gender", "male", "female"),
    "gender:male": ("gender", "female", "male"),
}
RACE = ["race:asian", "race:african", "race:minority"]
GENDER = ["gender:female", "gender:male"]


def pairs_table() -> pd.DataFrame:
    return pd.DataFrame(
        [(p, a, s, t) for p, (a, s, t) in PAIRS.items()],
        columns=["pair_id", "attribute", "source_class", "target_class"],
    )


def make_group_run(tmp_path, plan: dict[tuple[str, str], int]) -> Run:
    """Per (model, dataset): documents with one intersectional race+gender mutant (pairs and
    outcomes varying with the document) and one atomic race mutant; a few are discarded."""
    run = Run(tmp_path)
    for (model, dataset), docs in plan.items():
        inter, atomic = Suite("inter-race+gender"), Suite("atomic-race")
        for d in range(docs):
            doc = f"{dataset}-{d}"
            race, gender = RACE[d % 3], GENDER[(d // 3) % 2]
            inter.doc(doc, TEXT, pred=(0,))
            r = inter.atomic(doc, "race", "British", "Pakistani", pair_id=race, pred=(0,))
            g = inter.atomic(
                doc,
                "gender",
                "people",
                "trans women",
                pair_id=gender,
                pred=(1,) if d % 5 == 0 else (0,),
            )
            inter.inter(
                doc, [r, g], pred=(1,) if (d + len(model)) % 3 != 1 else (0,), valid=d % 7 != 6
            )
            atomic.doc(doc, TEXT, pred=(0,))
            atomic.atomic(
                doc,
                "race",
                "British",
                "Pakistani",
                pair_id=race,
                role="mutant",
                pred=(1,) if d % 4 == 0 else (0,),
                valid=d % 5 != 4,
            )
        run.add(model, dataset, "inter-race+gender", [inter])
        run.add(model, dataset, "atomic-race", [atomic])
    return run


PLAN = {("bert", "scotus"): 24, ("bert", "imdb"): 18, ("llama", "imdb"): 18}


def _valid_rows(run: Run) -> pd.DataFrame:
    frames = []
    for f in run.outcome_files:
        frame = io.read_parquet(f.path, tables.OUTCOMES).to_pandas()
        frames.append(frame[frame["valid"]].assign(model=f.model, dataset=f.dataset))
    rows = pd.concat(frames, ignore_index=True)
    target = {p: t for p, (_, _, t) in PAIRS.items()}
    rows["group"] = [" × ".join(target[p] for p in ids) for ids in rows["pair_ids"]]
    rows["error"] = rows["biased"].fillna(False).astype(bool)
    return rows


def test_group_table_matches_pandas_and_reruns_identically(tmp_path):
    run = make_group_run(tmp_path, PLAN)
    pairs_path = tmp_path / "pairs.parquet"
    io.write_parquet(pa.Table.from_pandas(pairs_table(), preserve_index=False), pairs_path)
    out = tmp_path / "rq1"
    args = dict(datasets=["scotus", "imdb"], boot=BOOT)
    written = groups.write_tables(run.outcome_files, pairs_path, out, **args)
    written += group_plots.write_figures(out, out)
    assert {p.name for p in written} == {
        "group_bias.csv",
        "group_bias.md",
        "group_bias.html",
        "fig_groups.pdf",
        "fig_groups.png",
    }
    first = {p: p.read_bytes() for p in written}
    groups.write_tables(run.outcome_files, pairs_path, out, **args)
    group_plots.write_figures(out, out)
    assert {p: p.read_bytes() for p in written} == first

    table = pd.read_csv(out / "group_bias.csv", keep_default_na=False, na_values=[""])
    rows = _valid_rows(run)
    # per (model, dataset) and pooled ("Total"/"All"): rate = errors / valid mutants per group
    expected = pd.concat(
        [
            rows.groupby(["model", "dataset", "group"])["error"].agg(["size", "sum"]),
            rows.assign(model="Total", dataset="All")
            .groupby(["model", "dataset", "group"])["error"]
            .agg(["size", "sum"]),
        ]
    )
    got = table.set_index(["model", "dataset", "group"])
    assert len(got) == len(expected)
    for key, e in expected.iterrows():
        row = got.loc[key]
        assert (row["decided"], row["errors"]) == (e["size"], e["sum"]), key
        assert row["error_rate_pct"] == pytest.approx(100 * e["sum"] / e["size"], abs=1e-4)
        assert row["low"] <= row["error_rate_pct"] + 1e-9 <= row["high"] + 2e-9, key
    # GIB flags: above the unweighted mean of the scope's groups (race classes split into the
    # families their pairs connect: asian/african/european apart from majority/minority)
    pooled = table[(table["model"] == "Total") & (table["kind"] == "GIB")]
    for _, part in pooled.groupby("scope"):
        mean = part["error_rate_pct"].mean()
        assert list(part["above_mean"]) == list(part["error_rate_pct"] > mean + 1e-6)
    assert set(pooled["scope"]) == {
        "race[african/asian/european] × gender[female/male]",
        "race[majority/minority] × gender[female/male]",
    }
    assert set(table["kind"]) == {"GAB", "GIB"}
    md = (out / "group_bias.md").read_text()
    assert "MUTAINT Table 4" in md and "All (GIB)" in md and "asian × female" in md


def test_heatmap_has_one_panel_per_attribute_pair_family(tmp_path):
    run = make_group_run(tmp_path, PLAN)
    pairs_path = tmp_path / "pairs.parquet"
    io.write_parquet(pa.Table.from_pandas(pairs_table(), preserve_index=False), pairs_path)
    groups.write_tables(
        run.outcome_files, pairs_path, tmp_path, datasets=["scotus", "imdb"], boot=BOOT
    )
    table = pd.read_csv(tmp_path / "group_bias.csv", keep_default_na=False, na_values=[""])
    fig = group_plots.build_figures({"group_bias": table})["fig_groups"]
    panels = [ax for ax in fig.axes if ax.get_title(loc="left")]
    # race's classes form two families (fine and coarse, Table 4's R1 and R2)
    assert [ax.get_title(loc="left") for ax in panels] == ["Race 1 × Gender", "Race 2 × Gender"]
    first = panels[0]
    assert [t.get_text() for t in first.get_yticklabels()] == ["african", "asian"]
    assert [t.get_text() for t in first.get_xticklabels()] == ["female", "male"]
    assert first.get_ylabel() == "Race 1" and first.get_xlabel() == "Gender"
    # the cells carry the pooled rates, biased groups starred
    pooled = table[(table["model"] == "Total") & (table["group"] == "asian × female")].iloc[0]
    texts = {t.get_text() for t in first.texts}
    star = "*" if pooled["above_mean"] else ""
    assert f"{pooled['error_rate_pct']:.1f}{star}" in texts


def test_no_valid_mutants_give_an_empty_table(tmp_path):
    run = Run(tmp_path)
    s = Suite("atomic-race")
    s.doc("d", TEXT)
    s.atomic("d", "race", "British", "Pakistani", pair_id="race:asian", valid=False, role="mutant")
    run.add("bert", "imdb", "atomic-race", [s])
    t = groups.group_table(run.outcome_files, pairs_table(), ["bert"], ["imdb"], BOOT)
    assert t.data.empty and "No valid mutants" in t.markdown
    fig = group_plots.heatmap_figure(t.data)
    assert fig.axes[0].texts[0].get_text() == "No intersectional groups"


def test_a_group_above_its_mean_on_errors_of_too_few_documents_is_not_flagged():
    """G7: "disorder × male" was flagged (GIB) from one error. Planted: in one scope, A has 1
    error in 10 mutants (10%, one document), C 6 errors in 50 (12%, six documents), B none in
    100; the mean is 7.33%. Both A and C are above it; only C is flagged, A reads "too few"."""
    from hinter import statistics
    from hinter.rq import group_bias

    plan = {"asian × female": (10, 1), "asian × male": (50, 6), "african × male": (100, 0)}
    groups_rows, doc_rows = [], []
    for group, (decided, errors) in plan.items():
        race, gender = group.split(" × ")
        counts = dict.fromkeys(group_bias._COUNTS, 0)
        counts.update(generated=decided, valid=decided, decided=decided, errors=errors)
        keys = dict(model="m", dataset="imdb", attributes="race+gender", group=group)
        groups_rows.append(
            {**keys, "kind": "GIB", "scope": "race × gender", "race": race, "gender": gender,
             **counts}
        )  # fmt: skip
        for d in range(decided):  # one mutant per document; the errors in the first ones
            row = dict.fromkeys(statistics.COLUMNS, 0)
            row.update(generated=1, valid=1, decided=1, errors=int(d < errors), originals=1)
            doc_rows.append({**keys, "doc_id": f"{group}-{d}", **row})
    table = group_bias.pool_groups(pd.DataFrame(groups_rows), ["model", "dataset"])
    assert table["above_mean"].tolist() == [False, True, True]  # the paper's rule alone
    full = groups.with_intervals(table, pd.DataFrame(doc_rows), BOOT)
    for model in ("m", groups.TOTAL):
        rows = full[full["model"] == model].set_index("group")
        assert rows["error_documents"].to_dict() == {
            "african × male": 0, "asian × female": 1, "asian × male": 6
        }  # fmt: skip
        assert rows["above_mean"].to_dict() == {
            "african × male": False, "asian × female": False, "asian × male": True
        }  # fmt: skip
    csv = full[full["model"] == "m"].rename(
        columns={"error_rate": "error_rate_pct", "scope_mean": "scope_mean_pct"}
    )
    for c in ("error_rate_pct", "scope_mean_pct"):
        csv[c] = 100 * csv[c]
    shown = groups._groups_md(csv).set_index("Group")["Above mean"].to_dict()
    assert shown == {"african × male": "no", "asian × female": "too few", "asian × male": "yes"}
    summary = group_bias.group_summary(full, ["model", "dataset"])
    gib = summary[(summary["model"] == "m") & (summary["scope"] == "race × gender")].iloc[0]
    assert (gib["biased_groups"], gib["groups"]) == (1, 3)
    assert f"at least {statistics.MIN_DOCUMENTS} original documents" in groups.FLAG_RULE
