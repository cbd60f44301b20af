"""Pins agree across pyproject.toml, environment.yml, workflow/envs/*.yaml and the CPU lock."""

from __future__ import annotations

import re
import tomllib

import pytest
import yaml

NAME = re.compile(r"^([A-Za-z0-9_.\-]+)\s*==\s*([^\s;#]+)")


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(requirements) -> dict[str, str]:
    pins = {}
    for req in requirements:
        match = NAME.match(req.strip())
        if match:
            pins[_canon(match.group(1))] = match.group(2)
    return pins


@pytest.fixture(scope="module")
def project(repo):
    return tomllib.loads((repo / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def declared(project):
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    return _pins(reqs)


def test_every_dependency_is_pinned_exactly(project):
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    loose = [r for r in reqs if "==" not in r]
    assert not loose, f"unpinned dependencies in pyproject.toml: {loose}"


def _conda_env_pins(path) -> tuple[dict[str, str], list[str]]:
    env = yaml.safe_load(path.read_text())
    pip, unpinned = [], []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip += dep.get("pip", [])
        elif "=" not in dep:
            unpinned.append(dep)
    pip_reqs = [r for r in pip if not r.startswith(("-e", "http"))]
    unpinned += [r for r in pip_reqs if "==" not in r]
    return _pins(pip_reqs), unpinned


def test_conda_environments_agree_with_pyproject(repo, declared):
    files = [repo / "environment.yml", *sorted((repo / "workflow" / "envs").glob("*.yaml"))]
    assert len(files) >= 3
    for path in files:
        pins, unpinned = _conda_env_pins(path)
        assert not unpinned, f"{path.name}: unpinned {unpinned}"
        assert pins, f"{path.name}: no pinned packages"
        for name, version in pins.items():
            assert name in declared, f"{path.name}: {name} is not declared in pyproject.toml"
            assert version == declared[name], (
                f"{path.name}: {name}=={version} but pyproject.toml pins {declared[name]}"
            )


def test_rule_envs_exist_and_cover_pyproject_runtime(repo, project):
    """Every conda: directive names an existing env; the model env holds every runtime pin."""
    named = set()
    for smk in (repo / "workflow" / "rules").glob("*.smk"):
        named |= set(re.findall(r'"\.\./envs/([\w.-]+\.yaml)"', smk.read_text()))
    assert {"hinter.yaml", "models.yaml"} <= named
    for env in named:
        assert (repo / "workflow" / "envs" / env).exists(), f"conda env {env} is missing"
    runtime = _pins(project["dependencies"])
    models_env, _ = _conda_env_pins(repo / "workflow" / "envs" / "models.yaml")
    missing = sorted(set(runtime) - set(models_env))
    assert not missing, f"workflow/envs/models.yaml lacks {missing}"


def test_cpu_lock_agrees_with_pyproject(repo, declared):
    lock = _pins((repo / "requirements" / "cpu.lock").read_text().splitlines())
    for name, version in declared.items():
        assert name in lock, f"requirements/cpu.lock lacks {name}"
        assert lock[name].split("+")[0] == version, (
            f"requirements/cpu.lock pins {name}=={lock[name]} but pyproject.toml pins {version}"
        )
