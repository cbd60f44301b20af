"""Sampled decoding that a seed makes reproducible prompt by prompt (RQ6.1's repeated runs).

The original artifact let Llama 2 decode with its hub generation config: sampling at temperature
0.6, top-p 0.9 (and transformers' default top-k 50). Plain ``do_sample=True`` draws from one
global random stream, so a prompt's answer would depend on the batch it shares and on what the
cache already held. Here each prompt samples from its own stream, seeded by the run's seed and
the prompt's visible token ids, one draw per generated position (Gumbel-max over the warped
distribution): the same run gives the same answers whatever its batching, another seed other
answers. Generation itself stays greedy over the processed scores, which keep only the drawn
token; the log-probabilities recorded are the model's own (raw logits).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

SAMPLED = "sampled"


def prompt_seed(seed: int, ids: Sequence[int] | np.ndarray) -> int:
    """The stream of one prompt: a digest of the run's seed and its document's token ids."""
    data = np.asarray(ids, dtype=np.int64).tobytes()
    digest = hashlib.blake2b(data, digest_size=8, key=str(int(seed)).encode()).digest()
    return int.from_bytes(digest, "little") >> 1


def _draw(stream: int, step: int, size: int):
    import torch

    generator = torch.Generator().manual_seed((stream ^ (step * 0x9E3779B97F4A7C15)) % 2**63)
    return torch.rand(size, generator=generator, dtype=torch.float64)


class SeededSampler:
    """A ``transformers`` logits processor: per row, warp the scores (temperature, top-k,
    top-p, in transformers' order), draw one token from the row's own stream, and leave only
    that token, so greedy search emits it."""

    def __init__(self, decoding: Mapping[str, Any], streams: Sequence[int], start: int):
        self.temperature = float(decoding["temperature"])
        self.top_p = float(decoding["top_p"])
        self.top_k = int(decoding.get("top_k", 0))
        self.streams = list(streams)
        self.start = start  # input length before the first generated token

    def warp(self, logits):
        """Log-probabilities of the warped distribution (``-inf`` outside top-k / top-p)."""
        import torch

        scores = logits.double() / self.temperature
        if 0 < self.top_k < scores.shape[-1]:
            kth = torch.topk(scores, self.top_k).values[-1]
            scores = scores.masked_fill(scores < kth, float("-inf"))
        if self.top_p < 1.0:
            ordered, order = torch.sort(scores, descending=True)
            cumulative = torch.softmax(ordered, dim=-1).cumsum(-1)
            drop = (cumulative - torch.softmax(ordered, dim=-1)) >= self.top_p  # keeps the first
            scores = scores.masked_fill(torch.zeros_like(drop).scatter(0, order, drop),
                                        float("-inf"))  # fmt: skip
        return torch.log_softmax(scores, dim=-1)

    def __call__(self, input_ids, scores):
        import torch

        step = input_ids.shape[1] - self.start
        out = torch.full_like(scores, float("-inf"))
        for row, stream in enumerate(self.streams):
            logp = self.warp(scores[row].float().cpu())
            u = _draw(stream, step, logp.shape[-1]).clamp_(1e-300, 1.0)
            token = int(torch.argmax(logp - torch.log(-torch.log(u))))
            out[row, token] = 0.0
        return out


def check_decoding(decoding: Mapping[str, Any] | None, key: str) -> dict | None:
    """A backend's ``decoding`` setting: None (greedy) or a complete sampled one."""
    if decoding is None:
        return None
    from hinter.errors import ConfigError

    missing = {"mode", "temperature", "top_p", "seed"} - set(decoding)
    if decoding.get("mode") != SAMPLED or missing:
        raise ConfigError(
            f"config key '{key}.decoding': expected mode {SAMPLED} with temperature, top_p, "
            f"seed; got {dict(decoding)}"
        )
    return dict(decoding)
