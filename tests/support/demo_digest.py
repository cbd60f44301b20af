"""Digests of what the demo generator writes: the demo corpora and the synthetic SBIC sample.

``python tests/support/demo_digest.py`` writes every demo dataset (the settings of
config/demo.yaml, and once more without planted bias) and every SBIC split into a temporary
folder, in-process, and prints ``sha256  file`` per file: run it before and after a refactor of
``hinter.demo`` and compare (the outputs must be byte-identical). ``corpus_digest`` hashes the
tables' content rather than the Parquet bytes, so the pinned values of the unit test do not move
with the pyarrow version.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hinter.demo import sbic
from hinter.demo.corpus import DemoSettings, generate_dataset, write_demo_dataset

DATASETS = ("imdb", "ecthr_a", "scotus", "eurlex", "ledgar")
#: data.demo of config/demo.yaml when the digests were pinned.
DEMO = {
    "seed": 7,
    "documents": {"train": 48, "validation": 16, "test": 16},
    "sentences": [3, 6],
    "planted_bias": 0.3,
}
UNBIASED = {**DEMO, "planted_bias": 0.0}
SBIC_POSTS = 400
SBIC_SPLITS = ("trn", "dev", "tst")


def corpus_digest(dataset: str, demo: Mapping[str, Any] = DEMO) -> str:
    """sha256 of one demo dataset's rows (doc_id, text, labels per split) and meta."""
    tables, meta = generate_dataset(dataset, DemoSettings.from_config(demo))
    content = {split: table.to_pydict() for split, table in tables.items()}
    blob = json.dumps({"tables": content, "meta": meta}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def write_everything(out: Path) -> list[Path]:
    """Every demo dataset (both settings) and SBIC split under ``out``; the files written."""
    for name, demo in (("demo", DEMO), ("unbiased", UNBIASED)):
        for dataset in DATASETS:
            write_demo_dataset(dataset, demo, out / name / dataset)
    for split in SBIC_SPLITS:
        sbic.write_split(
            out / "sbic" / f"SBIC.v2.{split}.csv",
            out / "sbic" / f"SBIC.v2.agg.{split}.csv",
            posts=SBIC_POSTS,
            seed=DEMO["seed"],
            split=split,
        )
    return sorted(p for p in out.rglob("*") if p.is_file())


def file_digests(out: Path) -> dict[str, str]:
    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in write_everything(out)
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        digests = file_digests(Path(tmp))
    for name, digest in digests.items():
        print(f"{digest}  {name}")
    total = hashlib.sha256("".join(f"{d}  {n}\n" for n, d in digests.items()).encode())
    print(f"{total.hexdigest()}  (all {len(digests)} files)")
    for dataset in DATASETS:
        print(f"{corpus_digest(dataset)}  corpus_digest({dataset!r})", file=sys.stderr)


if __name__ == "__main__":
    main()
