"""Coverage report: SBIC support of curated terms, curation candidates, per-attribute counts."""

from __future__ import annotations

import functools

from hinter.config import REPO_ROOT
from hinter.dictionary import coverage
from hinter.dictionary.pairs import compile_dictionary, load_attributes
from hinter.dictionary.sbic import Mention

RESOURCES = REPO_ROOT / "resources" / "dictionary"


def mention(post: str, category: str, term: str, method: str = "annotation", n: int | None = 1):
    return Mention(post, "dev", category, term, method, n)


MENTIONS = [
    mention("p1", "race", "black folks", n=2),
    mention("p2", "race", "black folks"),
    mention("p2", "race", "black women"),
    mention("p3", "race", "black", "single_category", None),
    mention("p4", "race", "latino folks"),
    mention("p5", "race", "latino folks", "majority", None),
    mention("p6", "race", "latino folks"),
    mention("p7", "gender+race", "white", "unresolved", None),  # never attributed
    mention("p8", "gender", "women"),
    mention("p8", "gender", "feminists"),
    mention("p9", "gender", "feminists"),
    mention("p9", "social", "poor folks"),
    mention("p10", "social", "poor folks"),
    mention("p11", "culture", "muslims"),
]


@functools.cache
def compiled_race_gender():
    attributes = ["race", "gender"]
    return compile_dictionary(attributes, RESOURCES), load_attributes(attributes, RESOURCES)


def report(min_support=2, categories=None):
    compiled, specs = compiled_race_gender()
    return coverage.build_report(
        specs,
        compiled.table,
        compiled.notes,
        MENTIONS,
        categories=categories,
        min_support=min_support,
        context={"pairing": "as_published"},
    )


def test_support_counts_distinct_posts_exact_and_contained():
    rows = {(r[0], r[2]): r for r in report().terms}
    black = rows[("race", "black")]
    assert black[1] == "minority" and black[4] == "culture+race"
    assert (black[5], black[6]) == (1, 3)  # exact: p3; contained: p1, p2, p3 (p2 counted once)
    assert black[7].startswith("black folks (race): 2")
    assert rows[("race", "white")][5:7] == (0, 0)  # the unresolved mention is not support
    assert rows[("gender", "women")][5:7] == (1, 1)
    assert rows[("gender", "CEO")][1] == "male_job"
    assert len([r for r in report().terms if r[0] == "race"]) == 116


def test_candidates_respect_threshold_mapping_and_coverage():
    candidates = report().candidates
    assert ("race", "race", "latino folks", 3, 2, "annotation+majority") in candidates
    assert ("gender", "gender", "feminists", 2, 2, "annotation") in candidates
    assert ("-", "social", "poor folks", 2, 2, "annotation") in candidates  # no attribute maps it
    terms = {c[2] for c in candidates}
    assert not {"black folks", "black women", "women", "muslims"} & terms  # covered or below 2
    assert {c[2] for c in report(min_support=4).candidates} == set()
    remapped = report(categories={"race": ["race"], "gender": ["gender", "social"]}).candidates
    assert ("gender", "social", "poor folks", 2, 2, "annotation") in remapped


def test_summary_and_markdown(tmp_path):
    rep = report()
    summary = {r[0]: r for r in rep.summary}
    assert summary["race"][:8] == ("race", "builtin", 8, 116, 3996, 3996, 3996, 116)
    assert summary["gender"][:8] == ("gender", "builtin", 4, 217, 1104, 1104, 1102, 215)
    assert summary["race"][9] == 1  # only "black" has support
    for heading in (
        "## Per attribute",
        "### Self-pairs dropped",
        "## race: curated terms",
        "## Curation candidates",
    ):
        assert heading in rep.markdown
    coverage.write_report(rep, *(tmp_path / n for n in ("c.md", "t.tsv", "k.tsv", "s.tsv")))
    assert (tmp_path / "t.tsv").read_text(encoding="utf-8").startswith("attribute\tclass\tterm\t")
    assert (tmp_path / "c.md").read_text(encoding="utf-8") == rep.markdown


def test_unmapped_custom_attribute_draws_support_from_every_category(tmp_path):
    (tmp_path / "c.txt").write_text("christians\n", encoding="utf-8")
    (tmp_path / "m.txt").write_text("muslims\n", encoding="utf-8")
    custom = {
        "religion": {
            "classes": {"c": "c.txt", "m": "m.txt"},
            "pairings": [["c", "m"], ["m", "c"]],
        }
    }
    specs = load_attributes(["religion"], RESOURCES, custom, tmp_path)
    compiled = compile_dictionary(["religion"], RESOURCES, custom=custom, base_dir=tmp_path)
    rep = coverage.build_report(specs, compiled.table, compiled.notes, MENTIONS, min_support=1)
    rows = {r[2]: r for r in rep.terms}
    assert rows["muslims"][4:7] == ("culture+gender+race+social", 1, 1)
    assert [c for c in rep.candidates if c[0] == "religion"] == []
    # no attribute maps any category here, so frequent SBIC terms are listed under "-"
    assert ("-", "gender", "feminists", 2, 2, "annotation") in rep.candidates
