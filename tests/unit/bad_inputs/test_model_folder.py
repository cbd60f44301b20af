"""Catalogue rows: the model folder (files, weights, head, labels, code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_inputs import edit_json

from .cases import Case, W, assert_one_line_before_any_work, auto_map, hinter_test, model


def _truncate(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-100])


def _drop_head(folder: Path) -> None:
    from safetensors.numpy import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    save_file(
        {k: v for k, v in tensors.items() if not k.startswith("classifier")},
        folder / "model.safetensors",
    )


def _wrong_head(folder: Path) -> None:
    import numpy as np
    from safetensors.numpy import load_file, save_file

    tensors = load_file(folder / "model.safetensors")
    tensors["classifier.weight"] = np.zeros((3, tensors["classifier.weight"].shape[1]), "float32")
    tensors["classifier.bias"] = np.zeros(3, "float32")
    save_file(tensors, folder / "model.safetensors")


def _sharded_missing(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": {"classifier.weight": "model-00001-of-00002.safetensors"}})
    )


CASES = [
    Case(
        "model-no-config",
        1,
        r"model directory .*model-copy: config\.json missing",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").unlink()),
    ),
    Case(
        "model-config-not-json",
        1,
        r"model-copy: config\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").write_text("{nope")),
    ),
    Case(
        "model-config-a-list",
        1,
        r"model-copy: config\.json is not a JSON object",
        hinter_test(),
        setup=model(lambda f: (f / "config.json").write_text("[1, 2]")),
    ),
    Case(
        "model-remote-code-custom-type",
        1,
        r"model-copy: config\.json declares custom code \(auto_map: evil\)",
        hinter_test(),
        setup=model(auto_map("config.json", model_type="evil")),
    ),
    Case(
        "model-remote-code-builtin-type",
        1,
        r"model-copy: config\.json declares custom code",
        hinter_test(),
        setup=model(auto_map("config.json")),
    ),
    Case(
        "model-remote-code-tokenizer",
        1,
        r"model-copy: tokenizer_config\.json declares custom code",
        hinter_test(),
        setup=model(auto_map("tokenizer_config.json")),
    ),
    Case(
        "model-pickle-only",
        1,
        r"no safetensors weights .*refusing pickle-based pytorch_model\.bin",
        hinter_test(),
        setup=model(lambda f: (f / "model.safetensors").rename(f / "pytorch_model.bin")),
    ),
    Case(
        "model-weights-truncated",
        1,
        r"model\.safetensors is corrupt \(the tensors need \d+ bytes but the file has",
        hinter_test(),
        setup=model(_truncate),
    ),
    Case(
        "model-weights-garbage",
        1,
        r"model\.safetensors is corrupt",
        hinter_test(),
        setup=model(lambda f: (f / "model.safetensors").write_bytes(b"\x00garbage" * 10)),
    ),
    Case(
        "model-weights-sharded-missing",
        1,
        r"weights file model-00001-of-00002\.safetensors missing",
        hinter_test(),
        setup=model(_sharded_missing),
    ),
    Case(
        "model-no-tokenizer",
        1,
        r"model-copy: no tokenizer files",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer.json").unlink()),
    ),
    Case(
        "model-tokenizer-corrupt",
        1,
        r"model folder .*model-copy: cannot load tokenizer",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer.json").write_text('{"broken": ')),
    ),
    Case(
        "model-tokenizer-config-not-json",
        1,
        r"tokenizer_config\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "tokenizer_config.json").write_text("{")),
    ),
    Case(
        "model-sidecar-not-json",
        1,
        r"model-copy: hinter\.json is not valid JSON",
        hinter_test(),
        setup=model(lambda f: (f / "hinter.json").write_text("{")),
    ),
    Case(
        "model-sidecar-label-count",
        1,
        r"hinter\.json says 5 labels, config\.json 2",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", n_labels=5)),
    ),
    Case(
        "model-sidecar-label-names",
        1,
        r"hinter\.json label_names must list the model's 2 labels",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", label_names=["a", "b", "c"])),
    ),
    Case(
        "model-sidecar-task-type",
        1,
        r"hinter\.json task_type 'regression' is not",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "hinter.json", task_type="regression")),
    ),
    Case(
        "model-num-labels-vs-id2label",
        1,
        r"config\.json has num_labels 3 but 2 id2label entries",
        hinter_test(),
        setup=model(
            lambda f: edit_json(f / "config.json", num_labels=3, id2label={"0": "a", "1": "b"})
        ),
    ),
    Case(
        "model-not-a-classifier",
        1,
        r"not a sequence classifier \(architectures: BertModel\)",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "config.json", architectures=["BertModel"])),
    ),
    Case(
        "model-no-model-type",
        1,
        r"config\.json has no model_type",
        hinter_test(),
        setup=model(lambda f: edit_json(f / "config.json", model_type=None)),
    ),
    Case(
        "model-head-missing",
        1,
        r"the weights lack 2 of the model's tensors \(e\.g\. classifier\.bias\)",
        hinter_test(),
        setup=model(_drop_head),
    ),
    Case(
        "model-head-wrong-size",
        1,
        r"the weights' classifier\.(weight|bias) has 3 outputs, but config\.json has 2",
        hinter_test(),
        setup=model(_wrong_head),
    ),
    Case(
        "task-type-contradicts-model",
        1,
        r"--task-type multi_label: the model folder .* declares multi_class",
        hinter_test("--task-type", "multi_label"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_line_before_any_work(case: Case, workspace: W, tiny_model, capsys):
    assert_one_line_before_any_work(case, workspace, tiny_model, capsys)
