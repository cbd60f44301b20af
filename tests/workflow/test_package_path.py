"""The hinter package reaches every job through PYTHONPATH, also where it is not installed
(the --use-conda environments hold only the pinned dependencies)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import sysconfig

import pytest

pytestmark = pytest.mark.workflow


def test_snakefile_exports_src_for_jobs(repo, tmp_path):
    """Building the DAG (what every local or cluster job does first) puts src/ on PYTHONPATH."""
    code = (
        "import os, runpy, sys\n"
        f"sys.argv = ['snakemake', '-n', '--quiet', '--snakefile', {str(repo / 'Snakefile')!r},"
        f" '--directory', {str(tmp_path)!r}, '--configfile', {str(repo / 'config/demo.yaml')!r}]\n"
        "try:\n    runpy.run_module('snakemake', run_name='__main__')\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print('PYTHONPATH=' + os.environ.get('PYTHONPATH', ''))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    exported = proc.stdout.strip().splitlines()[-1].removeprefix("PYTHONPATH=")
    assert exported.split(os.pathsep)[0] == str(repo / "src")


def _script_modules(repo) -> set[str]:
    modules = set()
    for script in (repo / "workflow" / "scripts").glob("*.py"):
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hinter"):
                modules.add(node.module)
                modules.update(
                    f"{node.module}.{a.name}" for a in node.names if node.module == "hinter"
                )
    return modules


def test_scripts_import_hinter_from_src_without_an_install(repo):
    """A bare interpreter with only the dependencies on its path (no site hooks, so no editable
    install) imports every module the rule scripts use from src/ — as under --use-conda."""
    modules = sorted(_script_modules(repo))
    assert "hinter.workflow" in modules and len(modules) > 8
    deps = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo / "src"), deps])}
    code = (
        "import importlib, hinter\n"
        f"for name in {modules!r}:\n    importlib.import_module(name)\n"
        "print(hinter.__file__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(repo / "src" / "hinter" / "__init__.py")
