"""Encoder batches chosen by tokens (issue 33): a batch holds at most the token budget of
padded tokens, long inputs alone, padding bounded as in text batches."""

from __future__ import annotations

from hinter.models.encoder import token_batches


def test_token_batches_fill_a_token_budget():
    lengths = [512, 500, 490, 300, 290, 100, 100, 100, 100, 90, 20]
    keys = [str(i) for i in range(len(lengths))]
    batches = token_batches(keys, lengths, max_tokens=1024)
    assert [len(b) for b in batches] == [2, 1, 2, 5, 1]
    for batch in batches:  # rows x the batch's longest input within the budget
        assert len(batch) * lengths[int(batch[0])] <= 1024 or len(batch) == 1
        assert min(lengths[int(k)] for k in batch) >= 0.75 * lengths[int(batch[0])]
    assert [k for b in batches for k in b] == keys
    # an input longer than the budget still gets a batch of its own
    assert token_batches(["a", "b"], [2000, 1900], max_tokens=1024) == [["a"], ["b"]]
