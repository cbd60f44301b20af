"""The grammar score: its definition, Harper on sentences with known issues, the score cache,
the balanced sample and the scoring stage on a small run written to disk."""

from __future__ import annotations

import math
import random
import sqlite3

import pandas as pd
import pyarrow as pa
import pytest
from oracle_cases import Suite

from hinter import io, rates, tables
from hinter.errors import ConfigError, DataError
from hinter.grammar import (
    CATEGORIES,
    COUNTED,
    SCORES,
    Issue,
    SampleOptions,
    count_words,
    draw,
    make_checker,
    pooled_score,
    score,
    score_sample,
)
from hinter.grammar.cache import ScoreCache
from hinter.grammar.checkers import HARPER_CATEGORIES
from hinter.grammar.stage import check_texts


@pytest.fixture(scope="module")
def harper():
    checker = make_checker("harper")
    yield checker
    checker.close()


# -- the score --------------------------------------------------------------------------------


def test_words_are_letter_runs_joined_by_inner_apostrophes_and_hyphens():
    assert count_words("Don’t stop, forty-two times!") == 4
    assert count_words("The applicant (born 1970) - a 'teacher'.") == 6
    assert count_words("  ... ") == 0
    assert count_words("Über naïve Zoë") == 3


def test_score_definition():
    assert score(0, 10) == 100.0
    assert score(1, 4) == 75.0
    assert score(9, 3) == 0.0  # clipped: more issues than words
    assert math.isnan(score(0, 0))
    # pooled = word-weighted mean of the texts' scores
    texts = [(1, 10), (0, 30), (3, 60)]
    weighted = sum(score(i, w) * w for i, w in texts) / sum(w for _, w in texts)
    assert pooled_score([i for i, _ in texts], [w for _, w in texts]) == pytest.approx(weighted)


def test_counted_categories_are_a_subset_and_issues_reject_unknown_ones():
    assert set(COUNTED) <= set(CATEGORIES)
    assert "spelling" not in COUNTED and "style" not in COUNTED
    with pytest.raises(ValueError, match="category"):
        Issue("syntax", "X")


# -- Harper, for real -------------------------------------------------------------------------

KNOWN = [
    ("She were happy with the result.", "Agreement", "grammar"),
    ("A Andorran man walked into the court.", "Miscellaneous", "grammar"),  # a/an
    ("The the applicant complained.", "Repetition", "grammar"),
    ("He go to school every day.", "Agreement", "grammar"),
    ("We could of gone home.", "WordChoice", "grammar"),
    ("Hello ,world.", "Punctuation", "punctuation"),
    ("Yesterday i saw the judge.", "Capitalization", "casing"),
    ("Teh court dismissed it.", "Typo", "spelling"),
]


@pytest.mark.parametrize(("text", "kind", "category"), KNOWN)
def test_harper_flags_known_issues(harper, text, kind, category):
    issues = harper.check(text)
    assert [(i.rule, i.category) for i in issues] == [(kind, category)]
    assert HARPER_CATEGORIES[kind] == category


def test_harper_passes_clean_sentences(harper):
    for text in (
        "The court held that the applicant was not entitled to a remedy.",
        "She was happy with the result, and her brother agreed.",
        "An Andorran woman thanked her mother.",
    ):
        assert harper.check(text) == [], text


def test_harper_identity_and_version(harper):
    assert harper.identity == "harper/american/plaintext"
    assert harper.version == "0.2.0"
    with pytest.raises(ConfigError, match=r"grammar\.harper\.dialect"):
        make_checker("harper", {"dialect": "martian"})
    with pytest.raises(ConfigError, match=r"grammar\.checker"):
        make_checker("grammarly")


def test_a_mutation_that_breaks_grammar_lowers_the_score(harper):
    original = "A European man and his sister were at the hearing."
    mutant = "A Andorran man and his sister were at the hearing."
    counts = check_texts([original, mutant], harper)
    o = score(sum(counts[original][c] for c in COUNTED), count_words(original))
    m = score(sum(counts[mutant][c] for c in COUNTED), count_words(mutant))
    assert o == 100.0 and m == pytest.approx(100 * (1 - 1 / 10))


# -- the cache --------------------------------------------------------------------------------


class CountingChecker:
    """A stand-in that flags every occurrence of "were" (to count the checker's calls)."""

    name = "counting"
    identity = "counting/test"
    version = "1"

    def __init__(self):
        self.calls = 0

    def check(self, text):
        self.calls += 1
        return [Issue("grammar", "WERE")] * text.count("were")

    def close(self):
        pass


