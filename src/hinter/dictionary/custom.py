"""User-declared attributes (``dictionary.custom``): extra attributes or replacements of built-ins.

Two ways to declare one (both may be combined)::

    religion:                       # class lists, paired by the cross product of each pairing
      classes: {christian: config/christian.txt, muslim: config/muslim.txt}
      pairings: [[christian, muslim], [muslim, christian]]
    age:                            # an explicit list of directed pairs
      pairs: config/age_pairs.tsv   # columns source, target [, source_class, target_class]

With both, ``pairs`` is the list used by ``as_published`` and ``complete`` adds the cross products.
A custom attribute named like a built-in one replaces it. Every file problem is a one-line
DataError naming the file and line; every declaration problem a ConfigError naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hinter.dictionary.curated import AttributeSpec, ListedPair, Pairing, resource_files
from hinter.dictionary.files import read_lines
from hinter.dictionary.terms import collapse, term_problem
from hinter.errors import ConfigError, DataError

_PAIR_COLUMNS = ("source", "target", "source_class", "target_class")


def resolve(path: str, base_dir: str | Path) -> Path:
    """A custom file path: absolute as given, otherwise relative to the repository."""
    p = Path(path)
    return p if p.is_absolute() else Path(base_dir) / p


def check_custom_config(
    custom: Mapping[str, Any], base_dir: str | Path | None = None, key: str = "dictionary.custom"
) -> None:
    """Check the declarations (not the file contents); a ConfigError names the key at fault."""
    for name, spec in custom.items():
        at = f"{key}.{name}"
        classes = spec.get("classes")
        pairings = spec.get("pairings")
        if classes is None and spec.get("pairs") is None:
            raise ConfigError(f"config key '{at}': declare 'classes' with 'pairings', or 'pairs'")
        if classes is not None and pairings is None:
            raise ConfigError(f"config key '{at}.pairings': required with 'classes'")
        if pairings is not None and classes is None:
            raise ConfigError(f"config key '{at}.classes': required with 'pairings'")
        if classes is not None and not classes:
            raise ConfigError(f"config key '{at}.classes': declare at least one class")
        seen: set[tuple[str, str]] = set()
        for i, pairing in enumerate(pairings or []):
            if len(pairing) != 2:
                raise ConfigError(
                    f"config key '{at}.pairings.{i}': expected [source_class, target_class]"
                )
            source, target = pairing
            for cls in (source, target):
                if cls not in classes:
                    raise ConfigError(
                        f"config key '{at}.pairings.{i}': unknown class {cls!r} "
                        f"(declared: {', '.join(sorted(classes))})"
                    )
            if source == target:
                raise ConfigError(
                    f"config key '{at}.pairings.{i}': pairs class {source!r} with itself"
                )
            if (source, target) in seen:
                raise ConfigError(
                    f"config key '{at}.pairings.{i}': duplicate pairing {source} -> {target}"
                )
            seen.add((source, target))
        if base_dir is not None:
            files = {f"{at}.classes.{c}": f for c, f in (classes or {}).items()}
            if spec.get("pairs") is not None:
                files[f"{at}.pairs"] = spec["pairs"]
            for file_key, path in files.items():
                if not resolve(path, base_dir).is_file():
                    raise ConfigError(f"config key '{file_key}': file not found: {path}")


def dictionary_files(
    attributes: Sequence[str],
    resources: str | Path,
    custom: Mapping[str, Any],
    base_dir: str | Path,
) -> list[str]:
    """Every file compiling ``attributes`` reads (the workflow's inputs), in a stable order."""
    files: list[Path] = []
    for name in attributes:
        if name in custom:
            files.extend(custom_files(custom[name], base_dir))
        else:
            files.extend(resource_files(resources, name))
    return [str(p) for p in dict.fromkeys(files)]


def custom_files(spec: Mapping[str, Any], base_dir: str | Path) -> list[Path]:
    """The files a custom attribute is compiled from (for the workflow's inputs)."""
    paths = list((spec.get("classes") or {}).values())
    if spec.get("pairs") is not None:
        paths.append(spec["pairs"])
    return [resolve(p, base_dir) for p in paths]


def _read_class(path: Path, shown: str) -> list[tuple[int, str]]:
    """Terms of a class file: one per line, an optional header line ``term``."""
    out: list[tuple[int, str]] = []
    first: dict[str, int] = {}
    for number, raw in read_lines(path):
        if number == 1 and raw.strip().lower() == "term":
            continue
        where = f"{path}:{number}"
        if any(sep in raw for sep in ("\t", ";", ",")):
            raise DataError(
                f"{where}: expected one term per line, found a separator in {raw.strip()!r}"
            )
        term = collapse(raw)  # a custom term's canonical form is as written
        problem = term_problem(term)
        if problem:
            raise DataError(f"{where}: {problem}")
        if term.lower() in first:
            raise DataError(
                f"{where}: duplicate term {term!r} (first at line {first[term.lower()]})"
            )
        first[term.lower()] = number
        out.append((number, term))
    if not out:
        raise DataError(f"{path}: no terms in class file ({shown})")
    return out


def _delimiter(path: Path, lines: list[tuple[int, str]]) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    sample = next((text for _, text in lines if text.strip()), "")
    if "\t" in sample:
        return "\t"
    return ";" if ";" in sample else ","


def _read_pairs(
    path: Path,
    shown: str,
    at: str,
    classes: Mapping[str, tuple[str, ...]] | None,
    pairings: set[tuple[str, str]] | None,
) -> list[ListedPair]:
    """Directed pairs of a pairs file (CSV, ``;``-CSV or TSV; header optional for two columns)."""
    lines = read_lines(path)
    if not lines:
        raise DataError(f"{path}: empty pairs file")
    sep = _delimiter(path, lines)
    header = [c.strip().lower() for c in lines[0][1].split(sep)]
    if set(header) <= set(_PAIR_COLUMNS) and {"source", "target"} <= set(header):
        if len(set(header)) != len(header):
            raise DataError(f"{path}:1: repeated column in header {header}")
        columns, body = header, lines[1:]
    elif header and any(h in _PAIR_COLUMNS for h in header):
        raise DataError(
            f"{path}:1: header {header} needs 'source' and 'target' "
            "(optional: source_class, target_class)"
        )
    else:
        columns, body = ["source", "target"], lines
    has_classes = "source_class" in columns or "target_class" in columns
    if has_classes and not {"source_class", "target_class"} <= set(columns):
        raise DataError(f"{path}:1: give both source_class and target_class, or neither")
    membership = {t.lower(): c for c, terms in (classes or {}).items() for t in terms}
    first: dict[tuple[str, str], int] = {}
    pairs = []
    for number, raw in body:
        where = f"{path}:{number}"
        if not raw.strip():
            raise DataError(f"{where}: empty line (the source and target terms are missing)")
        cells = raw.split(sep)
        if len(cells) != len(columns):
            raise DataError(
                f"{where}: {len(cells)} fields, expected {len(columns)} ({', '.join(columns)})"
            )
        row = dict(zip(columns, cells, strict=True))
        terms = {}
        for side in ("source", "target"):
            term = collapse(row[side])
            problem = term_problem(term)
            if problem:
                raise DataError(f"{where}: {side}: {problem}")
            terms[side] = term
        source, target = terms["source"], terms["target"]
        if source.lower() == target.lower():
            raise DataError(
                f"{where}: self-pair {source!r} -> {target!r} (a pair must change the word)"
            )
        key = (source.lower(), target.lower())
        if key in first:
            raise DataError(
                f"{where}: duplicate pair {source!r} -> {target!r} (first at line {first[key]})"
            )
        first[key] = number
        found: dict[str, str | None] = {}
        for side in ("source", "target"):
            if has_classes:
                cls = row.get(f"{side}_class", "").strip()
                if not cls:
                    raise DataError(f"{where}: empty {side}_class")
                if classes is not None and cls not in classes:
                    raise DataError(
                        f"{where}: unknown class {cls!r} "
                        f"(declared in {at}.classes: {', '.join(sorted(classes))})"
                    )
            else:
                cls = membership.get(terms[side].lower())
            found[side] = cls
        if (
            has_classes
            and pairings is not None
            and (found["source"], found["target"]) not in pairings
        ):
            raise DataError(
                f"{where}: class pairing {found['source']} -> {found['target']} "
                f"is not declared in {at}.pairings"
            )
        pairs.append(
            ListedPair(found["source"], source, found["target"], target, f"{shown}:{number}")
        )
    if not pairs:
        raise DataError(f"{path}: no pairs")
    return pairs


def load_custom(
    name: str, spec: Mapping[str, Any], base_dir: str | Path, key: str = "dictionary.custom"
) -> AttributeSpec:
    """Read and check one custom attribute's files."""
    check_custom_config({name: spec}, base_dir, key)
    at = f"{key}.{name}"
    classes: dict[str, tuple[str, ...]] = {}
    owner: dict[str, tuple[str, str]] = {}  # term -> (class, file:line)
    for cls, file in (spec.get("classes") or {}).items():
        path = resolve(file, base_dir)
        terms = []
        for number, term in _read_class(path, file):
            if term.lower() in owner:
                other, other_where = owner[term.lower()]
                raise DataError(
                    f"{path}:{number}: term {term!r} is already in class {other!r} "
                    f"({other_where}); a term may belong to one class only"
                )
            owner[term.lower()] = (cls, f"{path}:{number}")
            terms.append(term)
        classes[cls] = tuple(terms)
    pairings = tuple(Pairing(s, t, "cross") for s, t in spec.get("pairings") or [])
    pairs = None
    if spec.get("pairs") is not None:
        pairs = tuple(
            _read_pairs(
                resolve(spec["pairs"], base_dir),
                spec["pairs"],
                at,
                classes or None,
                {(p.source_class, p.target_class) for p in pairings} or None,
            )
        )
    return AttributeSpec(
        name=name,
        origin="custom",
        classes=classes,
        pairings=pairings,
        pairs=pairs,
        files=tuple(str(p) for p in custom_files(spec, base_dir)),
    )


MAX_CUSTOM_PAIRS = 2_000_000  # directed term pairs of a custom attribute's class pairings


def check_custom_sizes(custom: Mapping[str, Any], base_dir: str | Path) -> None:
    """Count a custom attribute's directed pairs from its class files' sizes before anything
    builds them (two 3,000-term classes paired both ways are 18 M pairs)."""
    for name, spec in custom.items():
        classes, pairings = spec.get("classes") or {}, spec.get("pairings") or []
        if not classes or not pairings:
            continue
        sizes = {}
        for cls, file in classes.items():
            path = Path(file).expanduser()
            path = path if path.is_absolute() else Path(base_dir) / path
            try:
                with open(path, "rb") as handle:
                    sizes[cls] = sum(1 for line in handle if line.strip())
            except OSError:
                sizes[cls] = 0  # check_custom_config names a missing file
        total = sum(sizes.get(a, 0) * sizes.get(b, 0) for a, b in pairings if a != b)
        if total > MAX_CUSTOM_PAIRS:
            raise ConfigError(
                f"config key 'dictionary.custom.{name}.pairings': {total:,} directed pairs "
                f"(more than {MAX_CUSTOM_PAIRS:,}); use fewer or smaller classes, or give "
                "explicit pairs"
            )
