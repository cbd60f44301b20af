"""The hub mirror trusts a file by its content, not its path and modification time (review
2026-11-28 M08, M09, M03/M04): every file is checked against the etag of its download record,
and a card cannot point outside the repo."""

from __future__ import annotations

import hashlib
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hinter import mirror
from hinter.errors import DataError

COMMIT = "e6281661ce1c48d982bc483cf8a173c1bbeb5d31"
CARD = """---
configs:
- config_name: plain_text
  data_files:
  - split: train
    path: plain_text/train-*
  - split: test
    path: {test}
---
# a mirrored dataset
"""


def _record(local, path: str, etag: str | None) -> None:
    meta = local / mirror.METADATA / f"{path}.metadata"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(f"{COMMIT}\n{etag}\n1700000000.0\n" if etag else f"{COMMIT}\n")


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def make_mirror(root, test_pattern="plain_text/test-*", etags=True):
    """A mirror of one repo in the hub's layout: the card (a git file), two LFS Parquet files."""
    local = root / "someone" / "reviews"
    (local / "plain_text").mkdir(parents=True)
    card = CARD.format(test=test_pattern).encode()
    (local / "README.md").write_bytes(card)
    _record(local, "README.md", _blob_id(card) if etags else None)
    for split, labels in (("train", [0, 1, 0, 1]), ("test", [1, 1, 0, 0])):
        path = f"plain_text/{split}-00000-of-00001.parquet"
        table = pa.table({"text": [f"text {i}" for i in range(4)], "label": labels})
        pq.write_table(table, local / path)
        digest = hashlib.sha256((local / path).read_bytes()).hexdigest()
        _record(local, path, digest if etags else None)
    return local


def test_a_file_replaced_with_its_mtime_restored_is_refused(tmp_path):
    """M09: labels flipped, mtime restored (cp -p, rsync -a): the datasets cache served the old
    labels with exit 0. The etag is the file's SHA-256: the new content is refused."""
    local = make_mirror(tmp_path)
    dsd, commit, _ = mirror.load(tmp_path, "someone/reviews", None, COMMIT)
    assert commit == COMMIT and dsd["test"]["label"] == [1, 1, 0, 0]
    test = local / "plain_text" / "test-00000-of-00001.parquet"
    stat = test.stat()
    pq.write_table(pa.table({"text": [f"text {i}" for i in range(4)], "label": [0, 0, 1, 1]}), test)
    os.utime(test, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(
        DataError, match=r"test-00000-of-00001\.parquet: its content is not the one downloaded"
    ) as info:
        mirror.load(tmp_path, "someone/reviews", None, COMMIT)
    assert "\n" not in str(info.value) and "snakemake download" in str(info.value)


def test_a_truncated_file_is_named(tmp_path):
    """M03: a truncated Parquet file was 'An error occurred while generating the dataset'."""
    local = make_mirror(tmp_path)
    test = local / "plain_text" / "test-00000-of-00001.parquet"
    test.write_bytes(test.read_bytes()[:300])
    with pytest.raises(DataError, match=r"test-00000-of-00001\.parquet: its content is not"):
        mirror.load(tmp_path, "someone/reviews", None, COMMIT)


def test_a_record_without_an_etag_cannot_be_checked(tmp_path):
    make_mirror(tmp_path, etags=False)
    with pytest.raises(DataError, match=r"README\.md\.metadata: line 2 is not the file's etag"):
        mirror.load(tmp_path, "someone/reviews", None, COMMIT)


@pytest.mark.parametrize("pattern", ["/etc/evil/test-*", "../../../evil/test-*"])
def test_a_card_pointing_outside_the_repo_is_one_line(tmp_path, pattern):
    """M08: an absolute data_files path was a NotImplementedError traceback."""
    make_mirror(tmp_path, test_pattern=pattern)
    with pytest.raises(
        DataError, match=r"README\.md: data_files pattern .* is not a path inside the repo"
    ) as info:
        mirror.locate(tmp_path, "someone/reviews", None, COMMIT)
    assert "\n" not in str(info.value)
