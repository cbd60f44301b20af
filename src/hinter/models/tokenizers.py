"""Tokenizers built offline for the demo's randomly initialised encoders.

The demo cannot download a tokenizer, so a randomly initialised model gets one trained with the
`tokenizers` library on its dataset's train split (seconds, deterministic for the same texts):

- ``demo-wordpiece``: an uncased WordPiece vocabulary (the train split's words, with a
  character fallback) with BERT's special tokens and normalisation (for BERT-like models);
- ``demo-bpe``: a case-preserving byte-level BPE with RoBERTa's special tokens (for RoBERTa- and
  DeBERTa-like models; DeBERTa v1 uses the same GPT-2 style byte-level BPE).

Both are saved with the model (``tokenizer.json``) and reload through ``AutoTokenizer``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

DEMO_TOKENIZERS = ("demo-wordpiece", "demo-bpe")
DEMO_VOCAB_SIZE = 4096


def is_demo_tokenizer(name: str | None) -> bool:
    return name in DEMO_TOKENIZERS


def train_demo_tokenizer(
    kind: str, texts: Sequence[str], max_length: int, vocab_size: int = DEMO_VOCAB_SIZE
):
    """A ``demo-wordpiece`` or ``demo-bpe`` tokenizer trained on ``texts`` (transformers API)."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    if kind == "demo-wordpiece":
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        normalizer = normalizers.BertNormalizer(lowercase=True)
        pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        vocab = _wordpiece_vocab(texts, normalizer, pre_tokenizer, specials, vocab_size)
        tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]"))
        tok.normalizer = normalizer
        tok.pre_tokenizer = pre_tokenizer
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
        )
        tok.decoder = decoders.WordPiece()
        names = dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]")
        names["mask_token"] = "[MASK]"
    elif kind == "demo-bpe":
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        tok.train_from_iterator(list(texts), trainer)
        tok.post_processor = processors.RobertaProcessing(
            ("</s>", tok.token_to_id("</s>")),  # sep
            ("<s>", tok.token_to_id("<s>")),  # cls
            trim_offsets=True,
            add_prefix_space=False,
        )
        tok.decoder = decoders.ByteLevel()
        names = dict(pad_token="<pad>", unk_token="<unk>", cls_token="<s>", sep_token="</s>")
        names.update(bos_token="<s>", eos_token="</s>", mask_token="<mask>")
    else:
        raise ValueError(f"unknown demo tokenizer {kind!r} (known: {', '.join(DEMO_TOKENIZERS)})")
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        model_max_length=max_length,
        model_input_names=["input_ids", "attention_mask"],
        **names,
    )


def _wordpiece_vocab(texts, normalizer, pre_tokenizer, specials, vocab_size) -> dict[str, int]:
    """Specials, every character (word-initial and ``##`` continuation), then the most frequent
    words (ties alphabetical).

    Built by hand because the `tokenizers` WordPiece trainer breaks frequency ties differently
    from run to run; this vocabulary is a pure function of the texts.
    """
    counts: Counter[str] = Counter()
    for text in texts:
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)):
            counts[word] += 1
    alphabet = sorted({ch for word in counts for ch in word})
    tokens = [*specials, *alphabet, *(f"##{ch}" for ch in alphabet)]
    known = set(tokens)
    ranked = sorted((w for w in counts if w not in known), key=lambda w: (-counts[w], w))
    tokens += ranked[: max(0, vocab_size - len(tokens))]
    return {token: i for i, token in enumerate(tokens)}
