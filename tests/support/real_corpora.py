"""Real texts of the five datasets from the samples in ../shared/real, for cost measurements.

Never copied into the repository: read in place, with each file's digest and size recorded
beside the figures measured on it. The texts are what the workflow tests: ECtHR's fact
paragraphs joined by newlines (as ``hinter.data.normalise`` joins the hub's list), IMDB reviews
with their ``<br />`` tags, every other corpus's ``text`` field as stored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "real"
# dataset -> (file under REAL, what it holds)
SAMPLES = {
    "imdb": ("imdb/train-sample-2000.parquet", "IMDB train reviews (seed-7 sample)"),
    "ledgar": (
        "lexglue/ledgar-test-sample-1000.parquet",
        "LEDGAR test clauses (seed 42)",
    ),
    "ecthr_a": ("lexglue/ecthr_a.jsonl", "ECtHR judgments' facts (LexGLUE records)"),
    "scotus": ("lexglue/scotus.jsonl", "SCOTUS opinions (LexGLUE records)"),
    "eurlex": ("lexglue/eurlex.jsonl", "EURLEX acts (LexGLUE records)"),
}
# The text field of the LexGLUE jsonl records (ECtHR's is a list of paragraphs).
JSONL_TEXT = {"ecthr_a": "facts", "scotus": "text", "eurlex": "text"}


def missing(root: Path = REAL) -> list[str]:
    """The sample files absent under ``root`` (empty: every dataset can be measured)."""
    return [rel for rel, _ in SAMPLES.values() if not (root / rel).is_file()]


def texts(dataset: str, root: Path = REAL) -> list[str]:
    """The non-empty texts of one dataset's sample, in file order."""
    rel, _ = SAMPLES[dataset]
    path = root / rel
    if path.suffix == ".parquet":
        out = pq.read_table(path, columns=["text"]).column("text").to_pylist()
    else:
        field = JSONL_TEXT[dataset]
        out = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            value = json.loads(line).get(field)
            if value is None:
                raise ValueError(f"{path}:{n}: no {field!r} field")
            out.append("\n".join(value) if isinstance(value, list) else value)
    return [t for t in out if isinstance(t, str) and t.strip()]


def provenance(dataset: str, root: Path = REAL) -> dict:
    """Which file a figure was measured on: its path under ../shared/real, digest and size."""
    rel, what = SAMPLES[dataset]
    data = (root / rel).read_bytes()
    docs = texts(dataset, root)
    return {
        "file": f"../shared/real/{rel}",
        "what": what,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "documents": len(docs),
        "mean_chars": round(sum(map(len, docs)) / len(docs)),
        "mean_words": round(sum(len(t.split()) for t in docs) / len(docs)),
    }
