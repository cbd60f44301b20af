"""SBIC (Social Bias Frames, Sap et al. 2020): acquisition, file format and group-term extraction.

Acquisition: the authors' archive ``SBIC.v2.tgz`` is downloaded (or copied from a local path),
checked against the SHA-256 recorded in ``resources/sbic/checksums.sha256`` *before* it is kept,
and its six CSVs are extracted next to it. Nothing else of the archive is written (its README
would overwrite ours).

Format: per-annotation files ``SBIC.v2.{trn,dev,tst}.csv`` (one worker's reading of one post per
row: one target category with the group(s) typed for it) and aggregated files
``SBIC.v2.agg.{trn,dev,tst}.csv`` (one row per post, list fields JSON-encoded, groups and
categories pooled over every annotation, so which group belongs to which category is lost).

Extraction: group terms per SBIC category, with the posts and annotations supporting them. Unlike
the paper's extractor, a post's groups are not crossed with all of its categories ("women" would
land in race whenever a post also targets a race); each mention records the method that aligned it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import tarfile
import urllib.error
import urllib.request
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pyarrow as pa

from hinter import io
from hinter.dictionary.files import write_tsv
from hinter.dictionary.terms import split_categories, split_groups
from hinter.errors import DataError

log = logging.getLogger(__name__)

ARCHIVE = "SBIC.v2.tgz"
DEFAULT_URL = "https://homes.cs.washington.edu/~msap/social-bias-frames/SBIC.v2.tgz"
# The authors' current page for SBIC (the papers' footnote: 001 fn. 3, 002 fn. 3). Neither paper
# nor DESIGN.md gives the archive's address there, so it is named in errors, not guessed at.
AUTHORS_PAGE = "https://maartensap.com/social-bias-frames/"
SPLITS = ("trn", "dev", "tst")
CATEGORIES = ("race", "gender", "culture", "victim", "disabled", "social", "body")

# Header of the per-annotation files (SBIC v2 README, in order).
ANNOTATION_COLUMNS = (
    "whoTarget",
    "intentYN",
    "sexYN",
    "sexReason",
    "offensiveYN",
    "annotatorGender",
    "annotatorMinority",
    "sexPhrase",
    "speakerMinorityYN",
    "WorkerId",
    "HITId",
    "annotatorPolitics",
    "annotatorRace",
    "annotatorAge",
    "post",
    "targetMinority",
    "targetCategory",
    "targetStereotype",
    "dataSource",
)
TEXT_FIELDS = ("targetMinority", "targetCategory", "targetStereotype")
CLASS_FIELDS = ("whoTarget", "intentYN", "sexYN", "offensiveYN")
# Header of the aggregated files: pandas' unnamed index, the grouping key, the README's fields.
AGGREGATED_COLUMNS = ("", "post", *TEXT_FIELDS, *CLASS_FIELDS, "dataSource", "hasBiasedImplication")
_NEEDED = ("post", "targetMinority", "targetCategory")

# Alignment methods, from most to least direct.
METHODS = ("annotation", "single_category", "majority", "unresolved")

MENTIONS = pa.schema(
    [
        pa.field("post_id", pa.string(), nullable=False),
        pa.field("split", pa.string()),
        pa.field("category", pa.string()),
        pa.field("term", pa.string()),
        pa.field("method", pa.string()),
        pa.field("annotations", pa.int32()),  # null when only the aggregated row was available
    ]
)
TERMS_COLUMNS = ("category", "term", "method", "posts", "annotations")


def csv_name(split: str, aggregated: bool) -> str:
    """``SBIC.v2.agg.dev.csv`` / ``SBIC.v2.dev.csv``."""
    return f"SBIC.v2.{'agg.' if aggregated else ''}{split}.csv"


def member_names() -> list[str]:
    """The six CSVs of the archive."""
    return [csv_name(s, agg) for agg in (False, True) for s in SPLITS]


# ---------------------------------------------------------------------------------------------
# Acquisition


def read_checksums(path: str | Path) -> dict[str, str]:
    """``sha256sum``-style lines (``<64 hex>  <file name>``); ``#`` comments and blanks allowed."""
    path = Path(path)
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        digest, _, name = text.partition(" ")
        name = name.strip().lstrip("*")
        if (
            len(digest) != 64
            or any(c not in "0123456789abcdef" for c in digest.lower())
            or not name
        ):
            raise DataError(f"{path}:{number}: expected '<sha256 hex digest>  <file name>'")
        out[name] = digest.lower()
    return out


