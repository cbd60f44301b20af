"""A chat template is code from a model folder: its rendering is bounded (review 2026-11-28,
N33: two nested ``range(100000)`` loops rendered for ever under transformers' sandbox)."""

from __future__ import annotations

import time

import pytest

from hinter.errors import ConfigError
from hinter.models import templates
from hinter.models.budget import prompt_from_texts
from hinter.models.context import HFDocTokenizer, chat_frame

GOOD = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
NESTED = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


@pytest.fixture(scope="module")
def tokenizer():
    """A word-level fast tokenizer (no model to build): chat_frame only counts with it."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=core, unk_token="[UNK]")


def _frame(tokenizer, template: str):
    tokenizer.chat_template = template
    prompt = prompt_from_texts("imdb", ["a good film"] * 3)
    return chat_frame(HFDocTokenizer(tokenizer, "t"), prompt, 4096, 7, "models.llms.evil")


def test_a_runaway_template_is_refused_in_one_line_in_bounded_time(tokenizer):
    start = time.monotonic()
    with pytest.raises(ConfigError, match=r"^models\.llms\.evil: the chat template does not "
                       r"finish rendering one chat within 2,000,000 steps") as info:  # fmt: skip
        _frame(tokenizer, NESTED + GOOD)
    assert "\n" not in str(info.value)
    assert time.monotonic() - start < 30  # unbounded, it rendered for hours


def test_a_huge_rendering_is_refused_and_a_real_template_renders(tokenizer, monkeypatch):
    monkeypatch.setattr(templates, "MAX_CHARS", 100_000)
    with pytest.raises(ConfigError, match=r"renders one chat as [\d,]+ characters \(over 100,000"):
        _frame(tokenizer, "{{ 'x' * 200000 }}" + GOOD)
    frame = _frame(tokenizer, GOOD)  # the bound leaves a real template alone
    assert frame.budget > 0 and frame.prefix_ids
