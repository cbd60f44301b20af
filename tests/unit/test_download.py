"""The mirror's config keys, `snakemake download`'s checks, and the offline advice."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hinter import data, download
from hinter.config import load_yaml, startup_checks, validate_config
from hinter.errors import ConfigError, DataError, OfflineError

REPO = Path(__file__).resolve().parents[2]


def paper_config(**data_keys) -> dict:
    cfg = load_yaml(REPO / "config" / "config.yaml")
    cfg["data"].update(data_keys)
    return cfg


def test_mirror_source_needs_the_mirror_folder():
    with pytest.raises(ConfigError, match=r"'data\.mirror': data\.source: mirror needs") as info:
        validate_config(paper_config(source="mirror"))
    assert "snakemake download" in str(info.value) and "\n" not in str(info.value)
    cfg = validate_config(paper_config(source="mirror", mirror="/shared/mirror"))
    assert (cfg["data"]["source"], cfg["data"]["mirror"]) == ("mirror", "/shared/mirror")
    assert validate_config(paper_config())["data"]["mirror"] is None  # the default


def test_missing_mirror_folder_stops_the_run_before_any_job(tmp_path):
    cfg = validate_config(paper_config(source="mirror", mirror="absent"))
    cfg["results_dir"] = cfg["cache_dir"] = str(tmp_path / "results")
    with pytest.raises(ConfigError, match=r"'data\.mirror': .*absent is not a folder"):
        startup_checks(cfg, tmp_path, jobs=[("download_dataset", {"dataset": "imdb"})])
    (tmp_path / "absent").mkdir()
    startup_checks(cfg, tmp_path, jobs=[("download_dataset", {"dataset": "imdb"})])


def test_offline_without_a_mirror_says_which_of_the_two_to_use(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError) as info:
        data.prepare_from_hub("scotus", {"repo": "coastalcph/lex_glue"}, tmp_path / "out")
    message = str(info.value)
    assert "\n" not in message
    assert "go online" in message
    assert "data.source: mirror" in message and "snakemake download" in message
    assert not (tmp_path / "out").exists()


def test_download_needs_a_mirror_folder_unless_the_data_is_synthetic(tmp_path):
    cfg = validate_config(paper_config())
    with pytest.raises(ConfigError, match=r"snakemake download needs the folder to fill"):
        download.datasets_to_mirror(cfg)
    assert download.datasets_to_mirror({**cfg, "data": {**cfg["data"], "source": "demo"}}) == []


def test_download_offline_fails_at_once(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = validate_config(paper_config(mirror=str(tmp_path / "mirror")))
    with pytest.raises(OfflineError, match="needs the hub"):
        download.datasets_to_mirror(cfg)
    assert not (tmp_path / "mirror").exists()


def test_download_reports_the_verified_sbic_archive(tmp_path):
    archive = tmp_path / "SBIC.v2.tgz"
    archive.write_bytes(b"archive bytes")
    digest = hashlib.sha256(b"archive bytes").hexdigest()
    checksums = tmp_path / "checksums.sha256"
    checksums.write_text(f"{digest}  SBIC.v2.tgz\n")
    cfg = {"dictionary": {"sbic": {"source": "download"}}}
    got = download.sbic_archive(cfg, tmp_path, checksums)
    assert got == {"archive": str(archive), "bytes": 13, "sha256": digest}
    checksums.write_text(f"{'0' * 64}  SBIC.v2.tgz\n")
    with pytest.raises(DataError, match="differs from"):
        download.sbic_archive(cfg, tmp_path, checksums)
    assert (
        download.sbic_archive({"dictionary": {"sbic": {"source": "demo"}}}, tmp_path, "x") is None
    )


def test_download_names_a_missing_parser_it_cannot_install(tmp_path):
    with pytest.raises(ConfigError, match=r"parser\.pipeline.*en_core_web_zz"):
        download.parser("en_core_web_zz", tmp_path, REPO / "requirements" / "nodeps.lock")
    folder = tmp_path / "pipe"
    folder.mkdir()
    (folder / "meta.json").write_text("{}")
    assert download.parser(str(folder), tmp_path, "unused") == {
        "pipeline": str(folder),
        "installed": False,
    }
