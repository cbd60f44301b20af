"""A local mirror of the hub's dataset repos, for clusters whose compute nodes have no internet.

Layout (``data.mirror: DIR``): ``DIR/<owner>/<name>/`` holds one hub repo exactly as
``hf download <owner>/<name> --repo-type dataset --revision <sha> --local-dir DIR/<owner>/<name>``
writes it: the repo's files at their paths (the ``README.md`` card, ``<config>/<split>-*.parquet``)
and, per file, ``.cache/huggingface/download/<path>.metadata``, whose first line is the commit the
file was downloaded from. A partial copy (the README and the configs a run needs) is enough.

``fetch`` fills it (``snakemake download``, on a login node); ``load`` reads it back into the same
DatasetDict the hub gives — the card's data files and features of the config — and the commit the
files came from, so ``hinter.data`` normalises, checks and records it like a hub download.

Files are trusted by content, not by path and modification time: the ``.metadata`` file's second
line is the etag the hub served (the SHA-256 of an LFS file, the git blob id of any other), and
``load`` and ``fetch`` check every file the run reads against it. A file replaced after its
download — even with its modification time restored (``cp -p``, ``rsync -a``), which the
``datasets`` cache cannot see — is a one-line error naming the file, and the cache is rebuilt
from the checked files rather than reused.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter import hub
from hinter.errors import DataError, OfflineError, first_line

log = logging.getLogger(__name__)

CARD = "README.md"
METADATA = Path(".cache") / "huggingface" / "download"  # huggingface_hub's local-dir bookkeeping
_SHA = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")


def repo_dir(mirror: str | Path, repo: str) -> Path:
    """``<mirror>/<owner>/<name>``: where the repo ``owner/name`` lives in a mirror."""
    if not _REPO.fullmatch(repo) or ".." in repo:
        raise DataError(f"data.hub: repo {repo!r} is not of the form owner/name")
    return Path(mirror).expanduser() / repo


def _refill(mirror: str | Path) -> str:
    command = f"snakemake download --config 'data={{mirror: {mirror}}}'"
    return f"fill it on a machine with internet: {command}"


def _card_configs(local: Path) -> tuple[dict[str, Any], Any]:
    """The card's ``configs`` (data files per config) and its ``dataset_info`` per config."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    try:
        data = DatasetCard.load(local / CARD).data
    except Exception as exc:
        raise DataError(f"{local / CARD}: unreadable dataset card ({first_line(exc)})") from None
    return MetadataConfigs.from_dataset_card_data(data), DatasetInfosDict.from_dataset_card_data(
        data
    )


def config_name(configs: Mapping[str, Any], name: str | None, where: Path) -> str:
    """The config to read: ``name``, else the card's default (or its only) config."""
    if name is None:
        name = configs.get_default_config_name()
        if name is None and len(configs) == 1:
            name = next(iter(configs))
    if name not in configs:
        known = ", ".join(sorted(configs)) or "none"
        raise DataError(f"{where}: the card declares no config {name!r} (it has: {known})")
    return name


def data_patterns(configs: Mapping[str, Any], name: str) -> dict[str, list[str]]:
    """Split -> the card's path patterns of one config (relative to the repo root)."""
    files = configs[name].get("data_files")
    if isinstance(files, str):
        return {"train": [files]}
    out: dict[str, list[str]] = {}
    for item in files or []:
        if isinstance(item, str):
            out.setdefault("train", []).append(item)
        else:
            paths = item["path"]
            out.setdefault(item["split"], []).extend([paths] if isinstance(paths, str) else paths)
    return out


def commit_of(local: Path, paths: list[str]) -> str:
    """The one commit ``paths`` were downloaded from (their ``.metadata`` files' first line)."""
    commits: dict[str, str] = {}
    for path in paths:
        meta = local / METADATA / f"{path}.metadata"
        try:
            first = meta.read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError):
            raise DataError(
                f"{local}: no download record for {path} ({meta}); the mirror must be written by "
                "`snakemake download` or `hf download --local-dir`"
            ) from None
        if not _SHA.fullmatch(first):
            raise DataError(f"{meta}: line 1 is not a commit hash")
        commits[path] = first
    found = sorted(set(commits.values()))
    if len(found) != 1:
        raise DataError(
            f"{local}: files from {len(found)} commits ({', '.join(c[:12] for c in found)}); "
            "rerun snakemake download to bring them to one revision"
        )
    return found[0]