def record_checksum(path: str | Path, name: str, digest: str) -> None:
    """Add (or replace) the digest of ``name`` in the checksums file, keeping its other lines."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    kept = [line for line in lines if line.strip().partition(" ")[2].strip().lstrip("*") != name]
    io.write_text(path, "\n".join([*kept, f"{digest}  {name}"]) + "\n")


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _copy_stream(source, target: Path) -> str:
    h = hashlib.sha256()
    with open(target, "wb") as out:
        for chunk in iter(lambda: source.read(1 << 20), b""):
            h.update(chunk)
            out.write(chunk)
    return h.hexdigest()


def fetch(url: str, target: Path, timeout: float = 60.0) -> str:
    """Copy ``url`` (http(s), file:// or a local path) to ``target``; return its SHA-256."""
    parsed = urlparse(url)
    if parsed.scheme in ("http", "https"):
        request = urllib.request.Request(url, headers={"User-Agent": "hinter (SBIC download)"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return _copy_stream(response, target)
        except urllib.error.HTTPError as exc:
            raise DataError(
                f"{url}: download failed (HTTP {exc.code} {exc.reason}); the archive has moved "
                f"to the authors' site {AUTHORS_PAGE}: fetch {ARCHIVE} there and set "
                "dictionary.sbic.url to it (it is verified against checksums.sha256 either way)"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DataError(
                f"{url}: download failed ({reason}); offline, put {ARCHIVE} in "
                f"{target.parent} or point dictionary.sbic.url at a local copy"
            ) from None
    local = Path(parsed.path if parsed.scheme == "file" else url)
    if parsed.scheme not in ("", "file") and not local.exists():
        raise DataError(
            f"{url}: unsupported URL scheme {parsed.scheme!r} (use http(s), file or a path)"
        )
    try:
        with open(local, "rb") as source:
            return _copy_stream(source, target)
    except FileNotFoundError:
        raise DataError(f"{local}: file not found (dictionary.sbic.url)") from None


def extract(
    archive: str | Path,
    dest: str | Path,
    names: Iterable[str] | None = None,
    digests: Mapping[str, str] | None = None,
) -> list[Path]:
    """Extract the named regular files (matched by base name) atomically into ``dest``.

    A member whose SHA-256 is in ``digests`` (checksums.sha256 records those known) must match
    it, or it is not kept.
    """
    archive, dest = Path(archive), Path(dest)
    wanted = set(names or member_names())
    written: dict[str, Path] = {}
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                base = Path(member.name).name
                if base not in wanted:
                    continue
                if not member.isfile():
                    raise DataError(f"{archive}: member {member.name} is not a regular file")
                if base in written:
                    raise DataError(f"{archive}: {base} appears twice in the archive")
                source = tar.extractfile(member)
                with io.atomic_path(dest / base) as tmp:
                    digest = _copy_stream(source, tmp)
                    expected = (digests or {}).get(base)
                    if expected is not None and digest != expected:
                        raise DataError(
                            f"{archive}: member {base} has SHA-256 {digest}, not the recorded "
                            f"{expected}; it was not kept"
                        )
                written[base] = dest / base
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise DataError(f"{archive}: unreadable archive ({exc})") from None
    missing = sorted(wanted - set(written))
    if missing:
        raise DataError(f"{archive}: missing {', '.join(missing)}")
    return [written[n] for n in sorted(written)]


def acquire(
    url: str,
    dest: str | Path,
    checksums: str | Path,
    record: bool = False,
    timeout: float = 60.0,
) -> list[Path]:
    """Download (unless a verified copy is there), verify, then extract the six CSVs into ``dest``.

    The archive is verified before it is renamed into place, so a wrong or truncated download
    never lands. With no digest recorded for the archive, ``record=True`` records the one
    downloaded (trust on first use, reported in the log); otherwise it is an error.
    """
    dest = Path(dest)
    archive = dest / ARCHIVE
    recorded = read_checksums(checksums)
    expected = recorded.get(ARCHIVE)
    if expected is None and not record:
        raise DataError(
            f"{checksums}: no SHA-256 recorded for {ARCHIVE}; record the one you download with "
            f"`hinter sbic-download --record` and commit the file"
        )
    if archive.exists() and expected is not None and sha256_of(archive) == expected:
        log.info("%s: present and verified (sha256 %s)", archive, expected)
    else:
        if archive.exists():
            log.warning(
                "%s: present but its SHA-256 differs from the recorded one; downloading", archive
            )
        log.info("downloading %s", url)
        with io.atomic_path(archive) as tmp:
            digest = fetch(url, tmp, timeout)
            if expected is None:
                record_checksum(checksums, ARCHIVE, digest)
                log.warning(
                    "recorded sha256 %s for %s in %s (first download)", digest, ARCHIVE, checksums
                )
            elif digest != expected:
                raise DataError(
                    f"{url}: SHA-256 {digest} differs from the {expected} recorded in {checksums}; "
                    "the file was not kept"
                )
        log.info("%s: verified (sha256 %s)", archive, digest)
    return extract(archive, dest, digests=recorded)


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class Row:
    """The fields of one SBIC row that extraction uses."""

    where: str  # file:line
    post: str
    categories: tuple[str, ...]
    groups: tuple[str, ...]


def _rows(path: str | Path, aggregated: bool) -> Iterator[Row]:
    path = Path(path)
    csv.field_size_limit(1 << 24)
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        start = 2
        try:
            missing = [c for c in _NEEDED if c not in (reader.fieldnames or [])]
            if missing:
                raise DataError(
                    f"{path}:1: missing column(s) {', '.join(missing)} (not an SBIC file?)"
                )
            for record in reader:
                where = f"{path}:{start}"
                start = reader.line_num + 1
                if None in record:
                    raise DataError(f"{where}: more fields than the header")
                if aggregated:
                    groups_raw = _json_list(record["targetMinority"], where, "targetMinority")
                    categories_raw = _json_list(record["targetCategory"], where, "targetCategory")
                else:
                    groups_raw = [record["targetMinority"] or ""]
                    categories_raw = [record["targetCategory"] or ""]
                groups = dict.fromkeys(g for cell in groups_raw for g in split_groups(cell))
                categories = dict.fromkeys(
                    c for cell in categories_raw for c in split_categories(cell)
                )
                yield Row(where, record["post"] or "", tuple(categories), tuple(groups))
        except (UnicodeDecodeError, csv.Error) as exc:
            raise DataError(f"{path}:{start}: unreadable CSV ({exc})") from None


def _json_list(value: str | None, where: str, column: str) -> list[str]:
    try:
        items = json.loads(value or "[]")
    except json.JSONDecodeError:
        raise DataError(f"{where}: {column} is not a JSON list ({(value or '')[:40]!r})") from None
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise DataError(f"{where}: {column} is not a JSON list of strings")
    return items


def read_annotations(path: str | Path) -> Iterator[Row]:
    """Rows of a per-annotation file (``SBIC.v2.<split>.csv``)."""
    return _rows(path, aggregated=False)


def read_aggregated(path: str | Path) -> Iterator[Row]:
    """Rows of an aggregated file (``SBIC.v2.agg.<split>.csv``)."""
    return _rows(path, aggregated=True)


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number


def _format_float(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def aggregate(annotations: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """Aggregated rows from per-annotation rows, as the authors' ``SBIC.v2.agg.*`` files hold them.

    Posts sorted by text; text fields = sorted distinct non-empty values, JSON-encoded; class
    fields = mean of the numeric values; ``hasBiasedImplication`` = 1 when *no* implication was
    written (the README's expression, kept as is); ``dataSource`` = the post's first value.
    A post whose ``offensiveYN`` no annotation filled in is left out, as the authors' files
    leave it (their mean is NaN and the row is dropped): the real dev split has 4,673 posts in
    the per-annotation file and 4,666 in the aggregated one, and those 7 are exactly the posts
    without an offensiveness rating (tests/unit/test_sbic_real.py checks every row and field).
    """
    by_post: dict[str, list[Mapping[str, str]]] = defaultdict(list)
    for row in annotations:
        by_post[row["post"]].append(row)
    out = []
    for index, post in enumerate(sorted(by_post)):  # the index counts the dropped posts too
        rows = by_post[post]
        if all(_number(r["offensiveYN"]) is None for r in rows):
            continue
        agg: dict[str, str] = {"": str(index), "post": post}
        for name in TEXT_FIELDS:
            agg[name] = json.dumps(sorted({r[name] for r in rows if r[name]}))
        for name in CLASS_FIELDS:
            values = [v for v in (_number(r[name]) for r in rows) if v is not None]
            agg[name] = _format_float(sum(values) / len(values) if values else None)
        agg["dataSource"] = rows[0]["dataSource"]
        agg["hasBiasedImplication"] = str(int(agg["targetStereotype"] == "[]"))
        out.append(agg)
    return out


def write_csv(path: str | Path, columns: Sequence[str], rows: Iterable[Mapping[str, str]]) -> None:
    """Write an SBIC-format CSV atomically (comma-separated, minimal quoting, LF)."""
    with io.atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row[c] for c in columns])


# ---------------------------------------------------------------------------------------------
# Term extraction


@dataclass(frozen=True)
class Mention:
    """A group term attributed to a category in one post, and how the attribution was made."""

    post_id: str
    split: str
    category: str
    term: str
    method: str
    annotations: int | None


@dataclass
class Extraction:
    mentions: list[Mention]
    stats: dict[str, int] = field(default_factory=dict)


def post_id(post: str) -> str:
    """Stable key of a post (its text is not copied into our tables)."""
    return hashlib.blake2b(post.encode("utf-8"), digest_size=8).hexdigest()


def _split_of(path: str | Path) -> str:
    name = Path(path).name
    parts = name.split(".")
    return parts[-2] if len(parts) >= 3 else name


def extract_mentions(
    annotations: Sequence[str | Path] = (),
    aggregated: Sequence[str | Path] | None = None,
) -> Extraction:
    """Attribute every group term to a category, per post.

    The unit is the post of the aggregated files when ``aggregated`` is given (the paper used the
    aggregated dev split), else the posts of the per-annotation files. Methods, in order:
    ``annotation`` — the group and its category come from the same annotation row;
    ``single_category`` — an aggregated post with one category (no other reading possible);
    ``majority`` — a post with several categories and no annotation rows: the category among the
    post's whose aligned evidence for this term (elsewhere in the data) has the most posts;
    ``unresolved`` — no evidence or a tie: the category is the candidates joined by ``+``.
    """
    by_post: dict[str, list[Row]] = defaultdict(list)
    split_of: dict[str, str] = {}
    for path in annotations:
        for row in read_annotations(path):
            by_post[row.post].append(row)
            split_of.setdefault(row.post, _split_of(path))
    units: dict[str, Row | None] = {}
    if aggregated is not None:
        for path in aggregated:
            for row in read_aggregated(path):
                if row.post not in units:
                    units[row.post] = row
                    split_of.setdefault(row.post, _split_of(path))
    else:
        units = dict.fromkeys(by_post)

    counts: dict[tuple[str, str, str, str], int | None] = {}
    pending: list[tuple[str, str, tuple[str, ...], int | None]] = []
    stats: Counter = Counter()

    def add(post: str, category: str, term: str, method: str, n: int | None) -> None:
        key = (post, category, term, method)
        old = counts.get(key)
        counts[key] = n if old is None else old + (n or 0)

    for post, agg in units.items():
        stats["posts"] += 1
        rows = by_post.get(post, [])
        if rows:
            stats["posts_with_annotations"] += 1
            named: set[str] = set()
            aligned: set[tuple[str, str]] = set()
            for row in rows:
                named.update(row.groups)
                if len(row.categories) == 1:
                    for term in row.groups:
                        add(post, row.categories[0], term, "annotation", 1)
                        aligned.add((row.categories[0], term))
                elif row.groups:
                    candidates = row.categories or (agg.categories if agg else ())
                    pending.extend((post, term, candidates, 1) for term in row.groups)
            if agg is not None and set(agg.groups) != named:
                stats["posts_annotations_disagree"] += 1
            if agg is not None and len(agg.categories) > 1:
                # What crossing the pooled lists (the paper's extractor) would have added.
                crossed = {(c, g) for c in agg.categories for g in agg.groups}
                stats["cross_pairs_avoided"] += len(crossed - aligned)
        elif agg is not None:
            if len(agg.categories) == 1:
                for term in agg.groups:
                    add(post, agg.categories[0], term, "single_category", None)
            elif agg.groups:
                pending.extend((post, term, agg.categories, None) for term in agg.groups)
        if agg.groups if agg is not None else any(r.groups for r in rows):
            stats["posts_with_groups"] += 1

    evidence: dict[str, Counter] = defaultdict(Counter)
    for _post, category, term, _method in counts:
        evidence[term][category] += 1
    for post, term, candidates, n in pending:
        scores = Counter({c: evidence[term][c] for c in candidates})
        ranked = scores.most_common()
        if ranked and ranked[0][1] > 0 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            add(post, ranked[0][0], term, "majority", n)
        else:
            add(post, "+".join(sorted(candidates)) or "unknown", term, "unresolved", n)

    mentions = [
        Mention(post_id(post), split_of.get(post, ""), category, term, method, n)
        for (post, category, term, method), n in counts.items()
    ]
    mentions.sort(key=lambda m: (m.category, m.term, m.method, m.post_id))
    for m in mentions:
        stats[f"mentions_{m.method}"] += 1
    return Extraction(mentions, dict(sorted(stats.items())))


def term_rows(mentions: Iterable[Mention]) -> list[tuple[str, str, str, int, int | None]]:
    """(category, term, method, posts, annotations) sorted by category, term, method."""
    posts: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    notes: dict[tuple[str, str, str], int | None] = {}
    for m in mentions:
        key = (m.category, m.term, m.method)
        posts[key].add(m.post_id)
        if m.annotations is not None:
            notes[key] = (notes.get(key) or 0) + m.annotations
        else:
            notes.setdefault(key, None)
    return [(*key, len(posts[key]), notes[key]) for key in sorted(posts)]


def mentions_table(mentions: Sequence[Mention]) -> pa.Table:
    return pa.Table.from_pylist([m.__dict__ for m in mentions], schema=MENTIONS)


def write_extraction(
    extraction: Extraction, terms_path: str | Path, mentions_path: str | Path, stats_path=None
) -> None:
    """sbic_terms.tsv (the per-category term table), sbic_mentions.parquet and stats JSON."""
    write_tsv(terms_path, TERMS_COLUMNS, term_rows(extraction.mentions))
    io.write_parquet(mentions_table(extraction.mentions), mentions_path, MENTIONS)
    if stats_path is not None:
        io.write_json(stats_path, extraction.stats)


def read_mentions(path: str | Path) -> list[Mention]:
    table = io.read_parquet(path, MENTIONS)
    return [Mention(**row) for row in table.to_pylist()]


# ---------------------------------------------------------------------------------------------
