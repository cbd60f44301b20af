"""The predict stage's own parts, without a model: batching and whitespace-splitting tokenizers."""

from __future__ import annotations

from hinter.models.stage import MAX_PADDING, padded_batches, splits_at_whitespace


def test_padded_batches_bound_padding_and_size():
    lengths = [256, 250, 200, 190, 150, 40, 39, 38, 5]
    keys = [f"k{i}" for i in range(len(lengths))]
    batches = padded_batches(keys, lengths, batch_size=3)
    assert [k for b in batches for k in b] == keys  # order kept, nothing lost
    by_key = dict(zip(keys, lengths, strict=True))
    for batch in batches:
        assert len(batch) <= 3
        width = by_key[batch[0]]
        assert all(by_key[k] >= width * (1 - MAX_PADDING) for k in batch)
    assert batches == [["k0", "k1", "k2"], ["k3", "k4"], ["k5", "k6", "k7"], ["k8"]]


def test_splits_at_whitespace_reads_the_pre_tokenizer():
    from types import SimpleNamespace

    from tokenizers import pre_tokenizers as pt

    def tok(pre):
        return SimpleNamespace(backend_tokenizer=SimpleNamespace(pre_tokenizer=pre))

    for pre in (pt.BertPreTokenizer(), pt.ByteLevel(), pt.Metaspace(), pt.WhitespaceSplit()):
        assert splits_at_whitespace(tok(pre)), pre
    # Digits and punctuation split inside a word: a window's end proves no word boundary.
    assert not splits_at_whitespace(tok(pt.Digits()))
    assert not splits_at_whitespace(tok(pt.Punctuation()))
    assert not splits_at_whitespace(tok(None))
    assert not splits_at_whitespace(object())  # a slow tokenizer: no backend to read
