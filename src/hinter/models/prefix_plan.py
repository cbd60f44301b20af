"""Which prompts share a document head, and in which blocks the chat engine computes them.

A mutant differs from its original only from its first edit on: every prompt of one document
(the original and its mutants) repeats the same tokens before the earliest edit, and mutants
whose first edits lie late share long heads. The chat engine
(:mod:`hinter.models.chat_transformers`) already computes the few-shot prefix once; this plan
lets it compute each group's shared head once too, and only the rest of each prompt per row.

The plan needs no document ids: prompts sorted by their token ids put the prompts of one
document side by side (they agree up to their first edit), and the shared length of a run of
sorted prompts is the smallest common prefix of neighbours. A run is split where that keeps
more tokens shared (:func:`shared_heads`: the best split of each run by its weakest link, a
Cartesian-tree recursion), and a group is formed only when its head is at least ``min_head``
tokens (a shorter head is not worth an extra forward pass).

Groups are then packed into blocks (:func:`head_blocks`): the heads of a block are computed in
one batch (left padding bounded like any batch), and the block's rows, in batches, read their
group's head from that batch's cache. A block's cache is dropped when its rows are answered, so
memory stays one batch's worth whatever the number of documents.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hinter.models.stage import MAX_PADDING

MIN_HEAD = 32  # tokens: a shared head shorter than this is recomputed per prompt


@dataclass(frozen=True)
class Group:
    """Prompts (indices) that share their first ``head`` tokens after the few-shot prefix."""

    head: int
    members: tuple[int, ...]


def common_length(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the common prefix of two id sequences."""
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


def shared_heads(seqs: Sequence[np.ndarray], min_head: int | None = MIN_HEAD) -> list[Group]:
    """Groups of prompts with a shared head (``head`` ≥ ``min_head``; every member keeps at
    least one token of its own), and single prompts as groups of one with ``head`` 0; every
    index once. ``min_head=None`` groups nothing (the engine without head reuse)."""
    seqs = [np.asarray(s, dtype=np.int64) for s in seqs]
    if min_head is None or len(seqs) < 2:
        return [Group(0, (i,)) for i in range(len(seqs))]
    order = sorted(range(len(seqs)), key=lambda i: (seqs[i].tolist(), i))
    # the head a neighbour pair may share: each keeps one token to feed the model
    links = [
        min(common_length(seqs[a], seqs[b]), len(seqs[a]) - 1, len(seqs[b]) - 1)
        for a, b in itertools.pairwise(order)
    ]
    groups: list[Group] = []
    for lo, hi in _runs(links, min_head):
        for a, b, head in _best_split(links, lo, hi, min_head):
            members = tuple(order[a : b + 1])
            if head:
                groups.append(Group(head, members))
            else:
                groups.extend(Group(0, (m,)) for m in members)
    return groups


def _runs(links: Sequence[int], min_head: int) -> list[tuple[int, int]]:
    """Maximal runs [lo, hi] of sorted positions whose neighbours share ≥ ``min_head``."""
    runs, lo = [], 0
    for k, link in enumerate(links):
        if link < min_head:
            runs.append((lo, k))
            lo = k + 1
    runs.append((lo, len(links)))
    return runs


def _best_split(links, lo: int, hi: int, min_head: int) -> list[tuple[int, int, int]]:
    """Partition sorted positions [lo, hi] into runs (a, b, head) that save the most tokens:
    a run of g prompts with head h saves (g - 1) * h. Either the whole range shares its weakest
    link, or it splits there and each side does its best (iterative, any depth)."""
    best: dict[tuple[int, int], tuple[int, list]] = {}
    stack = [(lo, hi, False)]
    while stack:
        a, b, expanded = stack.pop()
        if a == b:
            best[(a, b)] = (0, [(a, b, 0)])
            continue
        k = a + int(np.argmin(links[a:b]))
        if not expanded:
            stack.append((a, b, True))
            stack.extend([(a, k, False), (k + 1, b, False)])
            continue
        head = links[k]
        whole = (b - a) * head if head >= min_head else 0
        left, right = best.pop((a, k)), best.pop((k + 1, b))
        split = left[0] + right[0]
        best[(a, b)] = (
            (whole, [(a, b, head)]) if whole and whole >= split else (split, left[1] + right[1])
        )
    return best[(lo, hi)][1]


def head_blocks(groups: Sequence[Group], batch_size: int) -> list[list[Group]]:
    """Blocks of groups whose heads are computed in one batch: longest heads first, at most
    ``batch_size`` groups, head padding at most ``MAX_PADDING`` of a row; single prompts
    (head 0) in one block of their own (they need no head cache)."""
    shared = sorted((g for g in groups if g.head), key=lambda g: (-g.head, g.members))
    singles = [g for g in groups if not g.head]
    blocks: list[list[Group]] = []
    width = 0
    for group in shared:
        if not blocks or len(blocks[-1]) >= batch_size or group.head < width * (1 - MAX_PADDING):
            blocks.append([])
            width = group.head
        blocks[-1].append(group)
    if singles:
        blocks.append(singles)
    return blocks


def computed_tokens(seqs: Sequence[np.ndarray], groups: Sequence[Group]) -> int:
    """Prompt tokens (after the few-shot prefix) a plan computes, padding aside: each group's
    head once, each member's rest."""
    return sum(g.head + sum(len(seqs[m]) - g.head for m in g.members) for g in groups)


def trie_tokens(seqs: Sequence[np.ndarray]) -> int:
    """Prompt tokens a full prefix tree would compute: every distinct prefix once (the bound
    no plan beats)."""
    seqs = sorted((np.asarray(s, dtype=np.int64) for s in seqs), key=lambda s: s.tolist())
    total = sum(len(s) for s in seqs)
    return total - sum(common_length(a, b) for a, b in itertools.pairwise(seqs))