def test_cache_checks_each_text_once_per_checker_version(tmp_path):
    path = tmp_path / "grammar.sqlite"
    checker = CountingChecker()
    texts = ["they were", "it was", "they were", "we were were"]
    with ScoreCache(path, checker.identity, checker.version) as cache:
        first = check_texts(texts, checker, cache)
    assert checker.calls == 3  # distinct texts
    with ScoreCache(path, checker.identity, checker.version) as cache:
        again = check_texts(texts, checker, cache)
    assert checker.calls == 3 and again == first
    assert first["we were were"]["grammar"] == 2
    checker.version = "2"  # a new version never reuses the old verdicts
    with ScoreCache(path, checker.identity, checker.version) as cache:
        check_texts(texts, checker, cache)
    assert checker.calls == 6


def test_a_damaged_cache_entry_is_checked_again_and_replaced(tmp_path, caplog):
    """Rows are validated on read (hinter.store): a damaged one is a miss, never a crash."""
    path = tmp_path / "grammar.sqlite"
    counts = dict.fromkeys(CATEGORIES, 0)
    with ScoreCache(path, "c", "1") as cache:
        cache.put_many([("text", counts), ("other", counts)])
    db = sqlite3.connect(path)
    db.execute("UPDATE scores SET counts = '{\"grammar\": -1}'")
    db.commit()
    db.close()
    with ScoreCache(path, "c", "1") as cache:
        assert cache.get_many(["text", "other"]) == {}
        assert "2 damaged grammar score cache entries ignored" in caplog.text
        cache.put_many([("text", counts)])
        assert cache.get_many(["text", "other"]) == {"text": counts}


# -- the sample -------------------------------------------------------------------------------

WORDS = {"race": ("European", "Andorran"), "gender": ("man", "woman"), "body": ("young", "old")}
SENTENCE = "A European man met a young judge. The European man was calm."
SUITES = ("atomic-body", "atomic-gender", "atomic-race", "inter-race+gender")


def build_run(n_docs=60, seed=0, long_docs=()):
    """Suites of random validity and outcomes over shared documents (oracle_cases.Suite)."""
    rng = random.Random(seed)
    suites = {name: Suite(name) for name in SUITES}
    for d in range(n_docs):
        doc = f"d{d:03d}"
        text = SENTENCE * (40 if doc in long_docs else 1)
        original = rng.choice([(0,), (1,)])
        for name, suite in suites.items():
            suite.doc(doc, text, pred=original)
            attrs = name.split("-")[1].split("+")

            def pred(original=original):
                return (1 - original[0],) if rng.random() < 0.3 else original

            if len(attrs) == 1:
                suite.atomic(
                    doc, attrs[0], *WORDS[attrs[0]], valid=rng.random() < 0.5, pred=pred(),
                    role="mutant",
                )  # fmt: skip
            else:
                parents = [
                    suite.atomic(doc, a, *WORDS[a], valid=rng.random() < 0.8, pred=pred())
                    for a in attrs
                ]
                suite.inter(doc, parents, valid=rng.random() < 0.5, pred=pred())
    return suites


def outcome_frame(suites):
    frames = []
    for name, suite in suites.items():
        frame = suite.outcomes().to_pandas()
        frame["suite"] = name
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_sample_is_balanced_over_suites_and_a_quarter_bias_inducing():
    frame = outcome_frame(build_run(n_docs=200))
    chars = pd.Series(len(SENTENCE), index=frame["doc_id"].unique())
    options = SampleOptions(valid=80, discarded=40, bias_share=0.25, per_document=1, seed=3)
    sample = draw(frame, chars, options)
    m = sample.mutants
    per_cell = m.groupby(["suite", "valid"]).size()
    assert per_cell.xs(True, level="valid").tolist() == [20] * 4
    assert per_cell.xs(False, level="valid").tolist() == [10] * 4
    for (_, valid), cell in m.groupby(["suite", "valid"]):
        assert cell["biased"].sum() == (5 if valid else round(0.25 * 10))
        assert cell["doc_id"].is_unique  # per_document = 1
    # originals: one row per (doc, order) of the sampled mutants, flagged from the full suites
    assert set(map(tuple, sample.originals[["doc_id", "order"]].values)) == set(
        map(tuple, m[["doc_id", "order"]].drop_duplicates().values)
    )
    flags = rates.document_flags(frame, by=["order"]).set_index(["order", "doc_id"])
    unknown = 0
    for row in sample.originals.itertuples():
        flag = flags.loc[(row.order, row.doc_id)]
        if flag["tested"]:
            assert row.biased == flag["bias_inducing"]
        else:  # no valid mutant with a known outcome: neither bias-inducing nor benign
            assert row.biased is pd.NA
            unknown += 1
    assert 0 < unknown < len(sample.originals)
    assert sample.stats["sampled"]["mutants"] == 120


