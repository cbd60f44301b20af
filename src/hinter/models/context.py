"""The LLM's context: what fits, counted with the model's own tokenizer; only the document is cut.

A prompt is ``prefix + document + suffix``: the prefix holds the system instruction, the few-shot
turns and the start of the last user turn, the suffix its end and the assistant's turn marker.
The document gets what is left of the context after the prefix, the suffix and the answer budget
(``max_new_tokens``): the instructions and examples are never truncated.

- A model run through ``transformers`` is counted exactly: its chat template renders the
  conversation with a sentinel where the document goes, prefix and suffix are tokenised on
  their own (the suffix as it follows text, so a SentencePiece tokenizer adds no start marker),
  and the model reads ``prefix ids + document ids + suffix ids`` — the same ids as the whole
  chat tokenised at once, and the same prefix ids for every document, which is what lets the
  backend compute their KV cache once.
- An API model is counted with the tokenizer its config declares (``tiktoken:<encoding>`` for
  OpenAI models, or a HuggingFace tokenizer), plus the chat format's per-message overhead and a
  safety margin, since the server renders the chat itself.

The document's ids are its first ``budget`` tokens, tokenised alone (with the leading space a
byte-level tokenizer would see after "Text:"); ``visible_end`` is where they end in the text.
Mutation uses the same cut (:class:`PromptWindow`), so it only touches what the model reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hinter.errors import ConfigError, OfflineError, first_line
from hinter.models.prompts import Prompt
from hinter.models.stage import Encoded
from hinter.models.templates import bounded_render

SENTINEL = "\x00HINTER-DOCUMENT\x00"
CHARS_PER_TOKEN = 12  # only this many characters per budget token are tokenised first
MIN_DOCUMENT_TOKENS = 16
# OpenAI's chat format: every message costs its content, its role and 3 tokens; the reply is
# primed with 3 more. Servers differ slightly, hence the margin.
API_TOKENS_PER_MESSAGE = 3
API_REPLY_TOKENS = 3
API_MARGIN = 16
_ANCHOR = "x"  # a word a suffix is encoded after (HFDocTokenizer.following_ids)


class HFDocTokenizer:
    """Documents through a HuggingFace fast tokenizer."""

    def __init__(self, tokenizer: Any, name: str = ""):
        if not getattr(tokenizer, "is_fast", False):
            raise ConfigError(f"tokenizer {name or tokenizer!r}: a fast (Rust) tokenizer is needed")
        self.tokenizer = tokenizer
        self.name = name or getattr(tokenizer, "name_or_path", "tokenizer")
        # A context counter measures whole documents; nothing of this length is run through the
        # tokenizer's model, so its "longer than the maximum … indexing errors" warning is noise
        # (transformers warns once per tokenizer: mark it as given).
        warned = getattr(tokenizer, "deprecation_warnings", None)
        if isinstance(warned, dict):
            warned["sequence-length-is-longer-than-the-specified-maximum"] = True
        first = tokenizer.convert_ids_to_tokens(tokenizer("x", add_special_tokens=False).input_ids)
        # SentencePiece-style tokenizers add the word's space marker themselves ("▁x"); a
        # byte-level one needs the space that precedes the document in the prompt.
        self.lead = "" if first and first[0].startswith("▁") else " "

    def count(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False).input_ids)

    def ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False).input_ids)

    def following_ids(self, text: str) -> list[int]:
        """The ids of ``text`` where it follows other text (the prompt's suffix after the
        document). A SentencePiece-style tokenizer marks the start of whatever it encodes
        ("▁"), so " [/INST]" alone would gain a token; it is encoded after an anchor word, whose
        ids are dropped, as the whole chat would encode it."""
        if self.lead:  # byte-level: the start of a text gets nothing added
            return self.ids(text)
        anchor = self.ids(_ANCHOR)
        both = self.ids(_ANCHOR + text)
        if both[: len(anchor)] != anchor:  # the anchor merged into the text: no clean cut
            return self.ids(text)
        return both[len(anchor) :]

    def _encode(self, texts: Sequence[str], budget: int) -> list[tuple[list[int], list[int]]]:
        lead = self.lead
        enc = self.tokenizer(
            [lead + t for t in texts],
            add_special_tokens=False,
            truncation=True,
            max_length=budget,
            return_offsets_mapping=True,
            return_attention_mask=False,
        )
        out = []
        for ids, offsets in zip(enc["input_ids"], enc["offset_mapping"], strict=True):
            ends = [max(0, e - len(lead)) for _, e in offsets]
            out.append((list(ids), ends))
        return out

    def documents(self, texts: Sequence[str], budget: int) -> list[Encoded]:
        return _documents(self._encode, texts, budget)


class TiktokenDocTokenizer:
    """Documents through a tiktoken encoding (OpenAI models)."""

    def __init__(self, encoding: Any, name: str):
        self.encoding = encoding
        self.name = name
        self.lead = " "

    def count(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))

    def ids(self, text: str) -> list[int]:
        return self.encoding.encode(text, disallowed_special=())

    def _encode(self, texts: Sequence[str], budget: int) -> list[tuple[list[int], list[int]]]:
        out = []
        for text in texts:
            ids = self.encoding.encode(self.lead + text, disallowed_special=())[:budget]
            # character ends from the decoded prefixes (tokens may split a character)
            ends, pieces = [], b""
            for token in ids:
                pieces += self.encoding.decode_single_token_bytes(token)
                decoded = pieces.decode("utf-8", errors="ignore")
                ends.append(max(0, len(decoded) - len(self.lead)))
            out.append((ids, ends))
        return out

    def documents(self, texts: Sequence[str], budget: int) -> list[Encoded]:
        return _documents(self._encode, texts, budget)


def _documents(encode, texts: Sequence[str], budget: int) -> list[Encoded]:
    """Each text's first ``budget`` tokens; only a prefix of a long text is tokenised when the
    cut provably falls before the prefix's last whitespace (no later character can change it)."""
    if not texts:
        return []
    limit = budget * CHARS_PER_TOKEN
    prefixes = [t[:limit] for t in texts]
    results: list[tuple[list[int], list[int]] | None] = list(encode(prefixes, budget))
    retry = []
    for i, (text, prefix) in enumerate(zip(texts, prefixes, strict=True)):
        ids, ends = results[i]
        if len(prefix) == len(text):
            continue
        last_space = max(prefix.rfind(" "), prefix.rfind("\n"), prefix.rfind("\t"))
        if not (len(ids) >= budget and ends and ends[-1] < last_space):
            results[i] = None
            retry.append(i)
    if retry:
        for i, result in zip(retry, encode([texts[i] for i in retry], budget), strict=True):
            results[i] = result
    out = []
    for text, (ids, ends) in zip(texts, results, strict=True):
        end = max(ends, default=0)
        out.append(
            Encoded(
                ids=np.asarray(ids, dtype=np.int32),
                visible_end=min(end, len(text)),
                full=len(ids) >= budget and end < len(text.rstrip()),
            )
        )
    return out


