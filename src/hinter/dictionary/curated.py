"""The curated dictionary shipped in ``resources/dictionary/`` and how it is built.

The paper's authors published their word lists as headerless ``;``-separated CRLF files, one per
class (``female.csv``) and one per directed class pairing (``female_male.csv``). They are kept here
normalised, as tidy tables (see ``resources/dictionary/README.md``):

- ``pairings.tsv`` — attribute, source_class, target_class, complete: the published class
  pairings and how ``complete`` mode fills each (``cross``, ``cross_same_gender``, ``published``);
- ``<attribute>.classes.tsv`` — class, term, published_lines: every class list;
- ``<attribute>.tsv`` — source_class, source, target_class, target, published_lines: the
  published directed pairs, one row per distinct pair (``published_lines`` keeps every line of the
  published file it came from, so duplicates stay countable);
- ``ambiguous.tsv`` — attribute, term, reason: everyday words to review (not removed by default);
- ``spelling.tsv`` — term, spelling, kind: the canonical form of every term English writes with
  capitals (``native american`` → ``Native American``, ``mr`` → ``Mr``); a term not listed is
  written as stored (lower-case, or an acronym such as ``CEO``). Loading applies it, so compiled
  pairs carry canonical forms and replacements are written as a reader would write them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hinter.dictionary.files import read_lines, read_tsv, write_tsv
from hinter.dictionary.terms import normalise_term, term_problem
from hinter.errors import DataError

BUILTIN_ATTRIBUTES = ("race", "gender", "body")
COMPLETE_RULES = ("cross", "cross_same_gender", "published")

PAIRINGS_COLUMNS = ("attribute", "source_class", "target_class", "complete")
CLASSES_COLUMNS = ("class", "term", "published_lines")
PAIRS_COLUMNS = ("source_class", "source", "target_class", "target", "published_lines")
AMBIGUOUS_COLUMNS = ("attribute", "term", "reason")
SPELLING_COLUMNS = ("term", "spelling", "kind")
SPELLING_KINDS = ("people", "place", "title")


@dataclass(frozen=True)
class Pairing:
    """A directed class pairing; ``complete`` says how ``complete`` mode fills it."""

    source_class: str
    target_class: str
    complete: str = "cross"


@dataclass(frozen=True)
class ListedPair:
    """A pair written down in a file (published or custom), with where it was written."""

    source_class: str | None
    source: str
    target_class: str | None
    target: str
    where: str  # file:line(s), the pair's provenance
    occurrences: int = 1  # lines of the original list merged into this row


@dataclass(frozen=True)
class AttributeSpec:
    """Everything needed to compile one attribute's pairs, whatever its origin."""

    name: str
    origin: str  # builtin | custom
    classes: Mapping[str, tuple[str, ...]]
    pairings: tuple[Pairing, ...]
    pairs: tuple[ListedPair, ...] | None  # None: the pairs are the pairings' cross products
    files: tuple[str, ...] = field(default=())

    @property
    def words(self) -> set[str]:
        """Unique words of the class lists (the paper's "words per attribute")."""
        return {term for terms in self.classes.values() for term in terms}

    @property
    def listed_rows(self) -> int:
        """Lines of the listed pairs before de-duplication (the published pair count)."""
        return sum(p.occurrences for p in self.pairs or ())


def resource_files(resources: str | Path, attribute: str) -> list[Path]:
    """The shipped files a built-in attribute is compiled from."""
    base = Path(resources)
    return [
        base / "pairings.tsv",
        base / f"{attribute}.classes.tsv",
        base / f"{attribute}.tsv",
        base / "ambiguous.tsv",
        base / "spelling.tsv",
    ]


def _lines(value: str, where: str) -> tuple[int, ...]:
    try:
        lines = tuple(int(v) for v in value.split(","))
    except ValueError:
        raise DataError(
            f"{where}: published_lines {value!r} is not a comma-separated list of line numbers"
        ) from None
    if not lines or min(lines) < 1:
        raise DataError(f"{where}: published_lines {value!r} must list line numbers >= 1")
    return lines


def _checked_term(value: str, where: str) -> str:
    problem = term_problem(value)
    if problem:
        raise DataError(f"{where}: {problem}")
    if normalise_term(value) != value:
        raise DataError(
            f"{where}: term {value!r} is not normalised (expected {normalise_term(value)!r}: "
            "trimmed, single spaces, lower-case unless an all-capitals acronym)"
        )
    return value


