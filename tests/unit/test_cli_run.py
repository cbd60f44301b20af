"""The practitioner's run of ``hinter test``: plan and progress lines, the CI gate and its JSON,
Ctrl-C, kill -9 at every stage, and reruns that are byte-identical.

Runs go through the installed entry point in a subprocess (stderr is then not a terminal, so
progress comes as lines; ``HINTER_PROGRESS_INTERVAL=0`` prints one per update), on a tiny model,
a few dozen short texts and spaCy's real en_core_web_sm.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_inputs import TEXTS, make_classifier, real_parser

from hinter import cli
from hinter.layout import RunLayout

PARSER = real_parser()
pytestmark = pytest.mark.skipif(PARSER is None, reason="spaCy's en_core_web_sm is not installed")
ENV = {**os.environ, "HINTER_PROGRESS_INTERVAL": "0", "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-run")
    model = make_classifier(root / "model")
    rng = random.Random(3)
    rows = ["id,text,label"]
    for i in range(24):
        text = " ".join(rng.sample(TEXTS, 3))
        rows.append(f'd{i},"{text}",{["negative", "positive"][i % 2]}')
    data = root / "texts.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root, model, data


def argv(inputs, out: Path, *extra: str) -> list[str]:
    """The command of every run; they share one cache, as a practitioner's reruns do."""
    root, model, data = inputs
    return [
        sys.executable, "-m", "hinter.cli", "test", str(model), str(data), "--out", str(out),
        "--parser", PARSER, "--id-column", "id", "--label-column", "label",
        "--max-mutants-per-document", "4", "--cache-dir", str(root / "cache"), *extra,
    ]  # fmt: skip


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=600, env=ENV)


def digests(out: Path) -> dict[str, str]:
    """Every output file's hash (the lock file and caches are not outputs; the HTML report
    shows its own run's --fail-above verdict, so it is compared by the tests of the report)."""
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name not in (cli.LOCK, "report.html")
    }


