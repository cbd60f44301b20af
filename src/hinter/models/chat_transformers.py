"""Chat LLMs with open weights through ``transformers``: batched greedy generation that computes
the shared prompt prefix once.

Every prompt of a (dataset, template) starts with the same tokens — system instruction and
few-shot turns, often most of the prompt — so their keys and values are computed once
(:class:`~hinter.models.context.ChatFrame` ``prefix_ids``) and reused by every batch: a batch's
rows are ``prefix + padding + document + suffix``, the padding masked out and the position ids
taken from the mask, so each row is the same computation as its prompt alone. Prompts that
share a document head (an original's mutants agree up to their first edit) are grouped
(:mod:`hinter.models.prefix_plan`): each group's head is computed once, in a batch of heads that
extends the prefix's cache, and each row then computes only its rest,
``prefix + head padding + head + padding + rest``, reading its group's head from that cache; a
block's cache is dropped when its rows are answered. Batches are length-sorted with bounded
padding. Decoding is greedy by an explicit generation config
(``do_sample=False``, one beam, no temperature or top-p: a hub model's own generation config —
Llama 2 chat samples at temperature 0.6 — is never used), stopping at the answer budget or the
end of the assistant's turn. A ``decoding`` setting (RQ6.1's sampled repeats) samples instead,
each prompt from its own seeded stream (:mod:`hinter.models.sampling`). Several decodings of
the same prompts (RQ6.1's default run and its sampled repeats, :meth:`generate_runs`) share
one prefill: each batch's prompts are computed up to their last token once, and every decoding
continues from that cache, cropped back to it after each run (no copy: a batch's cache at full
legal context is tens of GB on a 7B model; a sliding-window cache, which cannot be cropped back,
is copied per run instead). Each generated token's log-probability comes from
the raw logits.
bf16 on GPU, float32 on CPU; ``trust_remote_code=False``; safetensors only.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from hinter.checkpoints import Checkpoint
from hinter.models.context import ChatFrame, HFDocTokenizer, chat_frame
from hinter.models.llm_loading import identity_of, load_causal_lm, load_chat_tokenizer
from hinter.models.prefix_plan import MIN_HEAD, Group, head_blocks, shared_heads
from hinter.models.prompts import Prompt
from hinter.models.sampling import SeededSampler, check_decoding, prompt_seed
from hinter.models.stage import padded_batches
from hinter.progress import Progress

log = logging.getLogger(__name__)


def rewindable(cache) -> bool:
    """Whether cropping ``cache`` back restores it exactly: every layer a plain full-attention
    :class:`~transformers.cache_utils.DynamicLayer` (a sliding-window layer drops its oldest
    states as it grows, so a decoded run cannot be undone; such caches are copied per run)."""
    from transformers.cache_utils import DynamicLayer

    layers = getattr(cache, "layers", None)
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


class TransformersChat:
    """One open-weights chat model; the weights load on the first generation (a rerun whose
    answers are all cached never loads them)."""

    name = "transformers"
    # greedy, or sampled with a seed in the settings: a run's answers repeat themselves
    deterministic = True

    def __init__(
        self,
        source: Checkpoint,
        *,
        dtype: str = "auto",
        batch_size: int = 8,
        device: str | None = None,
        key: str = "model",
        decoding: dict | None = None,
    ):
        self.decoding = check_decoding(decoding, key.rsplit(".", 1)[0])
        self.source = source
        self.dtype = dtype
        self.batch_size = batch_size
        self.device = device
        self.tokenizer = load_chat_tokenizer(source, key)
        self.doc_tokenizer = HFDocTokenizer(self.tokenizer, source.source)
        self._model: Any = None
        self._prefix: dict[tuple[int, ...], Any] = {}
        self.calls = 0  # generate() calls (a batch each)
        self.computed_tokens = 0  # prompt tokens after the few-shot prefix run through the model
        self.min_head = MIN_HEAD  # None: no document head reuse (the engine before issue 33)

    @classmethod
    def from_model(
        cls, model: Any, tokenizer: Any, batch_size: int = 8, decoding: dict | None = None
    ) -> TransformersChat:
        """A backend around an already loaded model and tokenizer (benchmarks, tests)."""
        self = cls.__new__(cls)
        self.decoding = check_decoding(decoding, "decoding")
        self.source = Checkpoint("loaded", "loaded", "local", identity="loaded")
        self.dtype, self.batch_size, self.device = str(model.dtype), batch_size, None
        self.tokenizer = tokenizer
        self.doc_tokenizer = HFDocTokenizer(tokenizer, "loaded")
        self._model, self._prefix, self.calls = model, {}, 0
        self.computed_tokens, self.min_head = 0, MIN_HEAD
        return self

    @property
    def identity(self) -> str:
        return identity_of(self.source)

    def settings(self) -> dict[str, Any]:
        return self.settings_for(self.decoding)

    def settings_for(self, decoding: dict | None) -> dict[str, Any]:
        """The generation settings a cache fingerprint records for ``decoding`` (None: greedy),
        this backend's or a run's that shares its prefill (:meth:`generate_runs`)."""
        if decoding is not None:  # its seed keeps each run's cache entries apart
            return {"dtype": self.dtype, "do_sample": True, **decoding}
        return {"dtype": self.dtype, "do_sample": False, "num_beams": 1}

    def _sampler(self, docs: Sequence[Any], start: int, decoding: dict | None) -> list:
        """The logits processors of one generate call: none for greedy decoding."""
        if decoding is None:
            return []
        seed = decoding["seed"]
        return [SeededSampler(decoding, [prompt_seed(seed, d) for d in docs], start)]

    def frame(self, prompt: Prompt, context_tokens: int, max_new_tokens: int, where: str):
        return chat_frame(self.doc_tokenizer, prompt, context_tokens, max_new_tokens, where)

    @property
    def model(self):
        if self._model is None:
            self._model = load_causal_lm(self.source, self.dtype, self.device)
            log.info("loaded %s (%s, %s)", self.source.source, self._model.dtype, self.device_type)
        return self._model

    @property
    def device_type(self) -> str:
        return self._model.device.type if self._model is not None else "unloaded"

    def stop_ids(self) -> list[int]:
        """End of the assistant's turn: the tokenizer's and the model's end-of-sequence ids."""
        ids = set()
        for value in (self.tokenizer.eos_token_id, self.model.generation_config.eos_token_id):
            if isinstance(value, int):
                ids.add(value)
            elif value:
                ids.update(int(v) for v in value)
        return sorted(ids)

    def generation_config(self, max_new_tokens: int):
        from transformers import GenerationConfig

        stop = self.stop_ids()
        pad = self.tokenizer.pad_token_id
        return GenerationConfig(
            do_sample=False,
            num_beams=1,
            max_new_tokens=max_new_tokens,
            eos_token_id=stop,
            pad_token_id=int(pad if pad is not None else stop[0]),
            return_dict_in_generate=True,
            output_logits=True,
        )

    # -- generation --------------------------------------------------------------------------
    def _prefix_cache(self, prefix: tuple[int, ...]):
        import torch
        from transformers import DynamicCache

        if prefix not in self._prefix:
            model = self.model
            cache = DynamicCache(config=model.config)
            with torch.inference_mode():
                model(
                    input_ids=torch.tensor([prefix], device=model.device),
                    past_key_values=cache,
                    use_cache=True,
                )
            self._prefix = {prefix: cache}  # one prompt at a time: keep the latest only
        return self._prefix[prefix]

    def generate(self, frame: ChatFrame, docs: Sequence[np.ndarray], texts=None) -> list[dict]:
        """Answers for documents (their visible ids), reusing the prefix's KV cache and each
        document group's shared head (:mod:`hinter.models.prefix_plan`)."""
        return self.generate_runs(frame, docs, [self.decoding])[0]

    def generate_runs(
        self, frame: ChatFrame, docs: Sequence[np.ndarray], decodings: Sequence[dict | None]
    ) -> list[list[dict]]:
        """The answers of each decoding in ``decodings`` (None: greedy; else a sampled
        decoding's settings) for the same documents, every prompt prefilled once: each
        decoding's answers equal those of a backend with that decoding alone."""
        suffix = list(frame.suffix_ids)
        seqs = [np.asarray([*map(int, d), *suffix], dtype=np.int64) for d in docs]
        groups = shared_heads(seqs, self.min_head)
        out: list[list[dict | None]] = [[None] * len(docs) for _ in decodings]
        with Progress("generated", len(docs), "answers", every=30.0, bar=False) as progress:
            for block in head_blocks(groups, self.batch_size):
                self._generate_block(frame, docs, seqs, block, out, progress, decodings)
        return out  # type: ignore[return-value]

    def _head_cache(self, prefix: tuple[int, ...], seqs, block: Sequence[Group], pad: int):
        """The few-shot prefix's cache extended by each group's head in one batch: the cache
        (a row per group), the heads' ids and mask (left-padded to the longest head)."""
        import torch

        model = self.model
        base = self._prefix_cache(prefix)
        width = max(g.head for g in block)
        p = len(prefix)
        ids = torch.full((len(block), width), pad, dtype=torch.long)
        mask = torch.zeros((len(block), p + width), dtype=torch.long)
        mask[:, :p] = 1
        for r, group in enumerate(block):
            ids[r, width - group.head :] = torch.from_numpy(seqs[group.members[0]][: group.head])
            mask[r, p + width - group.head :] = 1
        if not width:  # single prompts: the prefix's cache, repeated per batch later
            return base, ids, mask[:, p:]
        cache = copy.deepcopy(base)
        if len(block) > 1:
            cache.batch_repeat_interleave(len(block))
        positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, p:]
        with torch.inference_mode():
            model(
                input_ids=ids.to(model.device),
                attention_mask=mask.to(model.device),
                position_ids=positions.to(model.device),
                past_key_values=cache,
                use_cache=True,
            )
        self.computed_tokens += sum(g.head for g in block)
        return cache, ids, mask[:, p:]

    def _generate_block(
        self, frame, docs, seqs, block: Sequence[Group], out, progress, decodings
    ) -> None:
        """Answer one block's prompts in batches; every row reads its group's head from the
        block's cache (a batch of rows of several documents stays a full batch)."""
        import torch

        model = self.model
        config = self.generation_config(frame.max_new_tokens)
        pad = config.pad_token_id
        prefix = tuple(frame.prefix_ids)
        p = len(prefix)
        cache, head_ids, head_mask = self._head_cache(prefix, seqs, block, pad)
        hw = head_ids.shape[1]
        group_of = {m: r for r, g in enumerate(block) for m in g.members}
        head_of = {m: g.head for g in block for m in g.members}
        order = sorted(group_of, key=lambda i: (-(len(seqs[i]) - head_of[i]), i))
        lengths = [len(seqs[i]) - head_of[i] for i in order]
        for batch in padded_batches([str(i) for i in order], lengths, self.batch_size):
            rows = [int(i) for i in batch]
            rests = [seqs[i][head_of[i] :] for i in rows]
            width = max(len(r) for r in rests)
            ids = torch.full((len(rows), p + hw + width), pad, dtype=torch.long)
            mask = torch.zeros_like(ids)
            ids[:, :p] = torch.tensor(prefix)
            mask[:, :p] = 1
            where = torch.tensor([group_of[i] for i in rows])
            ids[:, p : p + hw] = head_ids[where]
            mask[:, p : p + hw] = head_mask[where]
            for r, rest in enumerate(rests):
                ids[r, p + hw + width - len(rest) :] = torch.from_numpy(rest)
                mask[r, p + hw + width - len(rest) :] = 1
            rows_cache = copy.deepcopy(cache)
            if not hw and len(rows) > 1:
                rows_cache.batch_repeat_interleave(len(rows))
            elif hw and (len(block) > 1 or len(rows) > 1):
                rows_cache.batch_select_indices(where.to(model.device))
            start = p + hw + width
            shared = len(decodings) > 1
            if shared:  # every decoding continues from the rests' one prefill
                self._prefill(ids, mask, rows_cache, p + hw)
                kept = rows_cache.get_seq_length()
            in_place = shared and rewindable(rows_cache)
            for run, decoding in enumerate(decodings):
                last = run == len(decodings) - 1
                run_cache = rows_cache if in_place or last else copy.deepcopy(rows_cache)
                with torch.inference_mode():
                    result = model.generate(
                        input_ids=ids.to(model.device),
                        attention_mask=mask.to(model.device),
                        past_key_values=run_cache,
                        generation_config=config,
                        logits_processor=self._sampler([docs[i] for i in rows], start, decoding),
                    )
                self.calls += 1
                new = result.sequences[:, start:].cpu()
                logits = [step.float().cpu() for step in result.logits]
                for r, i in enumerate(rows):
                    out[run][i] = self._record(new[r], [step[r] for step in logits], config)
                if in_place:  # back to the prefill: no second copy of a batch's cache
                    rows_cache.crop(kept - rows_cache.get_seq_length())
                del run_cache, result
            self.computed_tokens += sum(len(r) for r in rests)
            progress.update(len(rows))

    def _prefill(self, ids, mask, cache, cached: int) -> None:
        """Extend ``cache`` (holding the first ``cached`` columns) by every column but the
        last: ``generate`` then computes only the last token and decodes from there."""
        import torch

        if ids.shape[1] - 1 <= cached:
            return
        model = self.model
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            model(
                input_ids=ids[:, cached:-1].to(model.device),
                attention_mask=mask[:, :-1].to(model.device),
                position_ids=positions[:, cached:-1].to(model.device),
                past_key_values=cache,
                use_cache=True,
            )

    def generate_one_by_one(self, frame: ChatFrame, docs: Sequence[np.ndarray]) -> list[dict]:
        """The original artifact's loop: one prompt at a time, the whole prompt recomputed
        (the baseline of the benchmark, and the reference the batched path must equal)."""
        import torch

        model = self.model
        config = self.generation_config(frame.max_new_tokens)
        out = []
        for doc in docs:
            ids = torch.tensor(
                [[*frame.prefix_ids, *map(int, doc), *frame.suffix_ids]], device=model.device
            )
            with torch.inference_mode():
                result = model.generate(
                    input_ids=ids,
                    attention_mask=torch.ones_like(ids),
                    generation_config=config,
                    logits_processor=self._sampler([doc], ids.shape[1], self.decoding),
                )
            self.calls += 1
            new = result.sequences[0, ids.shape[1] :].cpu()
            out.append(self._record(new, [s[0].float().cpu() for s in result.logits], config))
        return out

    def _record(self, tokens, step_logits, config) -> dict:
        """The answer text, each token's end offset in it and log-probability, up to the end
        of the turn (padding after it dropped)."""
        import torch

        stop = set(config.eos_token_id)
        kept: list[int] = []
        logprobs: list[float] = []
        finish = "length"
        for token, logits in zip(tokens.tolist(), step_logits, strict=False):
            logprobs.append(float(torch.log_softmax(logits, dim=-1)[token]))
            kept.append(int(token))
            if token in stop:
                finish = "stop"
                break
        ends = [
            len(self.tokenizer.decode(kept[: k + 1], skip_special_tokens=True))
            for k in range(len(kept))
        ]
        text = self.tokenizer.decode(kept, skip_special_tokens=True)
        return {"text": text, "token_ends": ends, "logprobs": logprobs, "finish": finish}

    def close(self) -> None:
        self._prefix.clear()
