"""Token counting for the LLM context: API models' declared tokenizers (tiktoken offline, a
HuggingFace tokenizer), truncation of the document alone, one-line errors."""

from __future__ import annotations

import pytest

from hinter.errors import ConfigError, OfflineError
from hinter.models.context import (
    API_MARGIN,
    MIN_DOCUMENT_TOKENS,
    HFDocTokenizer,
    TiktokenDocTokenizer,
    api_frame,
    load_tiktoken,
)
from hinter.models.prompts import Prompt


def _byte_encoding():
    """A byte-level tiktoken encoding built offline (256 single-byte tokens)."""
    import tiktoken

    return tiktoken.Encoding(
        name="bytes",
        pat_str=r"\s?\S+|\s+",
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={},
    )


def _prompt(system: str = "Decide.") -> Prompt:
    return Prompt(
        dataset="imdb",
        template="default",
        context=({"role": "system", "content": system},),
        user="Question: Which?\nText: {text}",
        examples=(),
    )


def test_tiktoken_that_cannot_be_fetched_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.setenv(var, "http://127.0.0.1:9")  # refused at once, never the internet
    with pytest.raises(OfflineError) as info:
        load_tiktoken("cl100k_base", "models.llms.gpt35.tokenizer")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("config key 'models.llms.gpt35.tokenizer': tiktoken encoding")
    assert "TIKTOKEN_CACHE_DIR" in message


def test_tiktoken_documents_cut_at_a_character_boundary():
    tok = TiktokenDocTokenizer(_byte_encoding(), "tiktoken:bytes")
    text = "Ça été très bien joué"
    for budget in range(2, 20):
        enc = tok.documents([text], budget)[0]
        assert len(enc.ids) == min(budget, len(text.encode()) + 1)
        # the visible text is what the kept bytes spell out (a split "é" is not counted)
        kept = _byte_encoding().decode_bytes(list(enc.ids))
        assert kept.decode("utf-8", errors="ignore")[1:] == text[: enc.visible_end]
    assert not tok.documents([text], 100)[0].full


def test_api_frame_counts_every_message_and_keeps_a_margin():
    tok = TiktokenDocTokenizer(_byte_encoding(), "tiktoken:bytes")
    short = api_frame(tok, _prompt(), 1000, 7, "m")
    longer = api_frame(tok, _prompt("Decide." + "!" * 100), 1000, 7, "m")
    assert short.budget - longer.budget == 100
    used = 1000 - 7 - short.budget
    content = len("Decide.") + len("Question: Which?\nText: ")
    assert used == content + 2 * 3 + len("system") + len("user") + 3 + API_MARGIN
    with pytest.raises(ConfigError, match=r"leaving .* for the document") as info:
        api_frame(tok, _prompt("x" * 1000), 1000, 7, "models.llms.gpt on imdb")
    assert str(info.value).startswith("models.llms.gpt on imdb: the prompt takes")
    assert f"at least {MIN_DOCUMENT_TOKENS}" in str(info.value)


def test_hf_documents_handle_long_texts_by_prefix(tmp_path):
    from hinter.models.tokenizers import train_demo_tokenizer

    words = [
        "the",
        "court",
        "held",
        "that",
        "a",
        "woman",
        "and",
        "a",
        "man",
        "were",
        "detained",
        "for",
        "years",
    ]
    texts = [" ".join(words * k) for k in (1, 5, 40, 400)]
    tok = HFDocTokenizer(train_demo_tokenizer("demo-bpe", texts, 4096), "demo-bpe")
    assert tok.lead == " "  # byte-level: the document follows "Text:" after a space
    encs = tok.documents(texts, 64)
    full = tok.tokenizer([" " + t for t in texts], add_special_tokens=False)["input_ids"]
    for text, enc, ids in zip(texts, encs, full, strict=True):
        assert list(enc.ids) == ids[:64]
        assert enc.full == (len(ids) > 64)
        if enc.full:
            assert tok.count(" " + text[: enc.visible_end]) == 64
    assert tok.documents([], 64) == []