def temporaries(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def reference(inputs):
    """One complete run, with the gate and the JSON summary."""
    root = inputs[0]
    out = root / "reference"
    proc = run(argv(inputs, out, "--json", str(root / "summary.json")))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


def test_run_says_what_it_will_do_and_shows_progress_with_an_eta(reference):
    _, proc = reference
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("hinter: testing ")
    assert "(2 labels, multi_class, window 24 tokens)" in lines[0]
    assert "24 documents" in lines[0] and "6 suites (atomic-body" in lines[0]
    assert any(line.startswith("hinter: ") and " mutants in 6 suites (" in line for line in lines)
    assert "texts to predict" in " ".join(lines)
    for stage, unit in (("mutate", "documents"), ("invariant", "mutants"), ("predict", "texts")):
        progress = [line for line in lines if line.startswith(f"hinter: {stage}: ")]
        assert progress, stage
        assert any("ETA" in line for line in progress[:-1]) or len(progress) <= 2, progress
        assert progress[-1].endswith(" s") or " in " in progress[-1], progress[-1]
        assert f" {unit}" in progress[0]
    assert "Traceback" not in proc.stderr
    assert "inter-race+gender" in proc.stdout


def test_the_json_summary_the_gate_and_byte_identical_reruns(reference, inputs, tmp_path):
    out, _ = reference
    before = digests(out)
    summary = json.loads((inputs[0] / "summary.json").read_text())
    assert summary["verdict"] == "no gate" and summary["exit_code"] == 0
    assert summary["data"] == {
        "documents": 24, "labels": "names", "path": str(inputs[2]), "skipped_empty": 0,
    }  # fmt: skip
    suites = {s["suite"]: s for s in summary["suites"]}
    assert set(suites) == {
        "atomic-body", "atomic-gender", "atomic-race",
        "inter-body+gender", "inter-body+race", "inter-race+gender",
    }  # fmt: skip
    inter = [s for s in summary["suites"] if s["order"] == 2]
    hidden = summary["rates"]["hidden"]
    assert hidden["numerator"] == sum(s["hidden"] for s in inter)
    assert hidden["denominator"] == sum(s["hidden_base"] for s in inter)
    rate = hidden["percent"]
    assert rate is not None and rate > 0, "the tiny model must show some hidden bias"

    # The gate: below the rate fails with exit 3 (same outputs), above it passes.
    gate_json = str(tmp_path / "gate.json")
    limits = ("--fail-above", f"hidden={rate / 2:.3f}", "--fail-above", "atomic=100",
              "--min-count", "1")  # fmt: skip
    failing = run(argv(inputs, out, *limits, "--json", gate_json))
    assert failing.returncode == 3, failing.stderr[-2000:]
    assert failing.stderr.splitlines()[-1].startswith("hinter: bias gate failed: hidden ")
    gate = json.loads((tmp_path / "gate.json").read_text())
    assert gate["verdict"] == "fail" and gate["exit_code"] == 3
    assert gate["thresholds"] == {"atomic": 100.0, "hidden": round(rate / 2, 3)}
    assert [e["rate"] for e in gate["exceeded"]] == ["hidden"]
    passing = run(
        argv(inputs, out, "--fail-above", f"hidden={min(rate * 2, 100):.3f}", "--min-count", "1")
    )
    assert passing.returncode == 0
    assert passing.stderr.splitlines()[-1].startswith("hinter: bias gate passed: hidden ≤ ")
    # Reruns of the same command (the gate changes no output) write the same bytes.
    assert digests(out) == before
    assert not temporaries(out)


def _start_and_stop_at(inputs, out: Path, stage: str, sig: int) -> tuple[int, str, int]:
    """Start a run, send ``sig`` as soon as ``stage`` reports progress; return its exit code,
    stderr and the temporary files it left."""
    proc = subprocess.Popen(argv(inputs, out), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            text=True, env=ENV)  # fmt: skip
    seen = []
    deadline = time.monotonic() + 300
    for line in proc.stderr:
        seen.append(line)
        if line.startswith(f"hinter: {stage}: "):
            proc.send_signal(sig)
            break
        assert time.monotonic() < deadline
    else:
        pytest.fail(f"the run ended before stage {stage}: {''.join(seen)[-2000:]}")
    rest = proc.stderr.read()
    code = proc.wait(timeout=120)
    return code, "".join(seen) + rest, len(temporaries(out))


def test_kill_9_at_each_stage_then_rerun_gives_the_same_bytes(reference, inputs, tmp_path):
    """Killed during mutation, its rerun killed during the invariant, that one's rerun during
    prediction: the last rerun removes what the kills left and writes an uninterrupted run's
    bytes."""
    out = tmp_path / "out"
    left = 0
    for stage in ("mutate", "invariant", "predict"):
        code, _, found = _start_and_stop_at(inputs, out, stage, signal.SIGKILL)
        assert code == -signal.SIGKILL, stage
        left = max(left, found)
    assert left, "no kill landed while a file was being written"
    rerun = run(argv(inputs, out))
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "temporary file" in rerun.stderr and "of an interrupted run" in rerun.stderr
    assert not temporaries(out)
    assert digests(out) == digests(reference[0])


def test_ctrl_c_and_sigterm_end_with_one_line_and_the_run_resumes(reference, inputs, tmp_path):
    out = tmp_path / "out"
    code, stderr, left = _start_and_stop_at(inputs, out, "invariant", signal.SIGINT)
    assert code == cli.EXIT_INTERRUPTED, stderr[-2000:]
    assert "Traceback" not in stderr
    assert stderr.splitlines()[-1] == "hinter: interrupted; rerun the same command to resume"
    assert left == 0  # Ctrl-C removes the temporary files itself
    code, stderr, left = _start_and_stop_at(inputs, out, "predict", signal.SIGTERM)
    assert code == cli.EXIT_TERMINATED, stderr[-2000:]
    assert stderr.splitlines()[-1] == "hinter: terminated; rerun the same command to resume"
    assert left == 0
    # What a kill -9 during a write leaves: removed (and said) when the next run starts.
    stale = Path(RunLayout(str(out)).predictions("x", "input", "000"))
    stale = stale.parent / f".{stale.name}.abcd1234.tmp"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"half a file")
    proc = run(argv(inputs, out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "hinter: removed 1 temporary file of an interrupted run" in proc.stderr
    assert not temporaries(out)
    assert digests(out) == digests(reference[0])  # the bytes of an uninterrupted run
