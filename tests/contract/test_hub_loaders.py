"""The real loaders against the hub's real layouts: a loopback hub built from ../shared/real.

One session builds ``coastalcph/lex_glue`` and ``stanfordnlp/imdb`` in the hub's Parquet layout with
LexGLUE's real feature definitions (``tests/support/loopback_hub.py``) and serves them on 127.0.0.1.
Then, each in a fresh interpreter as a workflow job would run:

- a "login node" (online, ``HF_ENDPOINT`` = the loopback hub) runs ``hinter.data.prepare_from_hub``
  unchanged for ecthr_a, scotus, eurlex, ledgar and imdb, and fills a mirror with
  ``hinter.mirror.fill`` (what ``snakemake download`` runs);
- with the server stopped, a "compute node" (``HF_HUB_OFFLINE=1``, an empty HF cache) prepares the
  same datasets from the mirror.

Only the split sizes and labels present of the real hub are replaced by the samples' own, derived
here from the sample files. Skipped, with the reason, when ../shared/real is absent.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest
from loopback_hub import IMDB_COMMIT, LEXGLUE, LoopbackHub, build_repos, real_path

from hinter import io, mirror
from hinter.errors import DataError

pytestmark = pytest.mark.contract

REPO = Path(__file__).resolve().parents[2]
DRIVER = REPO / "tests" / "support" / "hub_driver.py"
LABELS = REPO / "resources" / "labels"
DATASETS = ["ecthr_a", "scotus", "eurlex", "ledgar", "imdb"]
SPLIT_OF = {"train": "train", "dev": "validation", "test": "test"}


def jsonl(config: str) -> list[dict]:
    path = real_path("lexglue", f"{config}.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def as_list(value) -> list:
    """The jsonl holds some list fields as Python-literal strings ("['8']"), others as lists."""
    return ast.literal_eval(value) if isinstance(value, str) else list(value)


def sample_facts() -> dict[str, dict]:
    """The samples' split sizes (and SCOTUS's labels present), counted from the files."""
    facts: dict[str, dict] = {}
    for config in ("ecthr_a", "scotus", "eurlex", "ledgar"):
        sizes = {"train": 0, "validation": 0, "test": 0}
        for record in jsonl(config):
            sizes[SPLIT_OF[record["data_type"]]] += 1
        facts[config] = {"split_sizes": sizes}
    facts["ledgar"]["split_sizes"]["test"] = pq.read_metadata(
        real_path("lexglue", "ledgar-test-sample-1000.parquet")
    ).num_rows
    facts["scotus"]["labels_present"] = len({r["issueArea"] for r in jsonl("scotus")})
    n = pq.read_metadata(real_path("imdb", "train-sample-2000.parquet")).num_rows
    facts["imdb"] = {"split_sizes": {"train": n // 2, "validation": 0, "test": n - n // 2}}
    return facts


def run_driver(job: dict, workdir: Path, env_update: dict[str, str]) -> dict:
    workdir.mkdir(parents=True, exist_ok=True)
    job_path = workdir / "job.json"
    job_path.write_text(json.dumps({**job, "out": str(workdir)}), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env.update(env_update)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    env["HF_DATASETS_DISABLE_PROGRESS_BARS"] = env["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(job_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((workdir / "result.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def hub_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("loopback")
    repos = build_repos(root / "repos")
    job = {"facts": sample_facts(), "datasets": DATASETS, "labels": str(LABELS)}
    job["mirror"] = str(root / "mirror")
    job["parser"] = str(root / "parser")  # a pipeline folder: the parser step finds it in place
    (root / "parser").mkdir()
    (root / "parser" / "meta.json").write_text("{}")
    with LoopbackHub(repos) as server:
        login = run_driver(
            {**job, "steps": ["hub", "download"]},
            root / "login",
            {"HF_ENDPOINT": server.endpoint, "HF_HOME": str(root / "hf-login")},
        )
        requests = list(server.requests)
    compute = run_driver(
        {**job, "steps": ["mirror"]},
        root / "compute",
        {
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_ENDPOINT": "http://127.0.0.1:9",  # nothing listens: any request would fail
            "HF_HOME": str(root / "hf-compute"),
        },
    )
    return SimpleNamespace(
        root=root, repos=repos, requests=requests, login=login, compute=compute, job=job
    )


def documents(out: Path, split: str) -> list[dict]:
    return pq.read_table(out / f"{split}.parquet").to_pylist()


def test_the_clients_spoke_the_hub_api(hub_run):
    """What datasets/huggingface_hub asked the loopback hub: the test follows their real calls."""
    assert "errors" not in hub_run.login, hub_run.login.get("errors")
    kinds = {f"{m} /{p.split('/')[1]}" for m, p in (r.split(" ", 1) for r in hub_run.requests)}
    assert (
        {"GET /api", "HEAD /datasets", "GET /datasets"}
        <= kinds
        <= {
            "GET /api",
            "POST /api",
            "HEAD /datasets",
            "GET /datasets",
        }
    )
    lex = hub_run.repos[LEXGLUE].commit
    assert f"GET /api/datasets/{LEXGLUE}/tree/{lex}/scotus" in hub_run.requests
    assert f"HEAD /datasets/{LEXGLUE}/resolve/{lex}/scotus/test-00000-of-00001.parquet" in (
        hub_run.requests
    )


def test_hub_path_runs_unchanged_for_the_five_datasets(hub_run):
    infos = json.loads(real_path("lexglue", "dataset_infos.json").read_text(encoding="utf-8"))
    for dataset in DATASETS:
        meta = hub_run.login["hub"][dataset]
        out = hub_run.root / "login" / "hub" / dataset
        assert io.read_json(out / "meta.json") == meta
        assert meta["rows"] == hub_run.job["facts"][dataset]["split_sizes"]
        expected_commit = IMDB_COMMIT if dataset == "imdb" else hub_run.repos[LEXGLUE].commit
        assert meta["source"]["revision"] == expected_commit
        if dataset != "imdb":  # the real ClassLabel names, in the hub's order
            feature = infos[dataset]["features"]["labels" if "labels" in infos[dataset]["features"]
                                                  else "label"]  # fmt: skip
            assert meta["label_names"] == feature.get("feature", feature)["names"]
    assert hub_run.login["hub"]["scotus"]["n_labels"] == 13
    assert len(hub_run.login["hub"]["scotus"]["display_names"]) == 14
    assert hub_run.login["hub"]["eurlex"]["n_labels"] == 100
    assert hub_run.login["hub"]["imdb"]["label_names"] == ["neg", "pos"]


def test_real_records_are_normalised_as_the_paper_reads_them(hub_run):
    """Documents equal the original jsonl records: ECtHR paragraphs joined with newlines and
    articles as label ids; SCOTUS issue area k = class k-1; EUR-LEX's ids filtered to the 100."""
    out = hub_run.root / "login" / "hub"
    meta = hub_run.login["hub"]
    for config in ("ecthr_a", "scotus", "eurlex", "ledgar"):
        names = meta[config]["label_names"]
        records = [r for r in jsonl(config) if r["data_type"] == "train"]
        docs = documents(out / config, "train")
        assert len(docs) == len(records)
        for doc, record in zip(docs, records, strict=True):
            if config == "ecthr_a":
                facts = as_list(record["facts"])
                assert doc["text"] == "\n".join(facts)
                gold = {a for a in as_list(record["violated_articles"]) if a in names}
            elif config == "eurlex":
                assert doc["text"] == record["text"]
                gold = {c for c in as_list(record["labels"]) if c in names}
            else:
                assert doc["text"] == record["text"]
                gold = {record["issueArea"] if config == "scotus" else record["clause_type"]}
            assert {names[i] for i in doc["labels"]} == gold
    # SCOTUS: issue area k is class id k-1
    scotus = documents(out / "scotus", "train")
    assert scotus[0]["labels"] == [int(jsonl("scotus")[0]["issueArea"]) - 1]
    ledgar_test = documents(out / "ledgar", "test")
    sample = pq.read_table(real_path("lexglue", "ledgar-test-sample-1000.parquet")).to_pylist()
    assert [d["labels"] for d in ledgar_test] == [[r["label"]] for r in sample]


