"""The model reads ``prefix + document + suffix`` ids exactly as its chat template tokenises the
whole chat, also with a SentencePiece-style tokenizer (Llama 2's shape), where text encoded on
its own starts with a "▁" marker.

The tokenizer is trained here with the ``tokenizers`` library (offline, well under a second) in
the shape of Llama 2's ``tokenizer.json``: a normaliser that prepends "▁" and turns spaces into
"▁", no merges across words, byte fallback. The chat template renders Llama 2's chat format
(``<s>[INST] <<SYS>>\\n…\\n<</SYS>>\\n\\n… [/INST] … </s>``), the one the real-tokenizer
contract test uses (``tests/support/llama2_tokenizer.py``).
"""

from __future__ import annotations

import dataclasses
import string

import pytest
from llama2_tokenizer import LLAMA2_CHAT_TEMPLATE as LLAMA2_STYLE_TEMPLATE

from hinter.models.context import HFDocTokenizer, chat_frame
from hinter.models.prompts import Prompt

CORPUS = [
    "[INST] <<SYS>> Identify the single main issue area in the provided opinions. <</SYS>>",
    "Question: Which label represents the main topic? Text: The applicant was born in 1960 "
    "and lives in Gaziantep. [/INST] Answer: Article 6. </s>",
    "Don't waste your time on this film. It could have been good, but the ending was lame.",
    string.ascii_letters + string.digits + string.punctuation,
]


@pytest.fixture(scope="module")
def sentencepiece_tokenizer():
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    # SentencePiece never merges across words: split before every "▁"
    tok.pre_tokenizer = pre_tokenizers.Split("▁", behavior="merged_with_next")
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=["▁", *string.printable.strip()],
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS * 20, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    fast.chat_template = LLAMA2_STYLE_TEMPLATE
    return fast


def _prompt() -> Prompt:
    return Prompt(
        dataset="imdb",
        template="default",
        context=(
            {"role": "system", "content": "Decide whether the review is positive or negative."},
            {"role": "user", "content": "Question: Positive or negative?\nText: A fine film."},
            {"role": "assistant", "content": "Answer: Positive."},
        ),
        user="Question: Positive or negative?\nText: {text}",
        examples=(),
    )


@pytest.mark.parametrize(
    "document",
    ["Don't waste your time on this film.", "i know technically this isn't great, 10/10"],
)
def test_prefix_document_suffix_equals_the_chat_template(sentencepiece_tokenizer, document):
    tok = HFDocTokenizer(sentencepiece_tokenizer, "sentencepiece-style")
    assert tok.lead == ""  # the tokenizer marks a text's start itself
    prompt = _prompt()
    frame = chat_frame(tok, prompt, context_tokens=4096, max_new_tokens=7, where="test")
    (encoded,) = tok.documents([document], frame.budget)
    ours = [*frame.prefix_ids, *encoded.ids.tolist(), *frame.suffix_ids]
    canonical = sentencepiece_tokenizer.apply_chat_template(
        prompt.messages(document), tokenize=True, add_generation_prompt=True
    )
    canonical = list(getattr(canonical, "input_ids", canonical))
    assert ours == canonical
    # the boundary that used to differ: " [/INST]" alone starts with an extra "▁" token
    alone = tok.ids(" [/INST]")
    assert len(alone) == len(frame.suffix_ids) + 1
    assert sentencepiece_tokenizer.convert_ids_to_tokens(alone[:1]) == ["▁"]


def test_answer_prefix_primes_the_reply_as_the_template_renders_it(sentencepiece_tokenizer):
    """models.llms.<name>.answer_prefix (the artifact's "Answer:" priming): the model's input
    ends with the start of an assistant turn holding the prefix, token for token as the chat
    template renders that turn; the prompt digest (the cache key) changes with it."""
    tok = HFDocTokenizer(sentencepiece_tokenizer, "sentencepiece-style")
    plain = _prompt()
    primed = dataclasses.replace(plain, answer_prefix="Answer:")
    assert primed.digest != plain.digest
    document = "A slow, lovely film."
    frame = chat_frame(tok, primed, context_tokens=4096, max_new_tokens=7, where="test")
    (encoded,) = tok.documents([document], frame.budget)
    ours = [*frame.prefix_ids, *encoded.ids.tolist(), *frame.suffix_ids]
    messages = [*primed.messages(document), {"role": "assistant", "content": "Answer:"}]
    canonical = sentencepiece_tokenizer.apply_chat_template(
        messages, tokenize=True, continue_final_message=True
    )
    assert ours == list(getattr(canonical, "input_ids", canonical))
    text = sentencepiece_tokenizer.decode(ours)
    assert text.endswith(f"{document} [/INST] Answer:")
    plain_frame = chat_frame(tok, plain, context_tokens=4096, max_new_tokens=7, where="test")
    assert frame.budget < plain_frame.budget  # the priming's tokens come out of the document's


def test_a_chat_api_cannot_be_primed():
    from hinter.errors import ConfigError
    from hinter.models.context import api_frame

    class Counter:
        def count(self, text):
            return len(text.split())

    primed = dataclasses.replace(_prompt(), answer_prefix="Answer:")
    with pytest.raises(ConfigError, match=r"gpt35 on imdb: answer_prefix .* cannot be primed"):
        api_frame(Counter(), primed, 4096, 7, "models.llms.gpt35 on imdb")
    assert api_frame(Counter(), _prompt(), 4096, 7, "x").budget > 0
