"""An installed wheel (``pip install ./hinter``, the README's CI example) carries the data files
the package reads, and finds them without the checkout (``hinter.paths``, ``setup.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from hinter import paths

CHECK = """
import sys
from pathlib import Path
import hinter
from hinter import paths, config, prompt_spec
from hinter.rq import definitions, outputs

inst = Path(sys.argv[1]).resolve()
assert Path(hinter.__file__).resolve().is_relative_to(inst), hinter.__file__
assert paths.ROOT == inst / "hinter" / "_data", paths.ROOT
config.with_defaults({})  # the schema, read from the wheel
assert prompt_spec.load_prompt_spec("imdb").templates
table = next(o for o in outputs.OUTPUTS[1] if o.kind == outputs.TABLE)
assert definitions.definitions(table)
assert (paths.RESOURCES / "dictionary").is_dir()
print("ok")
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    # built from a copy: an in-tree build would leave build/ in the checkout
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        if (paths.CHECKOUT / name).exists():
            shutil.copy(paths.CHECKOUT / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for folder in ("src", *paths.DATA_DIRS):
        shutil.copytree(paths.CHECKOUT / folder, source / folder, ignore=skip)
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip()[-300:]}")
    (found,) = out.glob("hinter-*.whl")
    return found


def test_the_wheel_carries_every_data_folder(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in paths.DATA_DIRS:
        for path in (paths.CHECKOUT / folder).rglob("*"):
            if path.is_file():
                rel = path.relative_to(paths.CHECKOUT).as_posix()
                assert f"hinter/_data/{rel}" in names, rel


def test_an_installed_package_reads_its_data_without_the_checkout(wheel, tmp_path):
    inst = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(inst)
    env = {**os.environ, "PYTHONPATH": str(inst)}
    run = subprocess.run(
        [sys.executable, "-c", CHECK, str(inst)], capture_output=True, text=True, env=env,
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "ok"
