"""Datasets under test: facts, hub download, normalisation to the documents table, sharding.

Every dataset becomes ``<split>.parquet`` files with columns ``doc_id, text, labels``
(docs/design.md §4)
and a sidecar ``meta.json`` (label names, task type, source and revision, row counts). The facts
of docs/design.md §7 are checked on every download, so a changed upstream dataset fails loudly.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import hub, io, tables
from hinter.errors import DataError, OfflineError, first_line
from hinter.plan.suites import shard_of

log = logging.getLogger(__name__)

SPLITS = ("train", "validation", "test")

ECTHR_ARTICLES = ("2", "3", "5", "6", "8", "9", "10", "11", "14", "P1-1")
# The hub's SCOTUS ClassLabel: issue areas 1-13. The paper's 14th area (Private Action) has no
# class there; it stays a display-only name for the prompts (resources/labels/scotus.tsv).
SCOTUS_ISSUE_AREAS = tuple(str(i) for i in range(1, 14))


@dataclass(frozen=True)
class DatasetFacts:
    """What we know of a dataset and check after every download (docs/design.md §7)."""

    name: str
    task_type: str  # multi_label | multi_class
    repo: str
    config_name: str | None
    revision: str
    text_field: str
    label_field: str
    n_labels: int
    split_sizes: Mapping[str, int]
    hub_label_names: tuple[str, ...] | None = None  # exact ClassLabel names when fixed by the facts
    labels_present: int | None = None  # labels that occur at least once (SCOTUS: all 13)
    empty_label_name: str | None = None  # ECtHR: an empty set means "no violation"
    splits_on_hub: tuple[str, ...] = SPLITS
    extra: Mapping[str, Any] = field(default_factory=dict)


# LexGLUE's hub copy serves Parquet from `main`; the resolved commit is recorded in meta.json on
# download. Pin `data.hub.<dataset>.revision` to it to freeze a reproduction.
def _lexglue(name: str, task_type: str, label_field: str, n_labels: int, sizes, **more):
    """A LexGLUE task: its hub config is its name, its text the field ``text``."""
    splits = dict(zip(SPLITS, sizes, strict=True))
    return DatasetFacts(
        name, task_type, "coastalcph/lex_glue", name, "main", "text", label_field, n_labels, splits,
        **more,
    )  # fmt: skip


# fmt: off
FACTS: dict[str, DatasetFacts] = {
    "ecthr_a": _lexglue(
        "ecthr_a", "multi_label", "labels", 10, (9000, 1000, 1000),
        hub_label_names=ECTHR_ARTICLES, empty_label_name="none",
    ),
    "scotus": _lexglue(
        "scotus", "multi_class", "label", 13, (5000, 1400, 1400),
        hub_label_names=SCOTUS_ISSUE_AREAS, labels_present=13,
    ),
    "eurlex": _lexglue("eurlex", "multi_label", "labels", 100, (55000, 5000, 5000)),
    "ledgar": _lexglue("ledgar", "multi_class", "label", 100, (60000, 10000, 10000)),
    "imdb": DatasetFacts(
        "imdb", "multi_class", "stanfordnlp/imdb", None, "e6281661ce1c48d982bc483cf8a173c1bbeb5d31",
        "text", "label", 2, {"train": 25000, "validation": 0, "test": 25000},
        hub_label_names=("neg", "pos"), splits_on_hub=("train", "test"),
    ),
}
# fmt: on


def label_table(dataset: str, labels_dir: str | Path) -> list[tuple[str | None, str]]:
    """``resources/labels/<dataset>.tsv``: (hub class name, display name) per line, in label-id
    order; a hub name of ``-`` marks a display-only name (no class on the hub), allowed only after
    every class. One-line errors name the file and line."""
    path = Path(labels_dir) / f"{dataset}.tsv"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(f"{path}: cannot read the label names ({exc.strerror})") from None
    if not lines or lines[0].split("\t") != ["hub_name", "display_name"]:
        raise DataError(f"{path}: line 1 must be the header 'hub_name<TAB>display_name'")
    rows: list[tuple[str | None, str]] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 2 or not all(cells):
            raise DataError(f"{path} line {number}: expected 'hub_name<TAB>display_name'")
        hub_name = None if cells[0] == "-" else cells[0]
        if hub_name is not None and rows and rows[-1][0] is None:
            raise DataError(f"{path} line {number}: a class after a display-only name ('-')")
        rows.append((hub_name, cells[1]))
    n_classes = sum(1 for hub_name, _ in rows if hub_name is not None)
    if n_classes != FACTS[dataset].n_labels:
        raise DataError(f"{path}: {n_classes} label names, expected {FACTS[dataset].n_labels}")
    return rows


def display_names(dataset: str, labels_dir: str | Path) -> list[str]:
    """Human-readable label names (`001` Table 6): one per hub class in label-id order, then the
    display-only names (SCOTUS's 14th issue area, which the paper's prompt lists)."""
    return [display for _, display in label_table(dataset, labels_dir)]


def check_label_order(dataset: str, label_names: list[str], labels_dir: str | Path) -> None:
    """The labels resource must name the loaded dataset's classes in the same order, or every
    display name (and every prompt answer) would be attributed to the wrong class."""
    expected = [hub_name for hub_name, _ in label_table(dataset, labels_dir) if hub_name]
    if expected != list(label_names):
        first = next(
            (
                i
                for i, pair in enumerate(zip(expected, label_names, strict=False))
                if len(set(pair)) > 1
            ),
            min(len(expected), len(label_names)),
        )
        raise DataError(
            f"{Path(labels_dir) / f'{dataset}.tsv'}: hub names differ from the dataset's labels "
            f"from label {first} on"
        )


def _offline_message(what: str) -> str:
    return (
        f"{what} is on the HuggingFace hub, which is unreachable offline: go online "
        "(unset HF_HUB_OFFLINE/HF_DATASETS_OFFLINE), or read a local mirror (fill it where there "
        "is internet with `snakemake download --config 'data={mirror: DIR}'`, then run with "
        "data.source: mirror and data.mirror: DIR), or run the offline demo "
        "(--configfile config/demo.yaml)"
    )


def load_hub(facts: DatasetFacts, source: Mapping[str, Any]):
    """Load a dataset from the hub (or a local ``save_to_disk`` folder); return (DatasetDict, sha).

    Offline, or when the hub cannot be reached within seconds, raise :class:`OfflineError`
    instead of letting `datasets` retry for a minute.
    """
    import datasets

    repo = source.get("repo", facts.repo)
    name = source.get("name", facts.config_name)
    revision = source.get("revision", facts.revision)
    local = Path(repo)
    if local.is_dir():
        try:
            return datasets.load_from_disk(str(local)), f"local:{local.resolve()}"
        except Exception as exc:  # any failure to read the local copy is the file's fault
            raise DataError(f"{local}: cannot load the local dataset ({first_line(exc)})") from None
    what = f"dataset {repo}" + (f" ({name})" if name else "")
    if hub.offline():
        raise OfflineError(_offline_message(what))
    from huggingface_hub import HfApi

    try:
        info = HfApi().dataset_info(repo, revision=revision, timeout=15)
    except Exception as exc:
        hub.raise_if_no_revision(exc, repo, revision)
        raise OfflineError(f"{_offline_message(what)} [{first_line(exc)}]") from None
    sha = info.sha or revision
    dsd = datasets.load_dataset(repo, name, revision=sha)
    return dsd, sha


def _label_names(feature) -> list[str] | None:
    """ClassLabel names of a label feature (plain or inside a Sequence/List)."""
    inner = getattr(feature, "feature", feature)
    return list(inner.names) if hasattr(inner, "names") else None


def normalise(
    facts: DatasetFacts, dsd, *, check_sizes: bool = True, source: str = ""
) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """Turn a hub-shaped DatasetDict into documents tables and metadata; check the facts.

    ECtHR paragraphs (a list of strings) are joined with newlines; single labels become
    one-element lists. Raises :class:`DataError` naming the dataset, split and row on a mismatch.
    """
    where = source or facts.name
    splits_present = [s for s in dsd if s in SPLITS]
    missing = [s for s in facts.splits_on_hub if s not in dsd]
    if missing:
        raise DataError(f"{where}: split(s) {', '.join(missing)} missing")
    label_names = None
    tables_out: dict[str, pa.Table] = {}
    for split in SPLITS:
        if split not in splits_present:
            tables_out[split] = pa.Table.from_pylist([], schema=tables.DOCUMENTS)
            continue
        ds = dsd[split]
        for column in (facts.text_field, facts.label_field):
            if column not in ds.column_names:
                raise DataError(f"{where}/{split}: column {column!r} missing")
        names = _label_names(ds.features[facts.label_field])
        if names is None:
            raise DataError(f"{where}/{split}: column {facts.label_field!r} is not a ClassLabel")
        if label_names is None:
            label_names = names
        elif names != label_names:
            raise DataError(f"{where}/{split}: label names differ from the other splits")
        texts, labels = [], []
        for i, (text, label) in enumerate(
            zip(ds[facts.text_field], ds[facts.label_field], strict=True)
        ):
            texts.append(_join_text(text, f"{where}/{split} row {i}"))
            labels.append(_as_label_list(label, facts, len(names), f"{where}/{split} row {i}"))
        ids = [f"{split}-{i:06d}" for i in range(len(texts))]
        tables_out[split] = pa.table(
            {"doc_id": ids, "text": texts, "labels": labels}, schema=tables.DOCUMENTS
        )
    assert label_names is not None
    check_facts(facts, label_names, tables_out, check_sizes=check_sizes, where=where)
    meta = {
        "dataset": facts.name,
        "task_type": facts.task_type,
        "label_names": label_names,
        "n_labels": len(label_names),
        "empty_label_name": facts.empty_label_name,
        "rows": {split: tables_out[split].num_rows for split in SPLITS},
    }
    return tables_out, meta


def _join_text(text, where: str) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, list) and all(isinstance(p, str) for p in text):
        return "\n".join(text)
    raise DataError(f"{where}: text is neither a string nor a list of paragraphs")


def _as_label_list(label, facts: DatasetFacts, n: int, where: str) -> list[int]:
    values = label if isinstance(label, list) else [label]
    if facts.task_type == "multi_class" and len(values) != 1:
        raise DataError(f"{where}: a multi-class dataset needs exactly one label")
    out = []
    for v in values:
        if not isinstance(v, int) or not 0 <= v < n:
            raise DataError(f"{where}: label {v!r} outside 0..{n - 1}")
        out.append(int(v))
    return sorted(set(out))


def check_facts(
    facts: DatasetFacts,
    label_names: list[str],
    split_tables: Mapping[str, pa.Table],
    *,
    check_sizes: bool,
    where: str,
) -> None:
    """Label space, label names, labels present and split sizes as docs/design.md §7 states them."""
    if len(label_names) != facts.n_labels:
        raise DataError(
            f"{where}: {len(label_names)} labels, expected {facts.n_labels}"
            + (" (an old loader with 127 EuroVoc labels?)" if facts.name == "eurlex" else "")
        )
    if facts.hub_label_names is not None and tuple(label_names) != facts.hub_label_names:
        raise DataError(
            f"{where}: label names {label_names} differ from {list(facts.hub_label_names)}"
        )
    if facts.labels_present is not None:
        present = set()
        for table in split_tables.values():
            for labels in table.column("labels").to_pylist():
                present.update(labels)
        if len(present) != facts.labels_present:
            raise DataError(
                f"{where}: {len(present)} labels occur, expected {facts.labels_present} "
                f"of {facts.n_labels}"
            )
    if check_sizes:
        for split, expected in facts.split_sizes.items():
            got = split_tables[split].num_rows
            if got != expected:
                raise DataError(f"{where}/{split}: {got} rows, expected {expected}")


def write_dataset(out_dir: str | Path, split_tables: Mapping[str, pa.Table], meta: dict) -> None:
    """Write the split files and meta.json; each atomically, the sidecar last."""
    out_dir = Path(out_dir)
    for split in SPLITS:
        io.write_parquet(split_tables[split], out_dir / f"{split}.parquet", tables.DOCUMENTS)
    io.write_json(out_dir / "meta.json", meta)


def load_mirror(facts: DatasetFacts, source: Mapping[str, Any], mirror: str | Path):
    """Load a dataset from a local mirror in the hub's layout (``hinter.mirror``); return
    (DatasetDict, commit, the repo's folder in the mirror)."""
    from hinter import mirror as mirrors

    repo = source.get("repo", facts.repo)
    name = source.get("name", facts.config_name)
    return mirrors.load(mirror, repo, name, source.get("revision", facts.revision))


def prepare_from_hub(
    dataset: str,
    source: Mapping[str, Any],
    out_dir: str | Path,
    labels_dir: str | Path | None = None,
    mirror: str | Path | None = None,
) -> dict:
    """Download (or read from ``mirror`` or a local copy), normalise, check and write one
    dataset; return its meta. A mirror gives the same tables and meta.json as the hub, with the
    mirror's folder recorded beside the commit its files came from."""
    facts = FACTS[dataset]
    local = None
    if mirror is not None:
        dsd, sha, local = load_mirror(facts, source, mirror)
    else:
        dsd, sha = load_hub(facts, source)
    repo = source.get("repo", facts.repo)
    split_tables, meta = normalise(facts, dsd, check_sizes=True, source=str(repo))
    if labels_dir is not None:
        check_label_order(dataset, meta["label_names"], labels_dir)
        meta["display_names"] = display_names(dataset, labels_dir)
    meta["source"] = {
        "repo": repo,
        "name": source.get("name", facts.config_name),
        "revision": sha,
    }
    if local is not None:
        meta["source"]["mirror"] = str(local)
    write_dataset(out_dir, split_tables, meta)
    return meta


def tested_shard(
    split_paths: Mapping[str, str | Path],
    splits: list[str],
    shard: int,
    n_shards: int,
    max_documents: int | None = None,
) -> pa.Table:
    """The documents under test that fall into ``shard``, with their rank in the tested order."""
    rows: dict[str, list] = {name: [] for name in tables.TESTED_DOCUMENTS.names}
    position = 0
    for split in splits:
        table = io.read_parquet(split_paths[split], tables.DOCUMENTS)
        for doc_id, text, labels in zip(
            table.column("doc_id").to_pylist(),
            table.column("text").to_pylist(),
            table.column("labels").to_pylist(),
            strict=True,
        ):
            if max_documents is not None and position >= max_documents:
                break
            if shard_of(doc_id, n_shards) == shard:
                rows["doc_id"].append(doc_id)
                rows["split"].append(split)
                rows["position"].append(position)
                rows["text"].append(text)
                rows["labels"].append(labels)
            position += 1
    return pa.table(rows, schema=tables.TESTED_DOCUMENTS)
