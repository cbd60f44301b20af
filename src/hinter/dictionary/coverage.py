"""Coverage of the dictionary by SBIC: support per curated term, curation candidates, counts.

Support of a curated term = distinct SBIC posts whose group terms, in the SBIC categories mapped to
the term's attribute, equal the term (``exact_posts``) or contain it as whole words (``posts``:
"black" is supported by "black folks"). Only aligned mentions count (methods ``annotation``,
``single_category``, ``majority``); ``unresolved`` ones are never attributed to a category.
A curation candidate is an SBIC term with at least ``min_support`` posts, in a category mapped
to an attribute, that contains none of that attribute's terms; terms of categories mapped to no
configured attribute are listed with attribute ``-``. An attribute missing from the mapping (a
custom one) draws support from every category and gets no candidates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from hinter import io
from hinter.dictionary.curated import AttributeSpec
from hinter.dictionary.files import write_tsv
from hinter.dictionary.pairs import Note
from hinter.dictionary.sbic import Mention
from hinter.dictionary.terms import contains_term

RESOLVED = ("annotation", "single_category", "majority")
DEFAULT_CATEGORIES = {
    "race": ["race", "culture"],
    "gender": ["gender"],
    "body": ["body", "disabled", "victim"],
}
TERMS_COLUMNS = (
    "attribute",
    "class",
    "term",
    "pairs",
    "sbic_categories",
    "exact_posts",
    "posts",
    "top_sbic_terms",
)
CANDIDATES_COLUMNS = ("attribute", "category", "term", "posts", "annotations", "methods")
SUMMARY_COLUMNS = (
    "attribute",
    "origin",
    "classes",
    "class_words",
    "listed_rows",
    "listed_pairs",
    "pairs",
    "pair_words",
    "ambiguous_terms",
    "sbic_supported_terms",
    "candidates",
)


@dataclass
class Report:
    terms: list[tuple]
    candidates: list[tuple]
    summary: list[tuple]
    markdown: str
    overlap: dict[str, dict] = field(default_factory=dict)


def overlap(term_rows: Sequence[tuple], sbic_terms: set[str], attribute: str) -> dict:
    """The dictionary's terms of ``attribute`` against the SBIC terms of its categories.

    ``shared``: terms both hold (an SBIC group term equal to a dictionary term); ``contained``:
    dictionary terms found, as whole words, in some SBIC term of their categories;
    ``unsupported``: dictionary terms no SBIC post of their categories names (posts = 0).
    """
    terms = [r for r in term_rows if r[0] == attribute]
    words = {r[2].lower() for r in terms}
    return {
        "dictionary_terms": len(words),
        "sbic_terms": len(sbic_terms),
        "shared": sorted(words & sbic_terms),
        "contained": sorted({r[2].lower() for r in terms if r[6] > 0}),
        "unsupported": sorted({r[2] for r in terms if r[6] == 0}),
    }


def _sbic_index(mentions: Sequence[Mention]):
    """(category, term) -> posts, annotations, methods over the aligned mentions."""
    posts: dict[tuple[str, str], set[str]] = defaultdict(set)
    notes: dict[tuple[str, str], int | None] = {}
    methods: dict[tuple[str, str], set[str]] = defaultdict(set)
    for m in mentions:
        if m.method not in RESOLVED:
            continue
        key = (m.category, m.term)
        posts[key].add(m.post_id)
        if m.annotations is None:
            notes.setdefault(key, None)
        else:  # annotation rows, when the per-annotation files were read
            notes[key] = (notes.get(key) or 0) + m.annotations
        methods[key].add(m.method)
    return posts, notes, methods


def _categories_for(attribute: str, mapping: Mapping[str, Sequence[str]], known: set[str]):
    return set(mapping[attribute]) if attribute in mapping else set(known)


def build_report(
    specs: Sequence[AttributeSpec],
    pairs: pa.Table,
    notes: Sequence[Note],
    mentions: Sequence[Mention],
    categories: Mapping[str, Sequence[str]] | None = None,
    min_support: int = 5,
    context: Mapping[str, object] | None = None,
) -> Report:
    """Everything the coverage report shows, as rows and as Markdown."""
    mapping = DEFAULT_CATEGORIES if categories is None else categories
    posts, annotations, methods = _sbic_index(mentions)
    known_categories = {c for c, _ in posts}
    rows = pairs.to_pylist()

    term_rows: list[tuple] = []
    candidate_rows: list[tuple] = []
    summary_rows: list[tuple] = []
    supported: dict[str, list[tuple]] = {}
    overlaps: dict[str, dict] = {}
    for spec in specs:
        attr = spec.name
        cats = _categories_for(attr, mapping, known_categories)
        classes_of: dict[str, set[str]] = defaultdict(set)
        for cls, terms in spec.classes.items():
            for term in terms:
                classes_of[term].add(cls)
        uses: dict[str, int] = defaultdict(int)
        for r in rows:
            if r["attribute"] != attr:
                continue
            for side in ("source", "target"):
                uses[r[side]] += 1
                if r[f"{side}_class"]:
                    classes_of[r[side]].add(r[f"{side}_class"])
                else:
                    classes_of.setdefault(r[side], set())
        sbic_terms = [(c, t) for (c, t) in posts if c in cats]
        attr_terms = sorted(classes_of)
        for term in attr_terms:
            matches = [(c, t) for (c, t) in sbic_terms if contains_term(t, term)]
            exact = set().union(*(posts[k] for k in matches if k[1] == term.lower()))
            contained = set().union(*(posts[k] for k in matches))
            top = sorted(matches, key=lambda k: (-len(posts[k]), k[1], k[0]))[:3]
            term_rows.append(
                (
                    attr,
                    "+".join(sorted(classes_of[term])),
                    term,
                    uses.get(term, 0),
                    "+".join(sorted(cats)),
                    len(exact),
                    len(contained),
                    "; ".join(f"{t} ({c}): {len(posts[(c, t)])}" for c, t in top),
                )
            )
        lowered = [t.lower() for t in attr_terms]
        candidates = []
        # An attribute missing from the mapping has no SBIC categories of its own: its terms get
        # support from every category, but which SBIC terms it lacks cannot be told.
        for c, t in sbic_terms if attr in mapping else ():
            n = len(posts[(c, t)])
            if n >= min_support and not any(contains_term(t, w) for w in lowered):
                candidates.append(
                    (attr, c, t, n, annotations[(c, t)], "+".join(sorted(methods[(c, t)])))
                )
        candidates.sort(key=lambda r: (-r[3], r[1], r[2]))
        candidate_rows.extend(candidates)
        supported[attr] = [r for r in term_rows if r[0] == attr and r[6] > 0]
        overlaps[attr] = overlap(term_rows, {t for _, t in sbic_terms}, attr)
        n_ambiguous = sum(
            1 for n in notes if n.attribute == attr and n.kind.startswith("ambiguous")
        )
        summary_rows.append(
            (
                attr,
                spec.origin,
                len(spec.classes),
                len(spec.words),
                spec.listed_rows,
                len(spec.pairs or ()),
                sum(1 for r in rows if r["attribute"] == attr),
                len(uses),
                n_ambiguous,
                len(supported[attr]),
                len(candidates),
            )
        )
    mapped = {c for s in specs if s.name in mapping for c in mapping[s.name]}
    orphans = []
    for (c, t), p in posts.items():
        if c not in mapped and len(p) >= min_support:
            orphans.append(
                ("-", c, t, len(p), annotations[(c, t)], "+".join(sorted(methods[(c, t)])))
            )
    orphans.sort(key=lambda r: (r[1], -r[3], r[2]))
    candidate_rows.extend(orphans)
    markdown = _markdown(
        term_rows, candidate_rows, summary_rows, notes, supported, min_support, context or {}
    )
    markdown = markdown.rstrip("\n") + "\n\n" + _overlap_markdown(overlaps, specs)
    return Report(term_rows, candidate_rows, summary_rows, markdown, overlaps)


def _overlap_markdown(overlaps: Mapping[str, dict], specs: Sequence[AttributeSpec]) -> str:
    """Per attribute: the dictionary (the paper's published one, for a built-in attribute) vs
    the terms SBIC supports, and the dictionary terms SBIC does not support."""
    origin = {s.name: s.origin for s in specs}
    lines = ["## The dictionary vs SBIC's terms", ""]
    rows = [
        (a, origin.get(a, ""), o["dictionary_terms"], o["sbic_terms"], len(o["shared"]),
         len(o["contained"]), len(o["unsupported"]))
        for a, o in overlaps.items()
    ]  # fmt: skip
    lines += _table(
        ("attribute", "origin", "dictionary_terms", "sbic_terms", "shared", "supported",
         "unsupported"),
        rows,
    )  # fmt: skip
    lines += [
        "",
        "`sbic_terms`: distinct group terms of the attribute's SBIC categories; `shared`: terms "
        "both hold; `supported`: dictionary terms some SBIC term of those categories contains "
        "as whole words; `unsupported`: dictionary terms no SBIC post supports.",
        "",
    ]
    for attr, o in overlaps.items():
        lines.append(f"- {attr}, shared: {', '.join(o['shared']) or 'none'}")
        lines.append(f"- {attr}, not supported by SBIC: {', '.join(o['unsupported']) or 'none'}")
    lines.append("")
    return "\n".join(lines)


def _table(columns: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table through the project's one table writer (cells escaped)."""
    import pandas as pd

    from hinter.render import markdown_table

    frame = pd.DataFrame([list(r) for r in rows], columns=list(columns), dtype=object)
    return markdown_table(frame).rstrip("\n").split("\n")


def _markdown(terms, candidates, summary, notes, supported, min_support, context) -> str:
    lines = ["# Bias dictionary coverage", ""]
    for key, value in context.items():
        lines.append(f"- {key}: {value}")
    lines += ["", "## Per attribute", ""]
    lines += _table(SUMMARY_COLUMNS, summary)
    lines += [
        "",
        "`class_words`: unique words of the class lists; `listed_rows`: pair lines as published "
        "(or as listed in a custom file); `listed_pairs`: distinct listed pairs; `pairs`: "
        "compiled pairs in this mode (self-pairs dropped, duplicates merged).",
        "",
        "## Review",
        "",
    ]
    kinds = {
        "self_pair_dropped": "Self-pairs dropped",
        "duplicate_merged": "Duplicates merged",
        "case_kept": "Case kept (acronyms and proper names)",
        "ambiguous_removed": "Ambiguous words removed (dictionary.drop_ambiguous)",
        "ambiguous": "Ambiguous everyday words (kept; review them)",
    }
    for kind, title in kinds.items():
        selected = [n for n in notes if n.kind == kind]
        if not selected:
            continue
        lines += [f"### {title}", ""]
        lines += _table(
            ("attribute", "source", "target", "detail"),
            [(n.attribute, n.source, n.target, n.detail) for n in selected],
        )
        lines.append("")
    for attr, rows in supported.items():
        lines += [f"## {attr}: curated terms with SBIC support", ""]
        total = sum(1 for r in terms if r[0] == attr)
        lines.append(f"{len(rows)} of {total} terms are supported by at least one SBIC post.")
        lines.append("")
        top = sorted(rows, key=lambda r: (-r[5], -r[6], r[2]))[:15]
        if top:
            lines += _table(
                ("term", "class", "exact_posts", "posts", "top_sbic_terms"),
                [(r[2], r[1], r[5], r[6], r[7]) for r in top],
            )
            lines.append("")
    lines += [
        f"## Curation candidates (SBIC terms with >= {min_support} posts not in the dictionary)",
        "",
    ]
    if candidates:
        shown = candidates[:60]
        lines += _table(CANDIDATES_COLUMNS, shown)
        if len(candidates) > len(shown):
            lines.append(f"\n… {len(candidates) - len(shown)} more in coverage_candidates.tsv")
    else:
        lines.append("None.")
    lines.append("")
    return "\n".join(lines)


def write_report(report: Report, markdown_path, terms_path, candidates_path, summary_path) -> None:
    """coverage.md and the three TSV tables, each written atomically."""
    io.write_text(markdown_path, report.markdown)
    write_tsv(terms_path, TERMS_COLUMNS, report.terms)
    write_tsv(candidates_path, CANDIDATES_COLUMNS, report.candidates)
    write_tsv(summary_path, SUMMARY_COLUMNS, report.summary)
