"""Code from a model folder never runs: every loader refuses remote code by itself."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from cli_inputs import copy_model

from .cases import REPO, auto_map


def _evil_folder(tiny_model: Path, root: Path, model_type: str | None) -> Path:
    folder = copy_model(tiny_model, root / "evil-model")
    auto_map("config.json", model_type=model_type)(folder)
    return folder


@pytest.mark.parametrize("model_type", ["evil", None], ids=["custom-type", "builtin-type"])
def test_no_loader_runs_a_model_folders_code_even_without_the_up_front_check(
    tiny_model, tmp_path, monkeypatch, model_type
):
    """Every from_pretrained refuses remote code by itself: with the up-front refusal switched
    off, loading still fails or ignores the code, and the marker never appears."""
    from hinter import model_dir
    from hinter.errors import HinterError
    from hinter.models import loading
    from hinter.mutation import window

    folder = _evil_folder(tiny_model, tmp_path, model_type)
    marker = tmp_path / "MARKER"
    monkeypatch.setattr(model_dir, "refuse_remote_code", lambda path: None)
    for load in (
        lambda: window.load_tokenizer(str(folder)),
        lambda: loading.load_classifier(folder),
    ):
        with contextlib.suppress(HinterError):
            load()
    assert not marker.exists()


def test_every_from_pretrained_in_the_package_refuses_remote_code():
    """Each ``*.from_pretrained(...)`` call of the package passes ``trust_remote_code=False``
    (or ``**checkpoint.from_pretrained_kwargs()``, which does)."""
    import ast

    offenders, calls = [], 0
    for path in sorted((REPO / "src" / "hinter").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "from_pretrained"
            ):
                continue
            calls += 1
            safe = any(
                (
                    k.arg == "trust_remote_code"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is False
                )
                or (k.arg is None and "from_pretrained_kwargs" in ast.unparse(k.value))
                for k in node.keywords
            )
            if not safe:
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert calls >= 4
    assert offenders == []