def load_spellings(resources: str | Path) -> dict[str, str]:
    """Stored term -> canonical form, from ``spelling.tsv`` (checked: same letters, other case)."""
    path = Path(resources) / "spelling.tsv"
    out: dict[str, str] = {}
    for line, row in read_tsv(path, SPELLING_COLUMNS):
        where = f"{path}:{line}"
        term, spelling = _checked_term(row["term"], where), row["spelling"]
        if spelling.lower() != term.lower() or spelling == term or term_problem(spelling):
            raise DataError(
                f"{where}: spelling {spelling!r} must be {term!r} with capitals, nothing else"
            )
        if row["kind"] not in SPELLING_KINDS:
            raise DataError(f"{where}: kind {row['kind']!r} is not one of {list(SPELLING_KINDS)}")
        if term in out:
            raise DataError(f"{where}: {term!r} is listed twice")
        out[term] = spelling
    return out


def load_builtin(resources: str | Path, attribute: str) -> AttributeSpec:
    """Load and check one shipped attribute; a malformed row is a DataError naming file:line.

    Terms come out in their canonical form (``spelling.tsv``)."""
    base = Path(resources)
    spelled = load_spellings(base)
    pairings_path = base / "pairings.tsv"
    pairings: list[Pairing] = []
    for line, row in read_tsv(pairings_path, PAIRINGS_COLUMNS):
        if row["attribute"] != attribute:
            continue
        if row["complete"] not in COMPLETE_RULES:
            raise DataError(
                f"{pairings_path}:{line}: complete rule {row['complete']!r} "
                f"is not one of {list(COMPLETE_RULES)}"
            )
        pairings.append(Pairing(row["source_class"], row["target_class"], row["complete"]))
    if not pairings:
        raise DataError(f"{pairings_path}: no class pairings for attribute {attribute!r}")

    classes_path = base / f"{attribute}.classes.tsv"
    classes: dict[str, list[str]] = {}
    for line, row in read_tsv(classes_path, CLASSES_COLUMNS):
        where = f"{classes_path}:{line}"
        term = spelled.get(_checked_term(row["term"], where), row["term"])
        _lines(row["published_lines"], where)
        members = classes.setdefault(row["class"], [])
        if term in members:
            raise DataError(f"{where}: duplicate term {term!r} in class {row['class']!r}")
        members.append(term)
    for pairing in pairings:
        for cls in (pairing.source_class, pairing.target_class):
            if cls not in classes:
                raise DataError(
                    f"{pairings_path}: class {cls!r} of {attribute} has no terms in {classes_path}"
                )

    pairs_path = base / f"{attribute}.tsv"
    known = {(p.source_class, p.target_class) for p in pairings}
    pairs: list[ListedPair] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for line, row in read_tsv(pairs_path, PAIRS_COLUMNS):
        where = f"{pairs_path}:{line}"
        key = (row["source_class"], row["source"], row["target_class"], row["target"])
        if (key[0], key[2]) not in known:
            raise DataError(
                f"{where}: class pairing {key[0]!r} -> {key[2]!r} is not in {pairings_path}"
            )
        source = spelled.get(_checked_term(row["source"], where), row["source"])
        target = spelled.get(_checked_term(row["target"], where), row["target"])
        if key in seen:
            raise DataError(
                f"{where}: duplicate pair {source!r} -> {target!r} (first at line {seen[key]})"
            )
        seen[key] = line
        occurrences = len(_lines(row["published_lines"], where))
        pairs.append(
            ListedPair(key[0], source, key[2], target, f"{pairs_path.name}:{line}", occurrences)
        )
    return AttributeSpec(
        name=attribute,
        origin="builtin",
        classes={cls: tuple(terms) for cls, terms in classes.items()},
        pairings=tuple(pairings),
        pairs=tuple(pairs),
        files=tuple(str(p) for p in (pairings_path, classes_path, pairs_path)),
    )


def load_ambiguous(resources: str | Path) -> dict[tuple[str, str], str]:
    """(attribute, term) -> why the term is ambiguous, from ``ambiguous.tsv``."""
    path = Path(resources) / "ambiguous.tsv"
    out: dict[tuple[str, str], str] = {}
    for line, row in read_tsv(path, AMBIGUOUS_COLUMNS):
        key = (row["attribute"], _checked_term(row["term"], f"{path}:{line}"))
        if key in out:
            raise DataError(f"{path}:{line}: {key[1]!r} is listed twice for {key[0]}")
        if not row["reason"].strip():
            raise DataError(f"{path}:{line}: empty reason")
        out[key] = row["reason"]
    return out


