"""RQ6 (Figs. 11, 12): the threshold rules on hand-made cases (E,B,E -> E,B,B under the benign
rule only), variants against a plain computation, significance, files and byte-identity."""

from __future__ import annotations

import random
import runpy
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from oracle_cases import ATTRIBUTE_WORDS, TEXT, Suite
from rq_runs import Run, write_shards

from hinter import oracle, rates
from hinter.layout import RunLayout
from hinter.plots import rq6 as rq6_plots
from hinter.rq import outputs, rq6
from hinter.rq.outcomes import OutcomeFile, outcome_files

STATS = {"resamples": 200, "seed": 3, "confidence": 0.95}
RACE, GENDER = ATTRIBUTE_WORDS["race"], ATTRIBUTE_WORDS["gender"]


def case(suite: Suite, doc: str, mutant, parents, conf_original=0.9):
    """A document with an intersectional mutant and two parents: each (biased, confidence)."""
    suite.doc(doc, TEXT, pred=(0,), conf=conf_original)
    ids = []
    for (biased, conf), (attr, words) in zip(
        parents, (("race", RACE), ("gender", GENDER)), strict=True
    ):
        ids.append(suite.atomic(doc, attr, *words, pred=(1,) if biased else (0,), conf=conf))
    suite.inter(doc, ids, pred=(1,) if mutant[0] else (0,), conf=mutant[1])


def outcomes(cases) -> pd.DataFrame:
    suite = Suite("inter-race+gender")
    for i, (m, p) in enumerate(cases):
        case(suite, f"d{i}", m, p)
    return suite.outcomes().to_pandas().assign(model="m", dataset="imdb")


# E,B,E whose second parent flips with low confidence (0.4): the threshold 0.5 decides it.
EBE_LOW = ((True, 0.9), [(False, 0.9), (True, 0.4)])


def test_ebe_becomes_hidden_under_the_benign_rule_only():
    frame = outcomes([EBE_LOW])
    at0 = rates.verdicts(frame, threshold=0.0)
    assert at0["pattern"].tolist() == ["E,B,E"] and not at0["hidden"].any()
    benign = rates.verdicts(frame, threshold=0.5, rule=rates.BENIGN)
    assert benign["pattern"].tolist() == ["E,B,B"] and benign["hidden"].all()
    excluded = rates.verdicts(frame, threshold=0.5, rule=rates.EXCLUDE)
    assert not excluded["in_truth_table"].any() and not excluded["hidden"].any()
    c_benign = rates.counts(frame, threshold=0.5, rule=rates.BENIGN).iloc[0]
    c_excluded = rates.counts(frame, threshold=0.5).iloc[0]
    assert (c_benign["hidden"], c_benign["hidden_base"]) == (1, 1)
    assert (c_excluded["hidden"], c_excluded["hidden_base"]) == (0, 0)
    # the mutant itself is confident and still counts as an error under both rules
    assert c_benign["errors"] == c_excluded["errors"] == 1


def test_a_low_confidence_mutant_or_original_leaves_the_denominator_when_excluded():
    frame = outcomes(
        [
            ((True, 0.3), [(False, 0.9), (False, 0.9)]),  # mutant below
            ((True, 0.9), [(False, 0.9), (False, 0.9)]),
        ]
    )
    benign = rates.counts(frame, threshold=0.5, rule=rates.BENIGN).iloc[0]
    excluded = rates.counts(frame, threshold=0.5).iloc[0]
    assert (benign["errors"], benign["decided"]) == (1, 2)  # counted benign
    assert (excluded["errors"], excluded["decided"]) == (1, 1)  # left out
    low_original = Suite("inter-race+gender")
    case(low_original, "d0", (True, 0.9), [(False, 0.9), (False, 0.9)], conf_original=0.2)
    f = low_original.outcomes().to_pandas()
    assert rates.counts(f, threshold=0.5).iloc[0]["decided"] == 0
    assert rates.counts(f, threshold=0.5, rule=rates.BENIGN).iloc[0]["decided"] == 1