def test_sample_is_seeded_and_independent_of_row_order():
    frame = outcome_frame(build_run(n_docs=120, seed=1))
    chars = pd.Series(len(SENTENCE), index=frame["doc_id"].unique())
    options = SampleOptions(valid=40, discarded=40, seed=9)
    a = draw(frame, chars, options).mutants
    b = draw(frame.sample(frac=1.0, random_state=4), chars, options).mutants
    pd.testing.assert_frame_equal(a, b)
    c = draw(frame, chars, SampleOptions(valid=40, discarded=40, seed=10)).mutants
    assert set(a["mutant_id"]) != set(c["mutant_id"])


def test_sample_fills_a_short_pool_and_keeps_suites_balanced():
    frame = outcome_frame(build_run(n_docs=30, seed=2))
    chars = pd.Series(len(SENTENCE), index=frame["doc_id"].unique())
    sample = draw(frame, chars, SampleOptions(valid=1000, discarded=0, per_document=1))
    m = sample.mutants
    valid = frame[frame["valid"]]
    # each suite has fewer valid mutants than its quota (250): all of them are taken
    assert m.groupby("suite").size().to_dict() == valid.groupby("suite").size().to_dict()
    cell = sample.stats["cells"]["atomic-race"]["valid"]
    assert cell["quota"] == 250 and sum(cell["sampled"].values()) == sum(cell["available"].values())


def test_sample_skips_long_documents_and_counts_them():
    run = build_run(n_docs=40, long_docs={"d001", "d002"})
    frame = outcome_frame(run)
    ids = frame["doc_id"].unique()
    chars = pd.Series([len(SENTENCE) * (40 if d in {"d001", "d002"} else 1) for d in ids], ids)
    sample = draw(frame, chars, SampleOptions(valid=400, discarded=400, max_chars=1000))
    assert not {"d001", "d002"} & set(sample.mutants["doc_id"])
    skipped = sample.stats["skipped_long"]
    assert skipped == {"documents": 2, "mutants": int(frame["doc_id"].isin(["d001", "d002"]).sum())}
    with pytest.raises(ValueError, match="not among the tested documents"):
        draw(frame, chars.drop("d005"), SampleOptions())


def test_options_are_checked():
    with pytest.raises(ValueError, match="bias_share"):
        SampleOptions(bias_share=1.5)
    with pytest.raises(ValueError, match="per_document"):
        SampleOptions(per_document=0)
    with pytest.raises(ValueError, match=r"document share 3 outside 0\.\.2"):
        SampleOptions(part=3, parts=3)


def test_disjoint_shares_give_each_model_its_own_documents():
    """F13 (grammar.sample.disjoint): three models of a dataset draw from disjoint seeded shares
    of the documents, so their samples hold distinct texts; each share stays balanced over the
    suites. Without shares, every model draws the same documents."""
    frame = outcome_frame(build_run(n_docs=300, seed=5))
    chars = pd.Series(len(SENTENCE), index=frame["doc_id"].unique())
    common = dict(valid=40, discarded=40, per_document=1, seed=3)
    samples = [draw(frame, chars, SampleOptions(**common, part=k, parts=3)) for k in range(3)]
    docs = [set(s.mutants["doc_id"]) for s in samples]
    assert all(docs) and not (docs[0] & docs[1] or docs[0] & docs[2] or docs[1] & docs[2])
    for sample in samples:
        assert sample.mutants.groupby(["suite", "valid"]).size().tolist() == [10] * 8
        assert sample.stats["other_shares"] > 0
    same = [draw(frame, chars, SampleOptions(**common)) for _ in range(2)]
    assert set(same[0].mutants["doc_id"]) == set(same[1].mutants["doc_id"])