# ---------------------------------------------------------------------------------------------
# Building resources/dictionary from the published lists (run once; the result is committed).

# Pair files whose name is not simply "<source class>_<target class>".
_PAIR_FILE_CLASSES = {
    ("gender", "female_male_job"): ("female_job", "male_job"),
    ("gender", "male_female_job"): ("male_job", "female_job"),
}

# How `complete` mode fills each published pairing (a curation decision, stated in the README):
# female <-> male is a row-by-row correspondence (actress/actor), where a cross product would pair
# "actress" with "kings"; body group nouns must keep their head noun's gender, or a body mutation
# would also change gender ("women" -> "disabled men").
_COMPLETE_RULE = {
    ("gender", "female", "male"): "published",
    ("gender", "male", "female"): "published",
    "body": "cross_same_gender",
}


def _reference_rows(path: Path) -> list[tuple[int, str]]:
    """Non-blank, whitespace-trimmed lines of a published file (CRLF, stray trailing spaces)."""
    return [(n, text.strip()) for n, text in read_lines(path) if text.strip()]


def _pair_file_classes(attribute: str, stem: str, classes: Iterable[str]) -> tuple[str, str]:
    if (attribute, stem) in _PAIR_FILE_CLASSES:
        return _PAIR_FILE_CLASSES[(attribute, stem)]
    parts = stem.split("_")
    for i in range(1, len(parts)):
        source, target = "_".join(parts[:i]), "_".join(parts[i:])
        if source in classes and target in classes:
            return source, target
    raise DataError(f"{stem}.csv: cannot tell which classes this pair file links")


def build_resources(reference: str | Path, out: str | Path, attributes=BUILTIN_ATTRIBUTES) -> None:
    """Normalise the published lists under ``reference`` into the tables under ``out``.

    ``ambiguous.tsv`` and ``README.md`` are curated by hand and left alone.
    """
    reference, out = Path(reference), Path(out)
    pairing_rows = []
    for attribute in attributes:
        folder = reference / attribute
        files = sorted(folder.glob("*.csv"))
        if not files:
            raise DataError(f"{folder}: no published lists found")
        class_files = [f for f in files if not any(";" in t for _, t in _reference_rows(f))]
        pair_files = [f for f in files if f not in class_files]

        class_rows: dict[tuple[str, str], list[int]] = {}
        for path in class_files:
            for line, text in _reference_rows(path):
                term = normalise_term(text)
                problem = term_problem(term)
                if problem:
                    raise DataError(f"{path}:{line}: {problem}")
                class_rows.setdefault((path.stem, term), []).append(line)
        class_names = {cls for cls, _ in class_rows}

        pair_rows: dict[tuple[str, str, str, str], list[int]] = {}
        for path in pair_files:
            source_class, target_class = _pair_file_classes(attribute, path.stem, class_names)
            for line, text in _reference_rows(path):
                cells = text.split(";")
                if len(cells) != 2:
                    raise DataError(f"{path}:{line}: expected 'source;target'")
                source, target = (normalise_term(c) for c in cells)
                for term in (source, target):
                    problem = term_problem(term)
                    if problem:
                        raise DataError(f"{path}:{line}: {problem}")
                key = (source_class, source, target_class, target)
                pair_rows.setdefault(key, []).append(line)
            rule = _COMPLETE_RULE.get((attribute, source_class, target_class))
            rule = rule or _COMPLETE_RULE.get(attribute, "cross")
            pairing_rows.append((attribute, source_class, target_class, rule))

        write_tsv(
            out / f"{attribute}.classes.tsv",
            CLASSES_COLUMNS,
            (
                (cls, term, ",".join(map(str, lines)))
                for (cls, term), lines in sorted(
                    class_rows.items(), key=lambda kv: (kv[0][0], kv[1][0])
                )
            ),
        )
        write_tsv(
            out / f"{attribute}.tsv",
            PAIRS_COLUMNS,
            (
                (*key, ",".join(map(str, lines)))
                for key, lines in sorted(
                    pair_rows.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[1][0])
                )
            ),
        )
    write_tsv(out / "pairings.tsv", PAIRINGS_COLUMNS, sorted(pairing_rows))