def test_excluding_never_raises_a_count_and_keeps_every_verdict_it_keeps():
    rng = random.Random(5)
    cases = [
        (
            (rng.random() < 0.5, rng.random()),
            [(rng.random() < 0.5, rng.random()), (rng.random() < 0.5, rng.random())],
        )
        for _ in range(60)
    ]
    frame = outcomes(cases)
    at0 = rates.verdicts(frame, threshold=0.0)
    previous = None
    for t in (0.0, 0.2, 0.4, 0.6, 0.8, 0.95):
        v = rates.verdicts(frame, threshold=t)
        kept = v["in_truth_table"]
        assert (v.loc[kept, "pattern"] == at0.loc[kept, "pattern"]).all()
        c = rates.counts(frame, threshold=t).iloc[0]
        if previous is not None:
            for column in ("decided", "errors", "hidden_base", "hidden", "truth_table"):
                assert c[column] <= previous[column], (t, column)
        previous = c
    # while the benign rule does raise the hidden count somewhere on this data
    hidden = [
        rates.counts(frame, threshold=t, rule=rates.BENIGN).iloc[0]["hidden"] for t in (0.0, 0.5)
    ]
    assert hidden[1] > hidden[0]


def _variant_run(tmp_path):
    """llama on imdb with three variants: default, a repeat identical to it, and a template
    that flips every mutant (so it differs significantly)."""
    run = Run(tmp_path)
    keys = []
    for variant, flip_all in (("default", False), ("default-run2", False), ("alt1", True)):
        suite = Suite("inter-race+gender")
        rng = random.Random(11)
        for i in range(30):
            m = flip_all or rng.random() < 0.2
            case(suite, f"d{i}", (m, 0.9), [(rng.random() < 0.2, 0.9), (rng.random() < 0.2, 0.9)])
        paths = write_shards(tmp_path / "in" / variant, [suite])
        out = run.layout.outcomes("llama", "imdb", "inter-race+gender", variant)
        oracle.write_suite_outcomes(
            "inter-race+gender",
            meta={"task_type": "multi_class", "label_names": ["n", "p"]},
            output=out,
            **paths,
        )
        keys.append(variant)
    files = []
    for v in keys:
        files += outcome_files(
            RunLayout(run.layout.root), [("llama", "imdb", "inter-race+gender")], v
        )
    return files


def test_variants_match_plain_rates_and_flag_the_different_template(tmp_path):
    files = _variant_run(tmp_path)
    table = rq6.variants(
        rq6.variant_counts(files), ["llama"], ["imdb"], ["default", "default-run2", "alt1"], STATS
    ).data
    assert table["variant"].tolist() == ["default", "default-run2", "alt1"]
    for f, r in zip(files, table.itertuples(), strict=True):
        frame = pd.read_parquet(f.path)
        valid = frame[frame["valid"]]
        assert r.error_rate_pct == pytest.approx(100 * valid["biased"].mean())
        assert r.errors == int(valid["biased"].sum())
    rows = table.set_index("variant")
    assert rows.loc["default-run2", "error_rate_vs_default_difference"] == 0
    assert not rows.loc["default-run2", "error_rate_vs_default_significant"]
    assert rows.loc["alt1", "error_rate_vs_default_significant"]
    assert rows.loc["alt1", "error_rate_vs_default_p_value"] < 0.05
    assert pd.isna(rows.loc["default", "error_rate_vs_default_p_value"])
    assert rows.loc["default", "groups"] == "runs;prompts"
    assert rows.loc["alt1", "groups"] == "prompts"


