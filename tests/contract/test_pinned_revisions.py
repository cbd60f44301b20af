"""The paper config pins LexGLUE and Llama 2 to commits (review F18); a pin the hub does not have
stops a download with one clear error, not an "offline" message (loopback hub)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from hinter.config import load_yaml, validate_config
from tests.support.loopback_hub import LEXGLUE, HubRepo, LoopbackHub

SHA = re.compile(r"[0-9a-f]{40}")
FETCH = """
import json, sys
from hinter import data, mirror
from hinter.errors import HinterError
repo, revision, folder, facts_mode = sys.argv[1:5]
try:
    if facts_mode == "mirror":
        mirror.fetch(repo, "scotus", revision, folder)
    else:
        data.load_hub(data.FACTS["scotus"], {"repo": repo, "revision": revision})
except HinterError as exc:
    print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))
"""


def test_the_paper_config_pins_lexglue_and_llama2(repo):
    cfg = validate_config(load_yaml(repo / "config" / "config.yaml"))
    lexglue = {
        ds: src["revision"]
        for ds, src in cfg["data"]["hub"].items()
        if src.get("repo") == "coastalcph/lex_glue"
    }
    assert set(lexglue) == {"ecthr_a", "scotus", "eurlex", "ledgar"}
    assert len(set(lexglue.values())) == 1 and SHA.fullmatch(next(iter(lexglue.values())))
    assert SHA.fullmatch(cfg["models"]["llms"]["llama2"]["revision"])


@pytest.mark.parametrize("path", ["mirror", "hub"])
def test_a_revision_the_hub_lacks_is_a_clear_error(tmp_path, repo, path):
    hub_repo = HubRepo(LEXGLUE, tmp_path / "repo")
    hub_repo.add("README.md", b"---\nconfigs: []\n---\n")
    hub_repo.seal()
    missing = "1" * 40
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(repo / "src"), str(repo)]),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        env.pop(var, None)
    with LoopbackHub({LEXGLUE: hub_repo}) as server:
        env["HF_ENDPOINT"] = server.endpoint
        proc = subprocess.run(
            [sys.executable, "-c", FETCH, LEXGLUE, missing, str(tmp_path / "mirror"), path],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["error"] == "DataError", result
    assert result["message"] == (
        f"{LEXGLUE} has no revision '{missing}' on the hub: correct the pinned revision "
        "(data.hub.<dataset>.revision) or set it to main"
    )
