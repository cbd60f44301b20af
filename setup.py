"""Everything is in pyproject.toml; this adds one build step: a wheel carries copies of the
data folders that the package reads (``hinter.paths.DATA_DIRS``) under ``hinter/_data``, so an
installed package works without the checkout. An editable install reads them in place."""

import runpy
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA_DIRS = runpy.run_path(str(HERE / "src" / "hinter" / "paths.py"))["DATA_DIRS"]


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in DATA_DIRS:
            target = Path(self.build_lib) / "hinter" / "_data" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / name, target)


setup(cmdclass={"build_py": BuildWithData})
