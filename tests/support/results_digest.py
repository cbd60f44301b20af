"""Digest of a results tree, to show that a refactor leaves a run's outputs byte-identical.

    python tests/support/results_digest.py results/demo > after.txt
    diff before.txt after.txt

Prints one line per file (``sha256  path``) and a last line with the digest of all of them.
Left out, because they differ between two runs of the same code: ``logs/`` and
``benchmarks/`` (wall times), and in ``training.json`` the trainer's timing fields
(``*_runtime``, ``*_per_second``, ``train_seconds``…), which are removed before hashing; every
other byte counts.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

SKIPPED_DIRS = {"logs", "benchmarks"}
TIMING_MARKERS = ("runtime", "per_second", "seconds", "elapsed", "duration")


def _without_timings(value):
    if isinstance(value, dict):
        return {
            k: _without_timings(v)
            for k, v in value.items()
            if not any(marker in k for marker in TIMING_MARKERS)
        }
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name == "training.json":
        data = json.dumps(_without_timings(json.loads(data)), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def tree_digest(root: Path) -> list[tuple[str, str]]:
    """(digest, relative path) of every file of ``root`` outside the skipped folders, sorted."""
    rows = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not SKIPPED_DIRS.intersection(rel.parts):
            rows.append((file_digest(path), rel.as_posix()))
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: results_digest.py RESULTS_DIR", file=sys.stderr)
        return 2
    rows = tree_digest(Path(argv[0]))
    total = hashlib.sha256("".join(f"{d}  {p}\n" for d, p in rows).encode()).hexdigest()
    for digest, rel in rows:
        print(f"{digest}  {rel}")
    print(f"{total}  ({len(rows)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
