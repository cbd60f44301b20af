"""How many tokens of the test document fit an LLM's prompt, per dataset (review F8).

The document gets what the context leaves after the system instruction, the three few-shot
turns (each example cut to ``example_words`` words plus " …", a deliberate deviation: README),
the question and the answer budget (``max_new_tokens``): :func:`hinter.models.context.chat_frame`
computes it from the model's own tokenizer and chat template, exactly as a run does. This module
builds that prompt from given example *texts* (instead of a loaded train split), so the budget
can be computed from the example texts alone, e.g. with the real Llama 2 tokenizer
(``tests/benchmarks/llama2_budgets.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hinter.data import display_names
from hinter.errors import ConfigError
from hinter.models.context import ChatFrame, HFDocTokenizer, chat_frame
from hinter.models.prompts import Example, Prompt, build_prompt, truncate_words
from hinter.paths import RESOURCES
from hinter.prompt_spec import DEFAULT_TEMPLATE, N_EXAMPLES, load_prompt_spec

LABELS_DIR = RESOURCES / "labels"


def prompt_from_texts(
    dataset: str,
    example_texts: Sequence[str],
    *,
    template: str = DEFAULT_TEMPLATE,
    prompts_dir: str | Path | None = None,
    labels_dir: str | Path | None = None,
    answer_prefix: str = "",
) -> Prompt:
    """The dataset's prompt with ``example_texts`` as its few-shot documents (cut as a run cuts
    them) and the answers its prompt file gives them (001 Table 8)."""
    spec = load_prompt_spec(dataset, prompts_dir)
    if len(example_texts) != N_EXAMPLES:
        raise ValueError(
            f"{dataset}: {N_EXAMPLES} example texts needed, {len(example_texts)} given"
        )
    names = display_names(dataset, labels_dir or LABELS_DIR)
    examples = []
    for k, (text, example) in enumerate(zip(example_texts, spec.examples, strict=True)):
        try:
            labels = tuple(sorted(names.index(a) for a in example.answer or ()))
        except ValueError:
            raise ConfigError(f"{spec.source}: example {k + 1} answers an unknown label") from None
        examples.append(
            Example(f"example-{k + 1}", k, truncate_words(text, spec.example_words), labels)
        )
    return build_prompt(spec, template, names, examples, answer_prefix=answer_prefix)


def document_budget(
    tokenizer: Any,
    dataset: str,
    example_texts: Sequence[str],
    *,
    context_tokens: int,
    max_new_tokens: int,
    template: str = DEFAULT_TEMPLATE,
    prompts_dir: str | Path | None = None,
    answer_prefix: str = "",
) -> ChatFrame:
    """The frame (prefix and suffix ids, document budget) of one dataset's prompt under a
    HuggingFace tokenizer with a chat template."""
    prompt = prompt_from_texts(
        dataset, example_texts, template=template, prompts_dir=prompts_dir,
        answer_prefix=answer_prefix,
    )  # fmt: skip
    doc_tokenizer = HFDocTokenizer(tokenizer, getattr(tokenizer, "name_or_path", "tokenizer"))
    return chat_frame(
        doc_tokenizer, prompt, context_tokens, max_new_tokens, f"{dataset} ({template})"
    )
