"""SBIC acquisition: download over loopback HTTP, checksum verification, safe extraction."""

from __future__ import annotations

import hashlib
import http.server
import io as _io
import socket
import tarfile
import threading
from pathlib import Path

import pytest

from hinter import cli
from hinter.config import REPO_ROOT
from hinter.dictionary import sbic
from hinter.errors import DataError

CSVS = sbic.member_names()


def make_archive(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> str:
    """A gzipped tar like SBIC.v2.tgz; returns its SHA-256."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, _io.BytesIO(data))
        for name in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sbic_members() -> dict[str, bytes]:
    members = {
        name: f"post,targetMinority,targetCategory\n{name},[],[]\n".encode() for name in CSVS
    }
    members["README.md"] = b"the archive's own README\n"
    members["LICENSE"] = b"CC-BY-4.0\n"
    return members


class Server:
    """A loopback HTTP server over one folder that counts its requests."""

    def __init__(self, root: Path):
        self.requests = 0
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_GET(self):
                outer.requests += 1
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    digest = make_archive(root / "SBIC.v2.tgz", sbic_members())
    with Server(root) as server:
        yield server, digest


def checksums_file(tmp_path: Path, digest: str | None) -> Path:
    path = tmp_path / "checksums.sha256"
    path.write_text(
        "# comment\n" + (f"{digest}  SBIC.v2.tgz\n" if digest else ""), encoding="utf-8"
    )
    return path


def test_download_verifies_then_extracts_only_the_csvs(tmp_path, served):
    server, digest = served
    dest = tmp_path / "resources" / "sbic"
    dest.mkdir(parents=True)
    (dest / "README.md").write_text("ours\n", encoding="utf-8")
    written = sbic.acquire(f"{server.url}/SBIC.v2.tgz", dest, checksums_file(tmp_path, digest))
    assert sorted(p.name for p in written) == sorted(CSVS)
    assert (dest / "README.md").read_text(encoding="utf-8") == "ours\n"
    assert not (dest / "LICENSE").exists()
    assert sbic.sha256_of(dest / "SBIC.v2.tgz") == digest
    assert (dest / "SBIC.v2.agg.dev.csv").read_text(encoding="utf-8").startswith("post,")
    assert server.requests == 1
    # A verified archive already in place is reused: no second request.
    sbic.acquire(f"{server.url}/SBIC.v2.tgz", dest, checksums_file(tmp_path, digest))
    assert server.requests == 1


def test_wrong_checksum_keeps_nothing(tmp_path, served):
    server, digest = served
    dest = tmp_path / "sbic"
    wrong = "0" * 64
    with pytest.raises(DataError, match=f"SHA-256 {digest} differs from the {wrong}") as info:
        sbic.acquire(f"{server.url}/SBIC.v2.tgz", dest, checksums_file(tmp_path, wrong))
    assert "\n" not in str(info.value)
    assert not (dest / "SBIC.v2.tgz").exists()
    assert not list(dest.glob("*.csv"))
    assert not list(dest.glob(".*.tmp"))


def test_tampered_local_archive_is_downloaded_again(tmp_path, served):
    server, digest = served
    dest = tmp_path / "sbic"
    dest.mkdir()
    (dest / "SBIC.v2.tgz").write_bytes(b"truncated")
    sbic.acquire(f"{server.url}/SBIC.v2.tgz", dest, checksums_file(tmp_path, digest))
    assert server.requests == 1
    assert sbic.sha256_of(dest / "SBIC.v2.tgz") == digest


def test_missing_digest_needs_record(tmp_path, served):
    server, digest = served
    checksums = checksums_file(tmp_path, None)
    with pytest.raises(DataError, match=r"no SHA-256 recorded for SBIC\.v2\.tgz.*--record"):
        sbic.acquire(f"{server.url}/SBIC.v2.tgz", tmp_path / "sbic", checksums)
    assert server.requests == 0
    sbic.acquire(f"{server.url}/SBIC.v2.tgz", tmp_path / "sbic", checksums, record=True)
    assert sbic.read_checksums(checksums) == {"SBIC.v2.tgz": digest}
    assert checksums.read_text(encoding="utf-8").startswith("# comment\n")


def test_cli_records_and_extracts_from_a_local_path(tmp_path, capsys):
    archive = tmp_path / "copy.tgz"
    digest = make_archive(archive, sbic_members())
    checksums = checksums_file(tmp_path, None)
    args = [
        "sbic-download",
        "--url",
        str(archive),
        "--dest",
        str(tmp_path / "out"),
        "--checksums",
        str(checksums),
    ]
    assert cli.main(args) == 1
    assert "no SHA-256 recorded" in capsys.readouterr().err
    assert cli.main([*args, "--record"]) == 0
    assert len(capsys.readouterr().out.split()) == 6
    assert sbic.read_checksums(checksums)["SBIC.v2.tgz"] == digest
    # file:// URLs work too, and are verified like any other.
    written = sbic.acquire(archive.as_uri(), tmp_path / "again", checksums)
    assert len(written) == 6


def test_http_and_connection_errors_are_one_line(tmp_path, served):
    server, digest = served
    checksums = checksums_file(tmp_path, digest)
    with pytest.raises(DataError, match=r"SBIC.v3.tgz: download failed \(HTTP 404"):
        sbic.acquire(f"{server.url}/SBIC.v3.tgz", tmp_path / "sbic", checksums)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DataError, match=r"download failed .*offline, put SBIC\.v2\.tgz in") as info:
        sbic.acquire(
            f"http://127.0.0.1:{port}/SBIC.v2.tgz", tmp_path / "sbic", checksums, timeout=5
        )
    assert "\n" not in str(info.value)
    with pytest.raises(DataError, match="file not found"):
        sbic.acquire(str(tmp_path / "nowhere.tgz"), tmp_path / "sbic", checksums)


@pytest.mark.parametrize(
    ("members", "links", "message"),
    [
        ({n: b"x" for n in CSVS[:5]}, (), f"missing {CSVS[5]}"),
        ({n: b"x" for n in CSVS[:5]}, (CSVS[5],), "is not a regular file"),
        ({**{n: b"x" for n in CSVS}, f"copy/{CSVS[0]}": b"y"}, (), "appears twice"),
    ],
)
def test_unsafe_or_incomplete_archives(tmp_path, members, links, message):
    archive = tmp_path / "SBIC.v2.tgz"
    digest = make_archive(archive, members, links)
    dest = tmp_path / "sbic"
    with pytest.raises(DataError, match=message):
        sbic.acquire(str(archive), dest, checksums_file(tmp_path, digest))


def test_corrupt_archive_with_matching_digest(tmp_path):
    archive = tmp_path / "SBIC.v2.tgz"
    archive.write_bytes(b"\x1f\x8b not really gzip")
    digest = sbic.sha256_of(archive)
    with pytest.raises(DataError, match="unreadable archive"):
        sbic.acquire(str(archive), tmp_path / "sbic", checksums_file(tmp_path, digest))


def test_checksums_file_format(tmp_path):
    path = tmp_path / "checksums.sha256"
    path.write_text("# ok\n\n" + "a" * 64 + "  x.tgz\nnot-a-digest  y.tgz\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"checksums.sha256:4: expected"):
        sbic.read_checksums(path)
    shipped = sbic.read_checksums(REPO_ROOT / "resources" / "sbic" / "checksums.sha256")
    # the archive's digest and the two members' known (the dev split's; see the file's comment)
    assert set(shipped) == {"SBIC.v2.tgz", "SBIC.v2.dev.csv", "SBIC.v2.agg.dev.csv"}
    assert all(len(d) == 64 for d in shipped.values())


def test_a_member_with_another_digest_is_not_kept(tmp_path):
    members = sbic_members()
    archive = tmp_path / "SBIC.v2.tgz"
    digest = make_archive(archive, members)
    good = hashlib.sha256(members["SBIC.v2.dev.csv"]).hexdigest()
    checksums = checksums_file(tmp_path, digest)
    with checksums.open("a") as fh:
        fh.write(f"{good}  SBIC.v2.dev.csv\n" + "0" * 64 + "  SBIC.v2.agg.tst.csv\n")
    with pytest.raises(DataError, match=r"member SBIC\.v2\.agg\.tst\.csv has SHA-256 .* not kept"):
        sbic.acquire(str(archive), tmp_path / "sbic", checksums)
    assert not (tmp_path / "sbic" / "SBIC.v2.agg.tst.csv").exists()
    sbic.record_checksum(
        checksums, "SBIC.v2.agg.tst.csv", hashlib.sha256(members["SBIC.v2.agg.tst.csv"]).hexdigest()
    )
    assert len(sbic.acquire(str(archive), tmp_path / "sbic", checksums)) == 6


def test_a_moved_archive_names_the_authors_current_site(tmp_path, served):
    server, digest = served
    with pytest.raises(DataError, match=r"HTTP 404 .*maartensap\.com/social-bias-frames/"):
        sbic.acquire(
            f"{server.url}/gone/SBIC.v2.tgz", tmp_path / "sbic", checksums_file(tmp_path, digest)
        )


def test_aggregation_drops_posts_nobody_rated_and_keeps_their_index():
    def row(post, offensive, group=""):
        fields = dict.fromkeys(("targetStereotype", "whoTarget", "intentYN", "sexYN"), "")
        category = "race" if group else ""
        return {**fields, "post": post, "offensiveYN": offensive, "targetMinority": group,
                "targetCategory": category, "dataSource": "t/x"}  # fmt: skip

    rows = [row("a", "1.0", "asians"), row("b", ""), row("b", ""), row("c", ""), row("c", "0.0")]
    agg = sbic.aggregate(rows)
    assert [(r[""], r["post"], r["offensiveYN"]) for r in agg] == [
        ("0", "a", "1.0"),
        ("2", "c", "0.0"),
    ]


def test_an_sbic_folder_source_needs_its_folder():
    from hinter.config import validate_config
    from hinter.errors import ConfigError

    cfg = {"run_name": "t", "datasets": ["imdb"], "dictionary": {"sbic": {"source": "folder"}}}
    with pytest.raises(ConfigError, match=r"'dictionary\.sbic\.folder': required with source"):
        validate_config(cfg)
    cfg["dictionary"]["sbic"]["folder"] = "../shared/real/sbic"
    assert validate_config(cfg)["dictionary"]["sbic"]["folder"] == "../shared/real/sbic"