def load_tiktoken(encoding: str, key: str) -> TiktokenDocTokenizer:
    """A tiktoken encoding; offline, only one already in tiktoken's local cache loads."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding(encoding)
    except Exception as exc:  # tiktoken fetches encoding files over the network on first use
        raise OfflineError(
            f"config key '{key}': tiktoken encoding {encoding!r} cannot be loaded "
            f"({first_line(exc)}); tiktoken downloads it on first use, so run once online "
            "(or set TIKTOKEN_CACHE_DIR to a folder that holds it), or declare a local "
            "HuggingFace tokenizer"
        ) from None
    return TiktokenDocTokenizer(enc, f"tiktoken:{encoding}")


def load_doc_tokenizer(source: str, key: str) -> HFDocTokenizer | TiktokenDocTokenizer:
    """``tiktoken:<encoding>``, or a HuggingFace tokenizer (local directory or hub id)."""
    if source.startswith("tiktoken:"):
        return load_tiktoken(source.removeprefix("tiktoken:"), key)
    from hinter.mutation.window import load_tokenizer

    return HFDocTokenizer(load_tokenizer(source, key=key), source)


# -- frames: the prompt around the document --------------------------------------------------


@dataclass(frozen=True)
class ChatFrame:
    """The token ids around the document for one prompt and tokenizer, and the room left."""

    prefix_ids: tuple[int, ...]
    suffix_ids: tuple[int, ...]
    budget: int  # document tokens that fit
    context_tokens: int
    max_new_tokens: int

    @property
    def prompt_tokens(self) -> int:
        return len(self.prefix_ids) + len(self.suffix_ids)


def split_rendered(rendered: str) -> tuple[str, str]:
    if rendered.count(SENTINEL) != 1:
        raise ConfigError("the chat template does not render the document exactly once")
    prefix, suffix = rendered.split(SENTINEL)
    # The space before the document belongs to the document's first token ("Text: Hello"
    # is "Text:" + " Hello" for byte-level tokenizers, "Text:" + "▁Hello" for SentencePiece).
    if prefix.endswith(" "):
        prefix = prefix[:-1]
    return prefix, suffix


def render_chat(tokenizer: Any, prompt: Prompt, document: str, tokenize: bool = False):
    """The chat of one document under the tokenizer's template, ending where the model's reply
    starts: the generation prompt, or the reply's ``answer_prefix`` when the prompt primes it
    (rendered as the start of an assistant turn, as the few-shot answers are)."""
    messages = prompt.messages(document)
    if not prompt.answer_prefix:
        return tokenizer.apply_chat_template(
            messages, tokenize=tokenize, add_generation_prompt=True
        )
    messages.append({"role": "assistant", "content": prompt.answer_prefix})
    return tokenizer.apply_chat_template(messages, tokenize=tokenize, continue_final_message=True)


def chat_frame(
    tokenizer: HFDocTokenizer,
    prompt: Prompt,
    context_tokens: int,
    max_new_tokens: int,
    where: str,
) -> ChatFrame:
    """The exact frame of a prompt under a model's own chat template."""
    tok = tokenizer.tokenizer
    if not getattr(tok, "chat_template", None):
        raise ConfigError(f"{where}: the tokenizer has no chat template (an instruct model?)")
    try:
        rendered = bounded_render(lambda: render_chat(tok, prompt, SENTINEL), where)  # N33
    except ConfigError:
        raise
    except Exception as exc:  # a template may reject a system turn (then the model cannot run)
        raise ConfigError(f"{where}: the chat template fails ({first_line(exc)})") from None
    prefix, suffix = split_rendered(rendered)
    prefix_ids, suffix_ids = tokenizer.ids(prefix), tokenizer.following_ids(suffix)
    budget = context_tokens - max_new_tokens - len(prefix_ids) - len(suffix_ids)
    return _checked(ChatFrame(tuple(prefix_ids), tuple(suffix_ids), budget, context_tokens,
                              max_new_tokens), where)  # fmt: skip


