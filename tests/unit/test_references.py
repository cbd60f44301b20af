"""Every citation in the repository resolves from a clone: "docs/design.md §N" (or "DESIGN §N",
the form the written tables and captions keep) names a section of docs/design.md, and a paper
code with an item ("002 Table 3", "``000`` §3") names a paper and an item listed in
docs/references.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DESIGN = ROOT / "docs" / "design.md"
REFERENCES = ROOT / "docs" / "references.md"
SCANNED = ("src", "workflow", "tests", "config", "docs", "README.md", "CONTRIBUTING.md")
SUFFIXES = {".py", ".smk", ".md", ".rst", ".yaml", ".yml", ".txt", ".csv", ""}

DESIGN_REF = re.compile(r"(?:docs/design\.md|DESIGN) §(\d+)")
KINDS = {
    "Table": "Table",
    "Tables": "Table",
    "Fig.": "Fig.",
    "Figs.": "Fig.",
    "Figure": "Fig.",
    "Figures": "Fig.",
    "Algorithm": "Algorithm",
    "Algorithms": "Algorithm",
    "Alg.": "Algorithm",
    "§": "§",
}
PAPER_REF = re.compile(
    r"(?<![\w./-])`{0,2}\(?(00[0-4])\)?`{0,2},?[ \t]+"
    r"(Tables?|Figs?\.|Figures?|Algorithms?|Alg\.|§)[ \t]*(\d+(?:\.\d+)?)"
)
PAPER_CODE = re.compile(r"``(00[0-4])``|(?<!`)`(00[0-4])`(?!`)")


def scanned_files() -> list[Path]:
    files = []
    for name in SCANNED:
        path = ROOT / name
        found = [path] if path.is_file() else sorted(path.rglob("*"))
        files += [
            f
            for f in found
            if f.is_file()
            and (f.suffix in SUFFIXES or f.name == "Snakefile")
            and "__pycache__" not in f.parts
        ]
    return [*files, ROOT / "Snakefile"]


def cited(kind: str, item: str) -> str:
    """An item as docs/references.md lists it: "Table 3", "Fig. 4", "§3.3"."""
    return f"{kind}{item}" if kind == "§" else f"{kind} {item}"


def design_sections(text: str) -> set[str]:
    return set(re.findall(r"^## (\d+)\. ", text, flags=re.M))


def paper_sections(text: str) -> dict[str, str]:
    """Paper code -> the text of its section of docs/references.md."""
    parts = re.split(r"^## (00[0-4]) ", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def citations(files: list[Path]) -> tuple[list, list, list]:
    design, papers, codes = [], [], []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        where = path.relative_to(ROOT)
        for number, line in enumerate(text.splitlines(), 1):
            design += [(f"{where}:{number}", m.group(1)) for m in DESIGN_REF.finditer(line)]
            papers += [
                (f"{where}:{number}", m.group(1), KINDS[m.group(2)], m.group(3))
                for m in PAPER_REF.finditer(line)
            ]
            codes += [
                (f"{where}:{number}", m.group(1) or m.group(2)) for m in PAPER_CODE.finditer(line)
            ]
    return design, papers, codes


@pytest.fixture(scope="module")
def found():
    return citations(scanned_files())


def test_the_design_and_the_references_are_in_the_repository():
    assert design_sections(DESIGN.read_text(encoding="utf-8")) >= {str(n) for n in range(1, 12)}
    assert set(paper_sections(REFERENCES.read_text(encoding="utf-8"))) == {
        "000", "001", "002", "003", "004"
    }  # fmt: skip


def test_every_design_reference_names_a_section(found):
    design, _, _ = found
    sections = design_sections(DESIGN.read_text(encoding="utf-8"))
    assert len(design) > 20  # the scan sees the citations
    assert [f"{where}: §{n}" for where, n in design if n not in sections] == []


def test_every_paper_citation_names_a_listed_item(found):
    _, papers, codes = found
    sections = paper_sections(REFERENCES.read_text(encoding="utf-8"))
    assert len(papers) > 20
    missing = [
        f"{where}: {code} {cited(kind, item)}"
        for where, code, kind, item in papers
        if not re.search(rf"{re.escape(cited(kind, item))}(?![\d.]\d)", sections[code])
    ]
    assert missing == []
    assert {code for _, code in codes} <= set(sections)


def test_the_patterns_catch_the_forms_in_use():
    lines = [
        "paper 002 Table 5: counts",
        "MUTAINT (``000``, Table 4) and Lalor et al. (``003`` §3.3)",
        "(`001` Table 6) and (000) Table 4 and 001 Tables 7–8, 002 Fig. 1",
        "shard 003.parquet and run.predictions('bert', 'scotus', '003')",
    ]
    found = [
        (m.group(1), KINDS[m.group(2)], m.group(3))
        for line in lines
        for m in PAPER_REF.finditer(line)
    ]
    assert found == [
        ("002", "Table", "5"),
        ("000", "Table", "4"),
        ("003", "§", "3.3"),
        ("001", "Table", "6"),
        ("000", "Table", "4"),
        ("001", "Table", "7"),
        ("002", "Fig.", "1"),
    ]
    assert [m.group(1) for m in DESIGN_REF.finditer("DESIGN §8 and docs/design.md §10")] == [
        "8",
        "10",
    ]