def test_download_fills_a_mirror_in_the_hub_layout(hub_run):
    report = hub_run.login["download"]
    assert io.read_json(hub_run.root / "login" / "download.json") == report
    assert report["parser"] == {"pipeline": hub_run.job["parser"], "installed": False}
    assert report["sbic"] is None  # the demo's SBIC: nothing to fetch
    fill = {r["dataset"]: r for r in report["datasets"]}
    assert list(fill) == DATASETS
    lexglue = hub_run.root / "mirror" / "coastalcph" / "lex_glue"
    for config in ("ecthr_a", "scotus", "eurlex", "ledgar"):
        assert fill[config]["dir"] == str(lexglue)
        assert sorted(fill[config]["files"]) == ["README.md"] + [
            f"{config}/{s}-00000-of-00001.parquet" for s in ("test", "train", "validation")
        ]
        for path in fill[config]["files"]:  # what `hf download --local-dir` records per file
            record = lexglue / ".cache" / "huggingface" / "download" / f"{path}.metadata"
            assert record.read_text().splitlines()[0] == hub_run.repos[LEXGLUE].commit
            assert (lexglue / path).read_bytes() == hub_run.repos[LEXGLUE].files[path].read_bytes()
    assert not (lexglue / "case_hold").exists()  # only the configs a run needs
    assert fill["imdb"]["revision"] == IMDB_COMMIT
    assert fill["imdb"]["name"] == "plain_text"