def test_files_are_the_registered_ones_and_byte_identical(tmp_path):
    files = _variant_run(tmp_path)
    kwargs = {
        "models": ["llama"],
        "datasets": ["imdb"],
        "variant_names": ["default", "default-run2", "alt1"],
        "thresholds": [0.0, 0.5, 0.9],
        "rule": rates.EXCLUDE,
        "stats": STATS,
    }
    default = [f for f in files if f.variant == "default"]
    first = rq6.write_tables(files, default, tmp_path / "a", **kwargs)
    second = rq6.write_tables(files, default, tmp_path / "b", **kwargs)
    assert {p.name for p in first} == {
        f"{o.name}.{e}" for o in outputs.outputs(6, outputs.TABLE) for e in o.extensions
    }
    for a, b in zip(sorted(first), sorted(second), strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    thresholds = pd.read_csv(tmp_path / "a" / "thresholds.csv")
    assert set(thresholds["rule"]) == set(rates.THRESHOLD_RULES)
    assert len(thresholds) == 2 * 3
    figures = rq6_plots.write_figures(tmp_path / "a", tmp_path / "f1", rates.EXCLUDE)
    # a rerun, by the rules' one figure script (the threshold rule passed as an option), draws
    # the same bytes
    _run_figure_script(6, tmp_path / "a", tmp_path / "f2", [p.name for p in figures],
                       {"rule": rates.EXCLUDE})  # fmt: skip
    for a in figures:
        assert (tmp_path / "f2" / a.name).read_bytes() == a.read_bytes(), a.name
    with pytest.raises(ValueError, match="threshold_rule"):
        rq6.write_tables(files, default, tmp_path / "c", **{**kwargs, "rule": "drop"})


def _run_figure_script(rq: int, tables: Path, out: Path, names: list[str], options) -> None:
    """workflow/scripts/rq_figures.py as rule ``rq<rq>_figures`` runs it."""
    script = Path(__file__).resolve().parents[2] / "workflow" / "scripts" / "rq_figures.py"
    smk = SimpleNamespace(
        input=[str(tables / "variants.csv")],
        output=[str(out / n) for n in sorted(names)],
        params=SimpleNamespace(rq=rq, options=options),
        log=[str(out / "log.txt")],
    )
    runpy.run_path(str(script), init_globals={"snakemake": smk})


@pytest.mark.parametrize("config_file", ["demo.yaml", "config.yaml"])
def test_rq4_rq5_rq6_captions_render_with_the_runs_config_and_the_papers_numbers(repo, config_file):
    """Every RQ4-RQ6 caption renders (no undefined key) and quotes what it promises."""
    import jinja2

    from hinter.config import load_yaml, validate_config
    from hinter.rq import captions

    config = validate_config(load_yaml(repo / "config" / config_file))
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    text = {}
    for rq in (4, 5, 6):
        for output in outputs.outputs(rq):
            template = (repo / "workflow" / "report" / output.caption).read_text()
            snakemake = type("Snakemake", (), {"params": captions.params(rq, config)})
            text[(rq, output.name)] = env.from_string(template).render(snakemake=snakemake)
            assert config["run_name"] in text[(rq, output.name)], output.name
    assert "16.99%" in text[(4, "counterparts")] and "89,564 (26.6%)" in text[(4, "fig9")]
    assert "83.43%" in text[(4, "fig9")] and "E,B,E" in text[(4, "fig9_artifact")]
    assert "9.71%" in text[(4, "fig10")]
    table5 = text[(5, "table5")]
    assert "3.94%" in table5 and "22.26%" in table5 and "0.54%" in table5
    for name in ("thresholds", "fig12"):
        assert f"**{config['sensitivity']['threshold_rule']}**" in text[(6, name)]
        assert "E,B,B" in text[(6, name)]
    assert "3.43–3.44" in text[(6, "fig11")]


def test_accuracy_counts_each_original_once_and_keeps_what_clears_the_threshold(tmp_path):
    """Fig. 12 (c), (d): d0's original is right (0.9) and its mutant wrong (0.4); d1's
    original is right with 0.3 and its mutant right with 0.95."""
    from hinter import io, tables

    suite = Suite("inter-race+gender")
    case(suite, "d0", (True, 0.4), [(False, 0.9), (False, 0.9)], conf_original=0.9)
    case(suite, "d1", (False, 0.95), [(False, 0.9), (False, 0.9)], conf_original=0.3)
    path = tmp_path / "outcomes.parquet"
    io.write_parquet(suite.outcomes(), path, tables.OUTCOMES)
    # the same originals behind two suites of the order: counted once; mutants add up
    files = [OutcomeFile("m", "imdb", s, path) for s in ("inter-race+gender", "inter-body+race")]
    counts = rq6.accuracy_counts(files, [0.0, 0.5, 0.99])
    table = rq6.accuracy_table(counts, ["m"], ["imdb"], STATS).data.set_index("threshold_pct")
    assert table["originals"].tolist() == [2, 2, 2] and table["mutants"].tolist() == [4, 4, 4]
    assert table["originals_kept"].tolist() == [2, 1, 0]
    assert table["mutants_kept"].tolist() == [4, 2, 0]
    assert table.loc[0.0, "original_accuracy_pct"] == 100
    assert table.loc[0.0, "mutant_accuracy_pct"] == 50
    assert table.loc[50.0, "mutant_accuracy_pct"] == 100  # only d1's confident mutant is kept
    assert table.loc[50.0, "original_kept_pct"] == 50
    assert pd.isna(table.loc[99.0, "original_accuracy_pct"])  # nothing kept: no accuracy


def test_runs_group_and_labels_follow_the_runs_decoding(tmp_path):
    """F6: greedy repeats are labelled identical by design; sampled repeats form the runs group
    without the greedy default run (the paper's "three additional runs")."""
    files = _variant_run(tmp_path)
    names = ["default", "default-run2", "alt1"]
    counts = rq6.variant_counts(files)
    greedy = rq6.variants(counts, ["llama"], ["imdb"], names, STATS)
    assert greedy.data.set_index("variant").loc["default", "groups"] == "runs;prompts"
    assert (
        "runs (default, default-run2; greedy decoding: a local model's repeated runs are "
        "identical by design)" in greedy.markdown
    )
    sampled = rq6.variants(counts, ["llama"], ["imdb"], names, STATS, runs_decoding="sampled")
    groups = sampled.data.set_index("variant")["groups"]
    assert (groups["default"], groups["default-run2"]) == ("prompts", "runs")
    assert "runs (default-run2; sampled, one seed per run" in sampled.markdown
    with pytest.raises(ValueError, match="runs_decoding 'random'"):
        rq6.variants(counts, ["llama"], ["imdb"], names, STATS, runs_decoding="random")


def test_rq6_captions_say_how_the_runs_decode(repo):
    from hinter.config import load_yaml, validate_config
    from hinter.rq import captions

    paper = captions.settings(validate_config(load_yaml(repo / "config" / "config.yaml")))
    assert paper["sensitivity_decoding"].startswith(
        "4 run(s) of the default prompt, the default run included: the default run greedy "
        "(Table 3), its 3 repeat(s) sampled as the original did (temperature 0.6, top-p 0.9"
    )
    demo = captions.settings(validate_config(load_yaml(repo / "config" / "demo.yaml")))
    assert (
        "all greedy: a local model's repeats are identical to the default run by design"
        in (demo["sensitivity_decoding"])
    )


def test_a_run_without_variants_gets_headed_tables_and_drawn_figures(tmp_path):
    """No model with ``sensitivity`` variants or thresholds (config/study.yaml): every RQ6 CSV
    keeps its header, so the figure rule reads it and draws the "no variants" panel (the study
    once failed on a one-byte variants.csv)."""
    tables_dir, figures_dir = tmp_path / "tables", tmp_path / "figures"
    rq6.write_tables(
        [], [], tables_dir, models=["llama"], datasets=["imdb"], variant_names=["default"],
        thresholds=[0.5], rule=rates.EXCLUDE, stats=STATS,
    )  # fmt: skip
    header = (tables_dir / "variants.csv").read_text().splitlines()
    assert header[0].startswith("model,dataset,variant,groups,decided,errors")
    assert "error_rate_vs_default_p_value" in header[0] and len(header) == 1
    written = rq6_plots.write_figures(tables_dir, figures_dir, rates.EXCLUDE)
    assert {p.stem for p in written} == {"fig11", "fig12"}
