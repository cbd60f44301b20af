"""SBIC term extraction (per-annotation alignment, no cross-category leakage) and the demo SBIC."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hinter.demo import sbic as demo
from hinter.dictionary import sbic
from hinter.dictionary.terms import split_groups
from hinter.errors import DataError


def annotation(post: str, groups: str = "", category: str = "", worker: str = "1") -> dict:
    row = dict.fromkeys(sbic.ANNOTATION_COLUMNS, "")
    row.update(
        post=post,
        WorkerId=worker,
        targetMinority=groups,
        targetCategory=category,
        targetStereotype=f"{groups} implied" if groups else "",
        offensiveYN="1.0" if groups else "0.0",
        dataSource="t/test",
    )
    return row


# Post A targets black women: one worker names the race group, another the gender group. The
# aggregated row pools ["Black folks.", "women"] with ["gender", "race"]; crossing them (the
# paper's extractor) would put "women" into race and "black folks" into gender.
ROWS = [
    annotation("post A", "Black folks.", "race", "1"),
    annotation("post A", "women", "gender", "2"),
    annotation("post A", "", "", "3"),
    annotation("post B", "Women, (feminists)", "gender", "1"),
    annotation("post B", '"women"', "gender", "2"),
    annotation("post C", "black folks", "race", "1"),
    annotation("post C", "asian folks; black folks", "race", "2"),
    annotation("post D", "", "", "1"),
]


@pytest.fixture
def files(tmp_path):
    ann = tmp_path / "SBIC.v2.dev.csv"
    agg = tmp_path / "SBIC.v2.agg.dev.csv"
    sbic.write_csv(ann, sbic.ANNOTATION_COLUMNS, ROWS)
    sbic.write_csv(agg, sbic.AGGREGATED_COLUMNS, sbic.aggregate(ROWS))
    return ann, agg


def test_aggregate_follows_the_readme(files):
    _, agg = files
    with open(agg, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    assert header == list(sbic.AGGREGATED_COLUMNS) and header[0] == ""
    post_a = rows[0]
    assert post_a[:2] == ["0", "post A"]
    assert json.loads(post_a[2]) == ["Black folks.", "women"]
    assert json.loads(post_a[3]) == ["gender", "race"]
    assert post_a[8] == repr(2 / 3)  # offensiveYN mean over the three workers
    assert rows[3][1] == "post D" and rows[3][-1] == "1"  # hasBiasedImplication: 1 = none written


def test_extraction_aligns_per_annotation(files):
    ann, agg = files
    extraction = sbic.extract_mentions([ann], [agg])
    assert sbic.term_rows(extraction.mentions) == [
        ("gender", "feminists", "annotation", 1, 1),
        ("gender", "women", "annotation", 2, 3),
        ("race", "asian folks", "annotation", 1, 1),
        ("race", "black folks", "annotation", 2, 3),
    ]
    assert extraction.stats["posts"] == 4
    assert extraction.stats["posts_with_groups"] == 3
    # post A's crossing would add (gender, black folks) and (race, women).
    assert extraction.stats["cross_pairs_avoided"] == 2
    per_annotation = sbic.extract_mentions([ann], None)
    assert sbic.term_rows(per_annotation.mentions) == sbic.term_rows(extraction.mentions)


def test_aggregated_only_uses_single_category_then_majority(files, tmp_path):
    _, agg = files
    rows = sbic.term_rows(sbic.extract_mentions([], [agg]).mentions)
    assert rows == [
        ("gender", "feminists", "single_category", 1, None),
        ("gender", "women", "majority", 1, None),  # evidence: post B (gender only)
        ("gender", "women", "single_category", 1, None),
        ("race", "asian folks", "single_category", 1, None),
        ("race", "black folks", "majority", 1, None),  # evidence: post C (race only)
        ("race", "black folks", "single_category", 1, None),
    ]
    # Without evidence elsewhere, a multi-category post stays unresolved (never crossed).
    lonely = tmp_path / "SBIC.v2.agg.tst.csv"
    sbic.write_csv(lonely, sbic.AGGREGATED_COLUMNS, sbic.aggregate(ROWS[:3]))
    assert sbic.term_rows(sbic.extract_mentions([], [lonely]).mentions) == [
        ("gender+race", "black folks", "unresolved", 1, None),
        ("gender+race", "women", "unresolved", 1, None),
    ]


def test_extraction_outputs(files, tmp_path):
    ann, agg = files
    extraction = sbic.extract_mentions([ann], [agg])
    out = tmp_path / "out"
    sbic.write_extraction(extraction, out / "t.tsv", out / "m.parquet", out / "s.json")
    lines = (out / "t.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "category\tterm\tmethod\tposts\tannotations"
    assert lines[2] == "gender\twomen\tannotation\t2\t3"
    assert sbic.read_mentions(out / "m.parquet") == extraction.mentions
    assert {m.split for m in extraction.mentions} == {"dev"}
    assert all("post" not in m.post_id for m in extraction.mentions)  # texts are not copied


def test_bad_sbic_files(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        list(sbic.read_aggregated(tmp_path / "nope.csv"))
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("text,label\nhello,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"wrong.csv:1: missing column\(s\) post, targetMinority"):
        list(sbic.read_annotations(wrong))
    bad = tmp_path / "SBIC.v2.agg.dev.csv"
    bad.write_text(
        ',post,targetMinority,targetCategory\n0,"multi\nline post","[""women""]","[""gender""]"\n'
        '1,p,women,"[""gender""]"\n',
        encoding="utf-8",
    )
    with pytest.raises(
        DataError, match=r"SBIC.v2.agg.dev.csv:4: targetMinority is not a JSON list"
    ):
        list(sbic.read_aggregated(bad))


@pytest.mark.parametrize(
    ("cell", "terms"),
    [
        ("Black folks.", ["black folks"]),
        ('"women", (feminists)', ["women", "feminists"]),
        ("asian folks; Asian Folks", ["asian folks"]),
        ("9/11 victims", ["9/11 victims"]),
        ("women's rights activists...", ["women's rights activists"]),
        (" , ;  .. ", []),
        ("[jews]", ["jews"]),
    ],
)
def test_split_groups(cell, terms):
    assert split_groups(cell) == terms


@given(st.text(alphabet="abAB ,;.\"'()[]/-", max_size=30))
def test_split_groups_is_stable(cell):
    terms = split_groups(cell)
    assert split_groups(", ".join(terms)) == terms
    for term in terms:
        assert term == term.lower().strip() and term
        assert not set(term) & set('"()[]{},;')
        assert term[0] not in ".-'" and term[-1] not in ".-'"


# --- the synthetic SBIC of the demo ---------------------------------------------------------


def test_demo_is_deterministic_and_in_the_real_format(tmp_path):
    a = demo.write_split(tmp_path / "a.csv", tmp_path / "a.agg.csv", 120, 7, "dev")
    b = demo.write_split(tmp_path / "b.csv", tmp_path / "b.agg.csv", 120, 7, "dev")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.agg.csv").read_bytes() == (tmp_path / "b.agg.csv").read_bytes()
    assert a.truth == b.truth
    other = demo.generate(120, 7, "tst")
    assert other.annotations != a.annotations
    with open(tmp_path / "a.csv", encoding="utf-8", newline="") as f:
        assert next(csv.reader(f)) == list(sbic.ANNOTATION_COLUMNS)
    with open(tmp_path / "a.agg.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 120
    assert all(isinstance(json.loads(r["targetMinority"]), list) for r in rows)
    assert {c for r in rows for c in json.loads(r["targetCategory"])} == set(demo.GROUPS)
    assert any(len(json.loads(r["targetCategory"])) > 1 for r in rows)
    assert Counter(
        len({r["WorkerId"] for r in a.annotations if r["post"] == p})
        for p in {r["post"] for r in a.annotations}
    ) == {3: 120}


def test_demo_extraction_has_no_cross_category_leakage(tmp_path):
    split = demo.write_split(
        tmp_path / "SBIC.v2.dev.csv", tmp_path / "SBIC.v2.agg.dev.csv", 300, 3, "dev"
    )
    extraction = sbic.extract_mentions(
        [tmp_path / "SBIC.v2.dev.csv"], [tmp_path / "SBIC.v2.agg.dev.csv"]
    )
    home = {g: c for c, groups in demo.GROUPS.items() for g in groups}
    assert {m.method for m in extraction.mentions} == {"annotation"}
    assert all(home[m.term] == m.category for m in extraction.mentions)
    expected: dict[tuple[str, str], set[str]] = defaultdict(set)
    for post, category, group in split.truth:
        expected[(category, group)].add(sbic.post_id(post))
    found: dict[tuple[str, str], set[str]] = defaultdict(set)
    for m in extraction.mentions:
        found[(m.category, m.term)].add(m.post_id)
    assert found == expected
    assert extraction.stats["cross_pairs_avoided"] > 0
    # The aggregated file alone still never crosses: every attribution is exact or by evidence.
    alone = sbic.extract_mentions([], [tmp_path / "SBIC.v2.agg.dev.csv"])
    assert all(home[m.term] == m.category for m in alone.mentions if m.method != "unresolved")