def test_mirror_gives_byte_identical_documents_offline(hub_run):
    assert "errors" not in hub_run.compute, hub_run.compute.get("errors")
    for dataset in DATASETS:
        hub_dir = hub_run.root / "login" / "hub" / dataset
        mirror_dir = hub_run.root / "compute" / "mirror" / dataset
        for split in ("train", "validation", "test"):
            name = f"{split}.parquet"
            assert (mirror_dir / name).read_bytes() == (hub_dir / name).read_bytes(), dataset
        from_hub = io.read_json(hub_dir / "meta.json")
        from_mirror = io.read_json(mirror_dir / "meta.json")
        where = from_mirror["source"].pop("mirror")
        assert from_mirror == from_hub  # same commit recorded, same facts
        assert Path(where) == hub_run.root / "mirror" / from_hub["source"]["repo"]


def copy_mirror(hub_run, tmp_path: Path) -> Path:
    target = tmp_path / "mirror"
    shutil.copytree(hub_run.root / "mirror", target)
    return target


def test_mirror_pinned_to_another_commit_is_refused(hub_run, tmp_path):
    copy = copy_mirror(hub_run, tmp_path)
    with pytest.raises(DataError, match=r"is at commit .* the config pins 0{40}"):
        mirror.locate(copy, LEXGLUE, "scotus", "0" * 40)
    assert mirror.locate(copy, LEXGLUE, "scotus", "main").commit == hub_run.repos[LEXGLUE].commit


def test_mirror_with_mixed_commits_is_refused(hub_run, tmp_path):
    copy = copy_mirror(hub_run, tmp_path)
    record = (
        copy / LEXGLUE / ".cache/huggingface/download/scotus/test-00000-of-00001.parquet.metadata"
    )
    lines = record.read_text().splitlines()
    record.write_text("\n".join(["1" * 40, *lines[1:]]) + "\n")
    with pytest.raises(DataError, match="files from 2 commits"):
        mirror.locate(copy, LEXGLUE, "scotus", "main")


def test_incomplete_mirror_names_what_is_missing_and_the_fix(hub_run, tmp_path):
    copy = copy_mirror(hub_run, tmp_path)
    with pytest.raises(DataError, match=r"has no lex/other .*snakemake download") as info:
        mirror.locate(copy, "lex/other", None, "main")
    assert "\n" not in str(info.value)
    (copy / LEXGLUE / "scotus" / "validation-00000-of-00001.parquet").unlink()
    with pytest.raises(DataError, match=r"no files for split validation .*snakemake download"):
        mirror.locate(copy, LEXGLUE, "scotus", "main")
    with pytest.raises(DataError, match="declares no config 'unfair'"):
        mirror.locate(copy, LEXGLUE, "unfair", "main")
