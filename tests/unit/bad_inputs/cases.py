"""What every catalogue row is made of: the working folder, the row type, the row builders and
the check each row passes (exit code, one line naming the culprit, nothing written)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_inputs import copy_model, edit_json, evil_module, files_under, real_parser

from hinter import cli

REPO = Path(__file__).resolve().parents[3]
PARSER = real_parser()


@dataclass
class W:
    """A test's working folder: the model, the input file, the output folder."""

    root: Path
    model: Path
    data: Path
    out: Path
    marker: Path
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    id: str
    code: int
    match: str  # a regex the single stderr line must match
    argv: Callable[[W], list[str]]
    setup: Callable[[W], None] | None = None
    needs: str | None = None  # "parser", "readonly": skipped when the machine cannot


def hinter_test(*extra: str, invariant: bool = False) -> Callable[[W], list[str]]:
    """``hinter test MODEL DATA --out OUT`` plus ``extra`` (``{root}`` expands)."""

    def argv(w: W) -> list[str]:
        base = ["test", str(w.model), str(w.data), "--out", str(w.out)]
        if not invariant:
            base.append("--no-invariant")
        return base + [a.replace("{root}", str(w.root)) for a in extra]

    return argv


def data(name: str, content: str | bytes) -> Callable[[W], None]:
    """Replace the input file by ``name`` holding ``content``."""

    def setup(w: W) -> None:
        w.data = w.root / name
        if isinstance(content, bytes):
            w.data.write_bytes(content)
        else:
            w.data.write_text(content, encoding="utf-8")

    return setup


def parquet(table: pa.Table) -> Callable[[W], None]:
    def setup(w: W) -> None:
        w.data = w.root / "texts.parquet"
        pq.write_table(table, w.data)

    return setup


def model(change: Callable[[Path], None]) -> Callable[[W], None]:
    """A copy of the tiny model, broken by ``change``."""

    def setup(w: W) -> None:
        w.model = copy_model(w.model, w.root / "model-copy")
        change(w.model)

    return setup


def both(*setups: Callable[[W], None]) -> Callable[[W], None]:
    def setup(w: W) -> None:
        for s in setups:
            s(w)

    return setup


def auto_map(file: str, model_type: str | None = None) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        evil_module(folder, folder.parent / "MARKER")
        auto = {
            "AutoConfig": "evil.EvilConfig",
            "AutoModelForSequenceClassification": "evil.EvilModel",
        }
        if file == "tokenizer_config.json":
            auto = {"AutoTokenizer": ["evil.EvilTokenizer", None]}
        edit_json(folder / file, auto_map=auto)
        if model_type:
            edit_json(folder / "config.json", model_type=model_type)

    return change


def readonly(path_of: Callable[[W], Path]) -> Callable[[W], None]:
    def setup(w: W) -> None:
        path = path_of(w)
        path.mkdir(parents=True, exist_ok=True)
        make_read_only(path)
        w.extra.setdefault("read_only", []).append(path)

    return setup


def make_read_only(path: Path) -> None:
    """A folder nobody may write in: chmod for a normal user; immutable (chattr) for root."""
    import os

    if os.geteuid() != 0:
        path.chmod(0o555)
        return
    proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("cannot make a folder read-only for root here (no chattr)")


def undo_read_only(path: Path) -> None:
    import os

    if os.geteuid() != 0:
        path.chmod(0o755)
    else:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's errors and --help
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_before_any_work(case: Case, w: W, tiny_model: Path, capsys) -> None:
    """The promise of every row: exit code, one ``hinter`` line matching the row's pattern, no
    traceback, nothing on stdout, and the working folder and the model exactly as before."""
    if case.needs == "parser" and PARSER is None:
        pytest.skip("spaCy's en_core_web_sm is not installed")
    if case.setup is not None:
        case.setup(w)
    argv = case.argv(w)
    before, model_before = files_under(w.root), files_under(tiny_model)
    code, out, err = run_cli(argv, capsys)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("hinter"), lines[0]
    assert re.search(case.match, lines[0]), lines[0]
    assert code == case.code, (code, lines[0])
    assert out == ""
    assert files_under(w.root) == before  # nothing new, nothing half-written
    assert files_under(tiny_model) == model_before
    assert not w.marker.exists() and not (w.root / "MARKER").exists()
