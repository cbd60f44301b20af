"""Runs hinter's own data path in a fresh interpreter, as a workflow job would, for the loopback-hub
tests: HF_ENDPOINT and HF_HUB_OFFLINE are read when huggingface_hub is imported, so each side
(a login node online, a compute node offline) gets its own process with its own environment.

    python hub_driver.py JOB.json      JOB = {"facts": {dataset: {split_sizes, labels_present}},
                                              "datasets": [...], "out": DIR, "labels": DIR,
                                              "mirror": DIR, "parser": DIR,
                                              "steps": ["hub", "download", "mirror"]}

The facts of the real hub (split sizes, labels present) are replaced by the samples' own, which
the test derives from the sample files; everything else runs unchanged. Writes DIR/result.json.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from hinter import data, download
from hinter.errors import HinterError


def main(job_path: str) -> None:
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    for dataset, facts in job["facts"].items():
        data.FACTS[dataset] = dataclasses.replace(data.FACTS[dataset], **facts)
    out = Path(job["out"])
    result: dict = {}
    for step in job["steps"]:
        try:
            if step == "download":  # what the rule runs (SBIC comes from its own rule)
                cfg = {
                    "datasets": job["datasets"],
                    "data": {"source": "hub", "mirror": job["mirror"], "hub": {}},
                    "dictionary": {"sbic": {"source": "demo"}},
                    "parser": {"pipeline": job["parser"]},
                }
                result["download"] = download.download(
                    cfg,
                    out / "download.json",
                    workdir=out,
                    sbic_dir=out,
                    sbic_checksums=out / "none",
                    parser_lock=out / "none",
                )
                continue
            for dataset in job["datasets"]:
                result.setdefault(step, {})[dataset] = data.prepare_from_hub(
                    dataset,
                    {},
                    out / step / dataset,
                    labels_dir=job["labels"],
                    mirror=job["mirror"] if step == "mirror" else None,
                )
        except HinterError as exc:
            result.setdefault("errors", {})[step] = f"{type(exc).__name__}: {exc}"
    (out / "result.json").write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
