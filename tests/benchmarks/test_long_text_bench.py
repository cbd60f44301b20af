"""Benchmark: predicting the mutants of one very long document (a 2 MB judgment).

The naive baseline is the engine as it was: every mutant's whole text materialised and
tokenised (a tokenizer builds offsets for the full 2 MB although it keeps a window of a few
hundred tokens). Ours makes only the beginning of each text that decides the model-visible
window (``Engine.decided``) and tokenises that. Same model, document and mutants; the
prediction tables must be identical; reported: seconds and peak RSS of each, in a fresh process.

    pytest tests/benchmarks/test_long_text_bench.py -m benchmark -s             # 200 KB, smoke
    HINTER_BENCH_SCALE=full pytest tests/benchmarks/test_long_text_bench.py -m benchmark -s  # 2 MB
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from model_dirs import make_model_dir

from hinter import io, tables

pytestmark = pytest.mark.benchmark

FULL = os.environ.get("HINTER_BENCH_SCALE", "smoke") == "full"
CHARS = 2_000_000 if FULL else 200_000
SRC = Path(__file__).resolve().parents[2] / "src"
TARGETS = (
    "Pakistani",
    "Indian",
    "African",
    "Irish",
    "Scottish",
    "Welsh",
    "French",
    "German",
    "Chinese",
    "Japanese",
    "Mexican",
    "Nigerian",
    "Polish",
    "Greek",
    "Turkish",
    "Italian",
    "Spanish",
    "Russian",
)

_MEASURE = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from hinter.models import encoder
    model, docs, mutants, validity, meta, out, cache, naive = sys.argv[1:9]
    if naive == "1":  # the engine as it was: whole texts made and tokenised
        encoder.PREFIX_CHARS_PER_TOKEN = 10**12
    began = time.perf_counter()
    encoder.predict_shard(model_dir=model, docs_path=docs, mutants_paths=[mutants],
        validity_paths=[validity], meta_path=meta, out_path=out,
        inference={"batch_size": 8, "dtype": "float32", "chunk_size": 4096, "cache": False},
        keep_discarded=True, cache_dir=cache, progress=False)
    seconds = time.perf_counter() - began
    lines = Path("/proc/self/status").read_text().splitlines()
    hwm = int([line.split()[1] for line in lines if line.startswith("VmHWM")][0]) * 1024
    print(json.dumps({"seconds": seconds, "rss_peak": hwm}))
    """
)


def _inputs(root: Path) -> list[str]:
    rng = random.Random(0)
    words = [
        "the",
        "court",
        "held",
        "that",
        "applicant",
        "claim",
        "article",
        "judge",
        "state",
        "police",
        "case",
        "law",
    ]
    first = "The British man thanked his mother and the tall woman."
    parts = [first]
    while sum(len(p) + 1 for p in parts) < CHARS:
        parts.append(" ".join(rng.choice(words) for _ in range(12)).capitalize() + ".")
    text = " ".join(parts)
    docs = pa.table(
        {"doc_id": ["long"], "split": ["test"], "position": [0], "text": [text], "labels": [None]}
    )
    io.write_parquet(docs, root / "docs.parquet", tables.TESTED_DOCUMENTS)
    start = first.index("British")
    rows = [
        {
            "mutant_id": f"m{i:02d}",
            "doc_id": "long",
            "order": 1,
            "role": "mutant",
            "attributes": ["race"],
            "pair_ids": [f"p{i}"],
            "parent_ids": [],
            "edits": [{"start": start, "end": start + len("British"), "replacement": target}],
        }
        for i, target in enumerate(TARGETS)
    ]
    io.write_parquet(pa.Table.from_pylist(rows, tables.MUTANTS), root / "m.parquet", tables.MUTANTS)
    validity = [
        {"mutant_id": r["mutant_id"], "valid": True, "reason": "ok", "sentence_index": None}
        for r in rows
    ]
    io.write_parquet(pa.Table.from_pylist(validity, tables.VALIDITY), root / "v.parquet")
    io.write_json(
        root / "meta.json",
        {"dataset": "input", "task_type": "multi_class", "n_labels": 2, "label_names": ["a", "b"]},
    )
    model = make_model_dir(root / "model", n_labels=2, task="multi_class")
    return [
        str(model),
        *(str(root / n) for n in ("docs.parquet", "m.parquet", "v.parquet", "meta.json")),
    ]


def test_long_document_costs_its_window_not_its_length(tmp_path):
    args = _inputs(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    results = {}
    for name, naive in (("naive", "1"), ("ours", "0")):
        out = tmp_path / f"{name}.parquet"
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, *args, str(out), str(tmp_path / name), naive],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=1800,
        )
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        results[name]["table"] = pq.read_table(out)
    assert results["ours"]["table"].equals(results["naive"]["table"])
    assert results["ours"]["table"].num_rows == 1 + len(TARGETS)
    naive, ours = results["naive"], results["ours"]
    mib = 2**20
    print(
        f"\n{CHARS / 1e6:.1f} MB document, {len(TARGETS)} mutants: naive "
        f"{naive['seconds']:.2f} s, {naive['rss_peak'] / mib:.0f} MiB peak RSS; ours "
        f"{ours['seconds']:.2f} s, {ours['rss_peak'] / mib:.0f} MiB; "
        f"{naive['seconds'] / ours['seconds']:.1f}x faster, "
        f"{naive['rss_peak'] / ours['rss_peak']:.1f}x less memory"
    )
    assert ours["seconds"] < naive["seconds"]
    assert ours["rss_peak"] < naive["rss_peak"]
