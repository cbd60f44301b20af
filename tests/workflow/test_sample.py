"""A reduced slice of the real-sample run (config/sample.yaml, `make sample`): the real IMDB and
LEDGAR samples as user datasets, SBIC's real dev split, through data, dictionary, mutation and
the invariant. Needs ../shared/real (skipped without it); marked `sample` so CI can select or
deselect it (`-m "not sample"`)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from loopback_hub import real_path

from hinter.layout import RunLayout

pytestmark = [pytest.mark.workflow, pytest.mark.sample]
REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "config" / "sample.yaml"
# Fewer tested documents and no extra order: minutes, not half an hour.
SLICE = [
    "data={test_splits: [test], max_documents: 6}",
    "mutation={higher_orders: [], shards: {imdb: 1}}",
]


@pytest.fixture(scope="module")
def sample_slice(tmp_path_factory, run_snakemake):
    real_path("imdb", "train-sample-2000.parquet")
    real_path("lexglue", "ledgar-test-sample-1000.parquet")
    real_path("sbic", "SBIC.v2.agg.dev.csv")
    workdir = tmp_path_factory.mktemp("sample")
    proc = run_snakemake(
        "dictionary", "mutation", "invariant", "--cores", "2",
        "--configfile", str(SAMPLE), "--config", *SLICE,
        workdir=workdir, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return RunLayout(str(workdir / "results" / "sample"))


def test_the_real_samples_are_split_by_the_stated_seed(sample_slice):
    for name, rows, n_labels in (("imdb", 2000, 2), ("ledgar", 1000, 100)):
        meta = json.loads(Path(sample_slice.meta(name)).read_text())
        assert meta["rows"] == {"train": rows * 4 // 5, "validation": 0, "test": rows // 5}
        assert meta["n_labels"] == n_labels
        assert meta["source"]["holdout"] == {"share": 0.2, "seed": 42}
        tested = pq.read_table(sample_slice.tested(name, "000"))
        assert tested.num_rows == 6


def test_real_text_gets_mutants_and_invariant_verdicts(sample_slice):
    mutants = list(Path(sample_slice.root, "mutants").rglob("*.parquet"))
    validity = list(Path(sample_slice.root, "validity").rglob("*.parquet"))
    assert mutants and validity
    rows = sum(pq.read_metadata(p).num_rows for p in mutants)
    assert rows > 0
    summaries = list(Path(sample_slice.root, "validity").rglob("*summary*"))
    assert summaries, "no invariant summary"


def test_the_dictionary_is_mined_from_the_real_sbic_dev_split(sample_slice):
    stats = json.loads(Path(sample_slice.dictionary("sbic_terms.json")).read_text())
    assert stats["posts"] == 4666 and stats["mentions_annotation"] == 2531
    report = Path(sample_slice.dictionary("coverage.md")).read_text()
    assert "## The dictionary vs SBIC's terms" in report