def test_the_paper_config_draws_disjoint_shares(repo):
    from hinter import plan
    from hinter.config import load_yaml, validate_config
    from hinter.plan import document_share, grammar_runs

    config = validate_config(load_yaml(repo / "config" / "config.yaml"))
    assert config["grammar"]["sample"]["disjoint"] is True
    runs = grammar_runs(config)
    shares = {(r.model, r.dataset): document_share(runs, config, r.model, r.dataset) for r in runs}
    scotus = sorted(v for (m, d), v in shares.items() if d == "scotus")
    assert scotus == [(k, 6) for k in range(6)]  # 4 encoders and 2 LLMs
    options = SampleOptions.from_config(config, shares[("llama2", "scotus")])
    assert (options.part, options.parts, options.max_chars) == (4, 6, 32680)
    demo = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    demo_runs = grammar_runs(demo)
    first = demo_runs[0]
    assert document_share(demo_runs, demo, first.model, first.dataset) == (0, 1)
    assert isinstance(plan.model_runs(config), list)


# -- the stage, on a run written to disk, with Harper -----------------------------------------


def write_run(tmp_path, suites):
    """Tested documents, mutants and outcomes of every suite, as the workflow writes them."""
    docs = {}
    paths = {"outcomes": [], "mutants": {}}
    for name, suite in suites.items():
        mutants, _, _, documents = suite.tables()
        for row in documents.to_pylist():
            docs[row["doc_id"]] = row
        mpath = tmp_path / "mutants" / f"{name}.parquet"
        io.write_parquet(mutants, mpath, tables.MUTANTS)
        paths["mutants"][name] = [mpath]
        opath = tmp_path / "outcomes" / f"{name}.parquet"
        io.write_parquet(suite.outcomes(), opath, tables.OUTCOMES)
        paths["outcomes"].append((name, opath))
    rows = list(docs.values())
    half = len(rows) // 2
    paths["docs"] = []
    for shard, part in (("000", rows[:half]), ("001", rows[half:])):
        dpath = tmp_path / "tested" / f"{shard}.parquet"
        io.write_parquet(pa.Table.from_pylist(part, schema=tables.TESTED_DOCUMENTS), dpath)
        paths["docs"].append(dpath)
    return paths


def test_stage_scores_originals_and_mutants_with_harper(tmp_path, harper):
    suites = build_run(n_docs=24, seed=5)
    paths = write_run(tmp_path, suites)
    out, summary = tmp_path / "scores.parquet", tmp_path / "scores.json"
    options = SampleOptions(valid=16, discarded=16, per_document=2, seed=1)
    kwargs = dict(
        outcomes=paths["outcomes"], mutants=paths["mutants"], docs=paths["docs"],
        checker=harper, options=options, output=out, summary=summary,
        cache_path=tmp_path / "cache" / "grammar.sqlite",
    )  # fmt: skip
    table = score_sample(**kwargs)
    assert table.schema == SCORES
    frame = table.to_pandas()
    originals = frame[frame["kind"] == "original"]
    mutants = frame[frame["kind"] == "mutant"]
    assert len(mutants) == 32 and len(originals) > 0
    # the originals are clean; race and body mutants say "A Andorran man", "a old judge"
    assert (originals["score"] == 100.0).all()
    article = mutants["attributes"].map(lambda a: bool({"race", "body"} & set(a)))
    broken, fine = mutants[article], mutants[~article]
    assert len(broken) and (broken["issues_grammar"] == 1).all()
    assert broken["score"].tolist() == pytest.approx([100 * (1 - 1 / 12)] * len(broken))
    assert len(fine) and (fine["issues"] == 0).all()
    assert (frame["words"] == count_words(SENTENCE)).all()
    stats = io.read_json(summary)
    assert stats["checker"] == {"identity": "harper/american/plaintext", "version": "0.2.0"}
    # a rerun (every text cached) writes the same bytes
    first = out.read_bytes()
    score_sample(**kwargs)
    assert out.read_bytes() == first


def test_stage_names_a_mutant_missing_from_its_shards(tmp_path, harper):
    suites = build_run(n_docs=6, seed=6)
    paths = write_run(tmp_path, suites)
    empty = tmp_path / "mutants" / "empty.parquet"
    io.write_parquet(tables.MUTANTS.empty_table(), empty)
    paths["mutants"]["atomic-race"] = [empty]
    with pytest.raises(DataError, match=r"atomic-race: mutant \w+ of the outcomes is in no"):
        score_sample(
            outcomes=paths["outcomes"], mutants=paths["mutants"], docs=paths["docs"],
            checker=harper, options=SampleOptions(valid=40, discarded=40),
            output=tmp_path / "s.parquet", summary=tmp_path / "s.json",
        )  # fmt: skip
    assert not (tmp_path / "s.parquet").exists()


# -- the config section -----------------------------------------------------------------------