def file_digest(path: Path, etag: str) -> str:
    """The digest of ``path`` of the etag's kind: SHA-256 (64 hex digits, an LFS file) or the
    git blob id (40 hex digits: SHA-1 of ``blob <size>\\0`` and the bytes)."""
    if _SHA256.fullmatch(etag):
        digest = hashlib.sha256()
    else:
        digest = hashlib.sha1(usedforsecurity=False)
        digest.update(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_content(local: Path, paths: list[str], mirror: str | Path) -> None:
    """Every file in ``paths`` holds the bytes its download record's etag names."""
    for path in paths:
        meta = local / METADATA / f"{path}.metadata"
        try:
            lines = meta.read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        etag = lines[1].strip() if len(lines) > 1 else ""
        if not (_SHA.fullmatch(etag) or _SHA256.fullmatch(etag)):
            raise DataError(
                f"{meta}: line 2 is not the file's etag (a SHA-256 or a git blob id), so the "
                f"file cannot be checked; {_refill(mirror)}"
            )
        try:
            found = file_digest(local / path, etag)
        except OSError as exc:
            raise DataError(f"{local / path}: cannot read it ({first_line(exc)})") from None
        if found != etag:
            raise DataError(
                f"{local / path}: its content is not the one downloaded (etag {etag[:12]}, the "
                f"file's {found[:12]}): the file changed after `snakemake download`; "
                f"{_refill(mirror)}"
            )


def _inside(pattern: str, local: Path, where: Path) -> str:
    """A card's data-file pattern, refused unless it is relative and stays in the repo."""
    parts = Path(pattern).parts
    if Path(pattern).is_absolute() or pattern.startswith(("/", "\\")) or ".." in parts:
        raise DataError(
            f"{where}: data_files pattern {pattern!r} is not a path inside the repo "
            "(absolute or with '..'); a mirror reads only its own files"
        )
    return pattern


@dataclass(frozen=True)
class MirrorCopy:
    """One config of a repo in a mirror: its files per split, commit and card features."""

    local: Path
    name: str
    files: dict[str, list[Path]]
    commit: str
    features: Any  # datasets.Features from the card, or None


def locate(mirror: str | Path, repo: str, name: str | None, revision: str) -> MirrorCopy:
    """Find one config of ``repo`` in the mirror; check it is complete and at ``revision``."""
    local = repo_dir(mirror, repo)
    if not (local / CARD).is_file():
        raise DataError(f"mirror {mirror} has no {repo} (no {local / CARD}); {_refill(mirror)}")
    configs, infos = _card_configs(local)
    name = config_name(configs, name, local / CARD)
    files: dict[str, list[Path]] = {}
    for split, patterns in data_patterns(configs, name).items():
        patterns = [_inside(p, local, local / CARD) for p in patterns]
        try:
            found = sorted({p for pattern in patterns for p in local.glob(pattern) if p.is_file()})
        except (NotImplementedError, ValueError, OSError) as exc:
            raise DataError(
                f"{local / CARD}: data_files {', '.join(patterns)}: {first_line(exc)}"
            ) from None
        if not found:
            raise DataError(
                f"mirror {mirror}: {repo} ({name}) has no files for split {split} "
                f"({', '.join(patterns)}); {_refill(mirror)}"
            )
        files[split] = found
    relative = [CARD] + [p.relative_to(local).as_posix() for ps in files.values() for p in ps]
    commit = commit_of(local, relative)
    if _SHA.fullmatch(revision) and revision != commit:
        raise DataError(
            f"mirror {mirror}: {repo} is at commit {commit}, the config pins {revision}; "
            f"{_refill(mirror)}"
        )
    check_content(local, relative, mirror)
    info = infos.get(name)
    return MirrorCopy(local, name, files, commit, info.features if info else None)


def load(mirror: str | Path, repo: str, name: str | None, revision: str):
    """The DatasetDict of one config of a mirrored repo and the commit it was downloaded from."""
    import datasets

    copy = locate(mirror, repo, name, revision)
    try:
        dsd = datasets.load_dataset(
            "parquet",
            data_files={split: [str(p) for p in ps] for split, ps in copy.files.items()},
            features=copy.features,
            # the cache knows a file by path and mtime only: rebuild it from the checked files
            download_mode="force_redownload",
        )
    except Exception as exc:  # a truncated or foreign file is the mirror's fault
        raise DataError(
            f"{copy.local}: cannot read {repo} ({copy.name}): {first_line(exc)}"
        ) from None
    return dsd, copy.commit, copy.local


def fetch(repo: str, name: str | None, revision: str, mirror: str | Path) -> dict[str, Any]:
    """Download one config of a hub repo into the mirror, in the hub's own layout: the card, then
    the config's data files, all at the commit ``revision`` resolves to. Returns what it fetched."""
    if hub.offline():
        raise OfflineError(
            f"downloading {repo} into the mirror needs the hub: unset HF_HUB_OFFLINE/"
            "HF_DATASETS_OFFLINE and run `snakemake download` on a machine with internet"
        )
    from huggingface_hub import HfApi, hf_hub_download, snapshot_download

    local = repo_dir(mirror, repo)
    try:
        commit = HfApi().dataset_info(repo, revision=revision, timeout=30).sha or revision
        hf_hub_download(repo, CARD, repo_type="dataset", revision=commit, local_dir=local)
        configs, _ = _card_configs(local)
        chosen = config_name(configs, name, local / CARD)
        patterns = [p for ps in data_patterns(configs, chosen).values() for p in ps]
        snapshot_download(
            repo,
            repo_type="dataset",
            revision=commit,
            local_dir=local,
            allow_patterns=[CARD, *patterns],
        )
    except (DataError, OfflineError):
        raise
    except Exception as exc:
        hub.raise_if_no_revision(exc, repo, revision)
        raise OfflineError(
            f"downloading {repo} ({name}) at {revision}: {first_line(exc)}"
        ) from None
    copy = locate(mirror, repo, chosen, commit)
    files = [CARD] + [p.relative_to(local).as_posix() for ps in copy.files.values() for p in ps]
    return {
        "repo": repo,
        "name": chosen,
        "revision": copy.commit,
        "dir": str(local),
        "files": {f: (local / f).stat().st_size for f in files},
    }
