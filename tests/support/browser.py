"""Debian's Chromium and chromedriver for the tests that open pages in a real browser."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

PACKAGES = ("chromium", "chromium-driver")


def _apt_get(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(["apt-get", *args], capture_output=True, text=True, timeout=1200, env=env)


def chromium() -> tuple[str, str]:
    """Paths of Debian's chromium and chromedriver, installed with apt-get when missing (as
    root); the test is skipped, saying why, when they are missing and cannot be installed."""
    found = shutil.which("chromium"), shutil.which("chromedriver")
    if all(found):
        return found  # type: ignore[return-value]
    if not shutil.which("apt-get"):
        pytest.skip("Chromium is not installed and there is no apt-get to install it")
    if os.geteuid() != 0:
        pytest.skip(
            "Chromium is not installed and installing it needs root: "
            f"sudo apt-get install -y {' '.join(PACKAGES)}"
        )
    proc = _apt_get("install", "-y", *PACKAGES)
    if proc.returncode != 0:  # a stale package list: update it once and try again
        _apt_get("update")
        proc = _apt_get("install", "-y", *PACKAGES)
    assert proc.returncode == 0, f"apt-get install {' '.join(PACKAGES)}: {proc.stderr[-2000:]}"
    found = shutil.which("chromium"), shutil.which("chromedriver")
    assert all(found), f"apt-get installed {PACKAGES} but chromium/chromedriver are not on PATH"
    return found  # type: ignore[return-value]