def test_grammar_runs_follow_the_config(repo):
    from hinter import plan
    from hinter.config import load_yaml, validate_config
    from hinter.grammar import checker_settings
    from hinter.plan import grammar_runs

    paper = validate_config(load_yaml(repo / "config" / "config.yaml"))
    runs = grammar_runs(paper)
    assert {r.dataset for r in runs} == {"ecthr_a", "scotus", "eurlex", "ledgar"}
    assert len(runs) == 24  # (4 encoders + 2 LLMs) x 4 legal datasets
    assert checker_settings(paper) == ("harper", {"dialect": "american"})
    assert SampleOptions.from_config(paper) == SampleOptions(2800, 2800, 0.25, 2, 32680, 42)
    demo = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    assert {(r.model, r.dataset) for r in grammar_runs(demo)} == {
        (r.model, r.dataset) for r in plan.model_runs(demo)
    }
    only = dict(paper, grammar={**paper["grammar"], "models": ["bert"], "datasets": ["scotus"]})
    assert [(r.model, r.dataset) for r in grammar_runs(only)] == [("bert", "scotus")]
    # a run narrowed to other datasets keeps its grammar section valid: nothing to score
    narrowed = validate_config({**paper, "datasets": ["imdb"]})
    assert grammar_runs(narrowed) == []
    for key, value, message in (
        ("datasets", ["sst2"], "'grammar.datasets': unknown dataset 'sst2'"),
        ("models", ["gpt5"], "'grammar.models': unknown model 'gpt5'"),
    ):
        bad = dict(paper, grammar={**paper["grammar"], key: value})
        with pytest.raises(ConfigError, match=message):
            grammar_runs(bad)


def test_pooled_scores_are_word_weighted_with_document_intervals():
    from hinter.grammar.summary import pooled_scores

    rows = []
    for d in range(200):
        # originals: 10 words, no issue; mutants: 20 words, one issue in every fourth document
        rows.append({"kind": "original", "doc_id": f"d{d}", "words": 10, "issues": 0})
        rows.append({"kind": "mutant", "doc_id": f"d{d}", "words": 20, "issues": int(d % 4 == 0)})
    frame = pd.DataFrame(rows)
    frame["score"] = [score(i, w) for i, w in zip(frame["issues"], frame["words"], strict=True)]
    table = pooled_scores(frame, by=["kind"], resamples=500, seed=1).set_index("kind")
    o, m = table.loc["original"], table.loc["mutant"]
    assert (o["score"], o["low"], o["high"], o["texts"]) == (100.0, 100.0, 100.0, 200)
    assert m["score"] == pytest.approx(100 * (1 - 50 / 4000))
    assert m["mean_score"] == pytest.approx(frame[frame["kind"] == "mutant"]["score"].mean())
    assert m["low"] < m["score"] < m["high"] < 100
    pooled = pooled_scores(frame, by=[], resamples=50)
    assert pooled["score"].iloc[0] == pytest.approx(100 * (1 - 50 / 6000))


def test_per_document_cap_yields_when_a_pool_has_too_few_documents():
    from hinter.grammar.sample import _take

    pool = pd.DataFrame({"doc_id": ["a"] * 5 + ["b"] * 2, "mutant_id": list("1234567")})
    assert _take(pool, 4, 2)["mutant_id"].tolist() == ["1", "2", "6", "7"]  # 2 per document
    assert _take(pool, 6, 2)["mutant_id"].tolist() == ["1", "2", "6", "7", "3", "4"]
    assert _take(pool, 9, 2)["mutant_id"].tolist() == ["1", "2", "6", "7", "3", "4", "5"]
    assert _take(pool, 0, 2).empty


def test_an_interrupted_check_keeps_what_it_had_checked(tmp_path):
    from hinter.errors import HinterError

    class Failing(CountingChecker):
        def check(self, text):
            if text == "boom":
                raise HinterError("LanguageTool at http://x/v2/: connection reset")
            return super().check(text)

    path, texts = tmp_path / "grammar.sqlite", ["they were", "it was", "boom", "we were"]
    failing = Failing()
    with (
        ScoreCache(path, failing.identity, failing.version) as cache,
        pytest.raises(HinterError, match="connection reset"),
    ):
        check_texts(texts, failing, cache)
    resumed = CountingChecker()
    with ScoreCache(path, resumed.identity, resumed.version) as cache:
        check_texts([t.replace("boom", "fine") for t in texts], resumed, cache)
    assert failing.calls == 2 and resumed.calls == 2  # "fine" and "we were" only
