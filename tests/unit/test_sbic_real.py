"""SBIC mined for real: the extraction on the real dev split (../shared/real/sbic), checked
against counts derived independently here with plain pandas, and the archive's member digests."""

from __future__ import annotations

import csv
from collections import Counter

import pandas as pd
import pytest
from loopback_hub import real_path

from hinter.config import REPO_ROOT
from hinter.dictionary import sbic

AGG, ANN = "SBIC.v2.agg.dev.csv", "SBIC.v2.dev.csv"


@pytest.fixture(scope="module")
def dev():
    folder = real_path("sbic")
    return real_path("sbic", ANN), real_path("sbic", AGG), folder


@pytest.fixture(scope="module")
def frames(dev):
    ann, agg, _ = dev
    read = {"keep_default_na": False, "dtype": str}
    return pd.read_csv(ann, **read), pd.read_csv(agg, **read)


@pytest.fixture(scope="module")
def extraction(dev):
    ann, agg, _ = dev
    return sbic.extract_mentions([ann], [agg])  # what the workflow runs (aggregated: true)


def test_recorded_member_digests_are_the_real_files(dev):
    recorded = sbic.read_checksums(REPO_ROOT / "resources" / "sbic" / "checksums.sha256")
    for name in (ANN, AGG):
        assert sbic.sha256_of(real_path("sbic", name)) == recorded[name], name


def test_aggregating_the_annotations_rebuilds_the_authors_file_byte_for_byte(dev, tmp_path):
    """The '7 more posts' gap: the 7 dev posts nobody rated for offensiveness are not in the
    authors' aggregated file; hinter.dictionary.sbic.aggregate now leaves them out too."""
    ann, agg, _ = dev
    with ann.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    posts = {r["post"] for r in rows}
    rated = {r["post"] for r in rows if r["offensiveYN"]}
    assert len(posts) == 4673 and len(rated) == 4666  # 7 posts nobody rated
    out = tmp_path / AGG
    sbic.write_csv(out, sbic.AGGREGATED_COLUMNS, sbic.aggregate(rows))
    assert sbic.sha256_of(out) == sbic.sha256_of(agg)


def _pandas_terms(frames) -> pd.DataFrame:
    """(post, category, term) of every annotation row with one SBIC category, in plain pandas."""
    ann, agg = frames
    ann = ann[ann["post"].isin(set(agg["post"]))]
    category = ann["targetCategory"].str.lower().str.strip()
    ann = ann[category.isin(sbic.CATEGORIES)].assign(category=category)
    out = ann.assign(term=ann["targetMinority"].str.lower().str.split(r"[,;\n]", regex=True))
    out = out.explode("term")
    term = out["term"].str.replace(r"[\"“”„`´()\[\]{}<>]", " ", regex=True)
    term = term.str.replace(r"\s+", " ", regex=True).str.strip(" .'’‘*:!?-_").str.strip()
    out = out.assign(term=term.str.replace(r"\s+", " ", regex=True))
    return out[out["term"] != ""][["post", "category", "term"]]


def test_per_category_counts_match_an_independent_pandas_count(frames, extraction):
    expected = _pandas_terms(frames)
    rows = sbic.term_rows(extraction.mentions)
    assert {m for *_, m, _p, _n in rows} == {"annotation"}  # every real row has one category
    got = {(c, t): posts for c, t, _m, posts, _n in rows}
    assert got == expected.groupby(["category", "term"])["post"].nunique().to_dict()
    got_posts = Counter()
    for category in sbic.CATEGORIES:
        got_posts[category] = len(
            {m.post_id for m in extraction.mentions if m.category == category}
        )
    want_posts = expected.groupby("category")["post"].nunique()
    assert dict(got_posts) == {c: int(want_posts.get(c, 0)) for c in sbic.CATEGORIES}
    # The figures as of the real dev split (they change only if the data or the rules do).
    assert extraction.stats["posts"] == 4666
    assert extraction.stats["mentions_annotation"] == 2531
    assert len(got) == 272
    annotations = {(c, t): n for c, t, _m, _p, n in rows}
    want_annotations = expected.groupby(["category", "term"]).size().to_dict()
    assert annotations == want_annotations


def _published_words(attribute: str) -> set[str]:
    """Every word of the paper's published dictionary files (classes and both pair sides)."""
    folder = real_path("..", "reference", "hinter-dictionary", attribute)
    words = set()
    for path in folder.glob("*.csv"):
        for line in path.read_text(encoding="ascii").splitlines():
            words.update(w.strip().lower() for w in line.split(";") if w.strip())
    return words


def test_coverage_compares_sbic_with_the_published_dictionary(frames, extraction):
    from hinter.dictionary import coverage
    from hinter.dictionary.pairs import compile_dictionary, load_attributes

    attributes = ["race", "gender", "body"]
    resources = REPO_ROOT / "resources" / "dictionary"
    compiled = compile_dictionary(attributes, resources)
    report = coverage.build_report(
        load_attributes(attributes, resources),
        compiled.table,
        compiled.notes,
        extraction.mentions,
    )
    terms = _pandas_terms(frames)
    for attribute in attributes:
        sbic_terms = set(
            terms.loc[terms["category"].isin(coverage.DEFAULT_CATEGORIES[attribute]), "term"]
        )
        published = _published_words(attribute)
        got = report.overlap[attribute]
        assert got["sbic_terms"] == len(sbic_terms)
        assert set(got["shared"]) == published & sbic_terms, attribute
        # whole words between spaces (the report's definition: "native american/first nation
        # folks" does not name "native american", which stays unsupported)
        padded = [f" {t} " for t in sbic_terms]
        unsupported = {w for w in published if not any(f" {w} " in t for t in padded)}
        assert {w.lower() for w in got["unsupported"]} == unsupported, attribute
        assert f"- {attribute}, not supported by SBIC: " in report.markdown
