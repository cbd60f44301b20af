"""Document head reuse in the chat engine (issue 33): the plan groups the prompts that share a
head, and the engine's answers with shared heads equal one prompt at a time and the engine
without head reuse."""

from __future__ import annotations

import numpy as np
import pytest
from llm_models import llm_spec

from hinter import io
from hinter.models.llm import LLMPredictor
from hinter.models.prefix_plan import (
    Group,
    computed_tokens,
    head_blocks,
    shared_heads,
    trie_tokens,
)


def _mutant(doc: list[int], at: int, token: int = 9999) -> list[int]:
    return [*doc[:at], token, *doc[at + 1 :]]


def test_plan_groups_a_documents_prompts_by_their_first_edit():
    rng = np.random.default_rng(0)
    doc = rng.integers(10, 500, 300).tolist()
    other = rng.integers(10, 500, 200).tolist()
    # original, three late mutants (edits at 200, 250, 280), one early (at 5), another document
    seqs = [doc, _mutant(doc, 200), _mutant(doc, 250), _mutant(doc, 280), _mutant(doc, 5), other]
    groups = shared_heads(seqs, min_head=32)
    assert sorted(m for g in groups for m in g.members) == list(range(6))
    shared = [g for g in groups if g.head]
    # the early mutant does not drag the others' head down to 5 tokens
    assert len(shared) == 1
    assert shared[0].head == 200 and set(shared[0].members) == {0, 1, 2, 3}
    assert computed_tokens(seqs, groups) == sum(map(len, seqs)) - 3 * 200
    assert trie_tokens(seqs) == sum(map(len, seqs)) - (200 + 250 + 280 + 5)
    # no reuse: every prompt alone, as the engine before
    assert all(g.head == 0 for g in shared_heads(seqs, None))


def test_plan_splits_a_run_where_that_shares_more():
    doc = list(range(100, 500))
    # two clusters of late mutants that share 300 and 350 tokens, linked at 40 tokens
    a = [_mutant(doc, 40, 7)] + [_mutant(_mutant(doc, 40, 7), k) for k in (300, 320)]
    b = [doc] + [_mutant(doc, k) for k in (350, 360, 370)]
    groups = shared_heads(a + b, min_head=32)
    heads = sorted(g.head for g in groups)
    assert heads == [300, 350]
    # a prompt keeps at least one token of its own: a prompt that is another's prefix
    groups = shared_heads([doc, doc[:200]], min_head=32)
    assert [g.head for g in groups] == [199]


def test_head_blocks_bound_padding_and_size():
    groups = [Group(h, (i, i + 100)) for i, h in enumerate([400, 390, 380, 100, 90, 0])]
    blocks = head_blocks(groups, batch_size=2)
    assert [[g.head for g in b] for b in blocks] == [[400, 390], [380], [100, 90], [0]]


@pytest.mark.usefixtures("one_torch_thread")
def test_engine_with_shared_heads_equals_the_loop_and_the_engine_before(tiny, imdb, tmp_path):
    """An original and its mutants (edits early and late), fp32: the same answers and
    log-probabilities one prompt at a time, and fewer tokens computed."""
    predictor = LLMPredictor(
        "m", llm_spec(tiny), dataset="imdb", variant="default", meta_path=imdb / "meta.json",
        train_path=imdb / "train.parquet", cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    texts = io.read_parquet(imdb / "tested.parquet").column("text").to_pylist()
    words = " ".join(texts[:4]).split()[:120]
    variants = [words]
    for k, word in [(100, "Indian"), (110, "Mexican"), (3, "German"), (90, "she")]:
        variants.append([*words[:k], word, *words[k + 1 :]])
    docs = [" ".join(v) for v in variants] + [texts[5]]
    ids = [e.ids for e in predictor.engine.encode(docs)]
    backend = predictor.backend
    shared = backend.generate(predictor.frame, ids)
    reused = backend.computed_tokens
    backend.min_head, backend.computed_tokens = None, 0
    before = backend.generate(predictor.frame, ids)
    alone = backend.generate_one_by_one(predictor.frame, ids)
    assert [s["text"] for s in shared] == [b["text"] for b in before] == [a["text"] for a in alone]
    for s, a in zip(shared, alone, strict=True):
        assert s["token_ends"] == a["token_ends"]
        np.testing.assert_allclose(s["logprobs"], a["logprobs"], atol=2e-4)
    assert reused < 0.7 * backend.computed_tokens