def api_frame(
    tokenizer: HFDocTokenizer | TiktokenDocTokenizer,
    prompt: Prompt,
    context_tokens: int,
    max_new_tokens: int,
    where: str,
) -> ChatFrame:
    """The frame of a prompt sent to a chat API: counted, not rendered (no ids to reuse)."""
    if prompt.answer_prefix:
        raise ConfigError(
            f"{where}: answer_prefix primes a transformers model's reply; a chat API's reply "
            "cannot be primed (set answer_prefix: null)"
        )
    used = API_REPLY_TOKENS + API_MARGIN
    for message in prompt.messages(""):
        used += API_TOKENS_PER_MESSAGE + tokenizer.count(message["role"])
        used += tokenizer.count(message["content"])
    budget = context_tokens - max_new_tokens - used
    return _checked(ChatFrame((), (), budget, context_tokens, max_new_tokens), where, used)


def _checked(frame: ChatFrame, where: str, used: int | None = None) -> ChatFrame:
    if frame.budget < MIN_DOCUMENT_TOKENS:
        used = frame.prompt_tokens if used is None else used
        raise ConfigError(
            f"{where}: the prompt takes {used} tokens and the answer {frame.max_new_tokens} of "
            f"the {frame.context_tokens}-token context, leaving {frame.budget} for the document "
            f"(at least {MIN_DOCUMENT_TOKENS} needed): raise context_tokens or shorten the prompt"
        )
    return frame


class PromptWindow:
    """The mutation window of LLM tracks: the part of a document every LLM of the track reads
    under every prompt it is run with (the smallest of their cuts)."""

    def __init__(self, parts: Sequence[tuple[Any, int]], name: str):
        if not parts:
            raise ValueError("a prompt window needs at least one (tokenizer, budget)")
        self.parts = list(parts)
        self.name = name
        self.max_tokens = min(budget for _, budget in self.parts)

    def ends(self, texts: Sequence[str]) -> list[int]:
        ends = [len(t) for t in texts]
        seen = set()
        for tokenizer, budget in self.parts:
            if (id(tokenizer), budget) in seen:
                continue
            seen.add((id(tokenizer), budget))
            for i, enc in enumerate(tokenizer.documents(list(texts), budget)):
                if enc.full:
                    ends[i] = min(ends[i], enc.visible_end)
        return ends
