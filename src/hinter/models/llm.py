"""Prompted LLMs as predictors: an LLM is tested exactly like an encoder.

Same predict stage (:func:`hinter.models.stage.run_predict_stage`): originals once, texts
deduplicated, mutants unchanged within what the model reads skipped, every output cached. What
differs is the model call and the output:

- the model-visible input of a text is its document's first ``budget`` tokens
  (:mod:`hinter.models.context`): the instructions and examples are never cut;
- a model call is a greedy generation (a chat backend: :mod:`hinter.models.chat_transformers`,
  :mod:`hinter.models.chat_openai`; RQ6.1's repeats may sample, seeded per run), cached as JSON
  (answer text, token ends, log-probabilities) under a fingerprint of the model, prompt and
  generation settings, a sampled run's seed included (plus the run index for a backend whose
  repeated runs may differ);
- a prediction is the parsed answer (:mod:`hinter.models.answers`): its label set, the raw
  answer, its status (answer | none | no_answer) and its confidence.

The few-shot examples are excluded from testing the model: their originals are not predicted,
and the LLM track's mutation skips them (:func:`track_setup`), so they never reach the outcomes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from hinter import io, tables
from hinter.errors import ConfigError, DataError
from hinter.layout import Variant
from hinter.models.answers import AnswerParser, answer_confidence
from hinter.models.cache import JsonCodec, MemoryCache, PredictionCache
from hinter.models.context import ChatFrame, HFDocTokenizer, PromptWindow
from hinter.models.prompts import (
    Prompt,
    build_prompt,
    check_paper_examples,
    excluded_documents,
    label_names_of,
    resolve_examples,
)
from hinter.models.stage import BaseEngine, Encoded, splits_at_whitespace
from hinter.prompt_spec import load_prompt_spec

log = logging.getLogger(__name__)

LLM_ENGINE_VERSION = "1"  # bumped when generation or its record changes: old caches unused
ERROR = "error"


def max_new_tokens(spec: Mapping[str, Any], dataset: str, key: str) -> int:
    budgets = spec.get("max_new_tokens") or {}
    if dataset not in budgets:
        raise ConfigError(f"config key '{key}.max_new_tokens': no answer budget for {dataset}")
    return int(budgets[dataset])


def transformers_backend(
    name: str, spec: Mapping[str, Any], *, run: int, cache_dir: str | Path, key: str
):
    from hinter.checkpoints import resolve_llm
    from hinter.models.chat_transformers import TransformersChat

    source = resolve_llm(spec["model"], spec.get("revision"), cache_dir, key=f"{key}.model")
    return TransformersChat(
        source,
        dtype=spec.get("dtype", "auto"),
        batch_size=int(spec.get("batch_size", 8)),
        key=f"{key}.model",
        decoding=spec.get("decoding"),  # RQ6.1's sampled repeats (hinter.plan.decoding)
    )


def openai_backend(
    name: str, spec: Mapping[str, Any], *, run: int, cache_dir: str | Path, key: str
):
    from hinter.models.chat_openai import OpenAIChat

    return OpenAIChat(spec, model_name=name, run=run, cache_dir=cache_dir, key=key)


# The chat backends: name -> factory taking (name, spec, run=, cache_dir=, key=). A new backend
# is one module with a class offering ``name``, ``deterministic``, ``identity``,
# ``doc_tokenizer``, ``settings()``, ``frame(...)``, ``generate(...)`` and ``close()``, and one
# line here.
CHAT_BACKENDS: dict[str, Callable[..., Any]] = {
    "transformers": transformers_backend,
    "openai": openai_backend,
}


def chat_backend(backend: str, key: str = "backend") -> Callable[..., Any]:
    factory = CHAT_BACKENDS.get(backend)
    if factory is None:
        known = ", ".join(sorted(CHAT_BACKENDS))
        raise ConfigError(f"config key '{key}.backend': unknown backend {backend!r} ({known})")
    return factory


def build_backend(name: str, spec: Mapping[str, Any], *, run: int, cache_dir: str | Path, key: str):
    """The chat backend of ``models.llms.<name>`` (:data:`CHAT_BACKENDS`)."""
    return chat_backend(spec["backend"], key)(name, spec, run=run, cache_dir=cache_dir, key=key)


def load_prompt(
    dataset: str,
    template: str,
    meta: Mapping[str, Any],
    train_path: str | Path,
    *,
    from_hub: bool,
    prompts_dir: str | Path | None = None,
    answer_prefix: str | None = None,
) -> Prompt:
    """The filled prompt of (dataset, template), its examples resolved against the train split;
    ``answer_prefix`` primes the model's reply (``models.llms.<name>.answer_prefix``)."""
    spec = load_prompt_spec(dataset, prompts_dir)
    train = io.read_parquet(train_path, tables.DOCUMENTS)
    examples = resolve_examples(spec, train, from_hub=from_hub, named=meta.get("fewshot"))
    names = label_names_of(meta)
    if from_hub:
        problems = check_paper_examples(spec, examples, names)
        if problems and any(e.by_content for e in examples):  # the paper's own text: a fault
            raise DataError(f"{dataset} few-shot example: {problems[0]} (001 Table 8)")
        for problem in problems:
            log.warning("%s few-shot example: %s (001 Table 8)", dataset, problem)
    return build_prompt(spec, template, names, examples, answer_prefix=answer_prefix or "")


class LLMEngine(BaseEngine):
    """The deduplicating, caching engine around a chat backend and one prompt frame."""

    def __init__(
        self,
        backend: Any,
        prompt: Prompt,
        frame: ChatFrame,
        cache: MemoryCache,
        progress: Any = None,
        companions: Sequence[tuple[dict, MemoryCache]] = (),
    ):
        tok = backend.doc_tokenizer
        safe = isinstance(tok, HFDocTokenizer) and splits_at_whitespace(tok.tokenizer)
        super().__init__(cache, getattr(backend, "batch_size", 8), progress, shortcut_safe=safe)
        self.backend = backend
        self.prompt = prompt
        self.frame = frame
        self._visible: dict[str, str] = {}  # ids hash -> the document as the model reads it
        # (decoding, its run's cache): runs answered from this run's prefill (generate_runs)
        self.companions = list(companions)
        self._companion_outputs: list[dict[str, Any]] = [{} for _ in self.companions]

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        out = self.backend.doc_tokenizer.documents(list(texts), self.frame.budget)
        self.stats.tokenized += len(texts)
        for text, enc in zip(texts, out, strict=True):
            self._visible.setdefault(enc.ids_hash, text[: enc.visible_end])
        return out

    def resolve(self, texts, encoded=None, known_ids=None):
        try:
            return super().resolve(texts, encoded, known_ids)
        finally:
            self._visible.clear()  # only needed within one call: bounded memory

    def forward(self, sequences: Mapping[str, np.ndarray]) -> dict[str, Any]:
        keys = list(sequences)
        docs = [sequences[k] for k in keys]
        if self.companions:
            decodings = [self.backend.decoding, *(d for d, _ in self.companions)]
            generations, *others = self.backend.generate_runs(self.frame, docs, decodings)
            for kept, answers in zip(self._companion_outputs, others, strict=True):
                kept.update((k, g) for k, g in zip(keys, answers, strict=True) if g is not None)
        elif self.backend.name == "transformers":
            generations = self.backend.generate(self.frame, docs)
        else:
            texts = [self._visible[k] for k in keys]
            generations = self.backend.generate(self.frame, docs, texts, self.prompt)
        self.stats.forward_batches += 1
        self.stats.forward_texts += len(keys)
        if self.progress is not None:
            self.progress.update(len(keys))
        pairs = zip(keys, generations, strict=True)
        return {k: g if g is not None else {ERROR: True} for k, g in pairs}

    def cacheable(self, outputs: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in outputs.items() if not v.get(ERROR)}  # failures are retried

    def store(self, texts: Mapping[str, str], outputs: Mapping[str, Any]) -> None:
        """This run's outputs in its cache, each companion run's in its own: that run's job
        then finds every answer computed and never loads the model."""
        super().store(texts, outputs)
        for (_, cache), kept in zip(self.companions, self._companion_outputs, strict=True):
            cache.put(texts, kept)
            kept.clear()


@dataclass(frozen=True)
class Parsed:
    labels: list[int]
    confidence: float | None
    status: str  # PREDICTIONS.status
    answer: str | None
    answer_status: str | None


class LLMPredictor:
    """A prompted LLM on one dataset, one variant (prompt template and run index)."""

    def __init__(
        self,
        name: str,
        spec: Mapping[str, Any],
        *,
        dataset: str,
        variant: str,
        meta_path: str | Path,
        train_path: str | Path,
        cache_dir: str | Path,
        from_hub: bool,
        track: Mapping[str, Any] | None = None,
        cache: bool = True,
        prompts_dir: str | Path | None = None,
        backend: Any = None,
        companions: Sequence[Mapping[str, Any]] = (),
    ):
        """``companions``: the sampled decodings of repeated runs (RQ6.1,
        :func:`hinter.plan.shared_decodings`) answered alongside this run from its prefill
        and cached under their own runs' fingerprints; a backend without ``generate_runs``,
        or a run without a persistent cache, leaves them to their own jobs."""
        key = f"models.llms.{name}"
        self.name = name
        self.variant = Variant.from_name(variant)
        meta = io.read_json(meta_path)
        self.backend = backend or build_backend(
            name, spec, run=self.variant.run, cache_dir=cache_dir, key=key
        )
        self.prompt = load_prompt(
            dataset, self.variant.prompt, meta, train_path, from_hub=from_hub,
            prompts_dir=prompts_dir, answer_prefix=spec.get("answer_prefix"),
        )  # fmt: skip
        context = int(spec.get("context_tokens", 4096))
        budget = max_new_tokens(spec, dataset, key)
        where = f"{key} on {dataset} ({self.variant.prompt})"
        self.frame = self.backend.frame(self.prompt, context, budget, where)
        self.parser = AnswerParser(label_names_of(meta), meta["task_type"])
        self.excluded = frozenset(excluded_documents(self.prompt.examples))
        self.max_documents = (track or {}).get("max_documents")
        settings = {
            "engine": LLM_ENGINE_VERSION,
            "backend": self.backend.name,
            "model": spec["model"],
            "identity": self.backend.identity,
            "generation": self.backend.settings(),
            "prompt": self.prompt.digest,
            "context_tokens": context,
            "max_new_tokens": budget,
            "document_tokens": self.frame.budget,
            # local decoding repeats itself (greedy, or sampled with the seed in "generation"):
            # repeated runs share cache entries only when they decode alike
            "run": None if self.backend.deterministic else self.variant.run,
        }
        self.fingerprint = fingerprint_of(settings)
        codec = JsonCodec()
        store = (
            PredictionCache(cache_dir, self.fingerprint, codec=codec)
            if cache
            else MemoryCache(codec=codec)
        )
        shared = []
        if cache and companions and hasattr(self.backend, "generate_runs"):
            for decoding in companions:
                theirs = {**settings, "generation": self.backend.settings_for(dict(decoding))}
                their_cache = PredictionCache(cache_dir, fingerprint_of(theirs), codec=codec)
                shared.append((dict(decoding), their_cache))
        self.engine = LLMEngine(self.backend, self.prompt, self.frame, store, companions=shared)
        self.metadata = {
            **settings,
            "name": name,
            "dataset": dataset,
            "variant": self.variant.name,
            "template": self.variant.prompt,
            "run_index": self.variant.run,
            "fingerprint": self.fingerprint,
            "prompt_tokens": self.frame.prompt_tokens,
            "examples": [e.doc_id for e in self.prompt.examples],
            "track_max_documents": self.max_documents,
        }

    # -- rows --------------------------------------------------------------------------------
    def parse(self, generation: Mapping[str, Any]) -> Parsed:
        if generation.get(ERROR):
            return Parsed([], None, ERROR, None, None)
        text = generation["text"]
        answer = self.parser.parse(text)
        confidence = (
            answer_confidence(answer, generation["token_ends"], generation["logprobs"])
            if generation["logprobs"]
            else None
        )
        return Parsed(list(answer.labels), confidence, "ok", text, answer.status)

    def rows(self, text_ids, kind, keys, outputs, statuses) -> pa.Table:
        parsed = [self.parse(outputs[k]) for k in keys]
        n = len(text_ids)
        return pa.table(
            {
                "text_id": list(text_ids),
                "kind": [kind] * n,
                "labels": pa.array([p.labels for p in parsed], type=tables.LABELS),
                "scores": pa.array([[] for _ in parsed], type=pa.list_(pa.float32())),
                "confidence": pa.array([p.confidence for p in parsed], type=pa.float32()),
                "status": [
                    p.status if p.status == ERROR else s
                    for p, s in zip(parsed, statuses, strict=True)
                ],
                "answer": pa.array([p.answer for p in parsed], type=pa.string()),
                "answer_status": pa.array([p.answer_status for p in parsed], type=pa.string()),
            },
            schema=tables.PREDICTIONS,
        )

    # -- a paid run's dry estimate -----------------------------------------------------------
    def prepare(self, chunks: Iterable[Sequence[str]]) -> dict[str, Any] | None:
        """For an API backend: count what the run would send (nothing is sent), log it, check
        the budget and the API key. Other backends need nothing."""
        if not hasattr(self.backend, "estimate"):
            return None
        seen: set[str] = set()
        total = dict.fromkeys(
            ("requests", "cached", "to_send", "prompt_tokens", "max_completion_tokens"), 0
        )
        cost = 0.0
        for texts in chunks:
            hashes = [h for h in dict.fromkeys(_text_hash(t) for t in texts) if h not in seen]
            seen.update(hashes)
            known = self.engine.cache.get_ids(hashes)
            done = self.engine.cache.get_logits(set(known.values()))
            fresh = [t for t in dict.fromkeys(texts) if known.get(_text_hash(t)) not in done]
            if not fresh:
                continue
            encoded = self.engine.encode(fresh)
            ends = [e.visible_end for e in encoded]
            visible = list(dict.fromkeys(t[:end] for t, end in zip(fresh, ends, strict=True)))
            self.engine._visible.clear()
            est = self.backend.estimate(self.frame, self.prompt, visible)
            for k in total:
                total[k] += est[k]
            cost += est["max_cost_usd"]
        total["max_cost_usd"] = round(cost, 4)
        log.info(
            "dry estimate for %s (%s): %s requests to send (%s in the response cache), "
            "%s prompt tokens, at most %s completion tokens, at most $%.4f before retries (a "
            "retried malformed answer is billed again; max_cost_usd also caps the spend the "
            "responses report)",
            self.name, self.variant.name, f"{total['to_send']:,}", f"{total['cached']:,}",
            f"{total['prompt_tokens']:,}", f"{total['max_completion_tokens']:,}",
            total["max_cost_usd"],
        )  # fmt: skip
        self.backend.check_budget(total)
        return total

    def close(self) -> None:
        summary = getattr(self.backend, "summary", None)
        if summary is not None:
            log.info("%s (%s) API usage: %s", self.name, self.variant.name, usage_line(summary()))
        self.engine.cache.close()
        for _, cache in self.engine.companions:
            cache.close()
        self.backend.close()


def fingerprint_of(settings: Mapping[str, Any]) -> str:
    """The prediction cache's key of a run's settings (model, prompt, generation, window)."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()


def _text_hash(text: str) -> str:
    from hinter.edits import text_hash

    return text_hash(text)


# -- the LLM track's mutation window -------------------------------------------------------


def track_setup(
    llms: Sequence[tuple[str, Mapping[str, Any], Sequence[str]]],
    *,
    dataset: str,
    meta_path: str | Path,
    train_path: str | Path,
    cache_dir: str | Path,
    from_hub: bool,
    prompts_dir: str | Path | None = None,
) -> tuple[PromptWindow, list[str]]:
    """The window of a track whose LLMs (name, spec, prompt templates) test ``dataset``, and the
    documents excluded from its mutants (the few-shot examples). Only tokenizers load."""
    meta = io.read_json(meta_path)
    parts = []
    excluded: set[str] = set()
    names = []
    for name, spec, templates in llms:
        key = f"models.llms.{name}"
        backend = build_backend(name, spec, run=1, cache_dir=cache_dir, key=key)
        try:
            for template in templates:
                prompt = load_prompt(
                    dataset, template, meta, train_path, from_hub=from_hub,
                    prompts_dir=prompts_dir, answer_prefix=spec.get("answer_prefix"),
                )  # fmt: skip
                frame = backend.frame(
                    prompt,
                    int(spec.get("context_tokens", 4096)),
                    max_new_tokens(spec, dataset, key),
                    f"{key} on {dataset} ({template})",
                )
                parts.append((backend.doc_tokenizer, frame.budget))
                excluded.update(excluded_documents(prompt.examples))
        finally:
            backend.close()
        names.append(name)
    window = PromptWindow(parts, name="prompt:" + "+".join(names))
    return window, sorted(excluded)


def write_track_windows(
    llms: Sequence[tuple[str, Mapping[str, Any], Sequence[str]]],
    *,
    dataset: str,
    docs_path: str | Path,
    meta_path: str | Path,
    train_path: str | Path,
    out_path: str | Path,
    cache_dir: str | Path,
    from_hub: bool,
    batch_size: int = 256,
    prompts_dir: str | Path | None = None,
) -> int:
    """The WINDOWS table of one shard: each tested document's window end under the track's
    LLMs and prompts, and whether it is a few-shot example. Returns the number of documents."""
    window, excluded = track_setup(
        llms, dataset=dataset, meta_path=meta_path, train_path=train_path,
        cache_dir=cache_dir, from_hub=from_hub, prompts_dir=prompts_dir,
    )  # fmt: skip
    docs = io.read_parquet(docs_path, tables.TESTED_DOCUMENTS, columns=["doc_id", "text"])
    ids, texts = docs.column("doc_id").to_pylist(), docs.column("text").to_pylist()
    ends: list[int | None] = []
    for start in range(0, len(texts), batch_size):
        part = texts[start : start + batch_size]
        usable = [t for t in part if isinstance(t, str)]
        found = iter(window.ends(usable))
        ends.extend(next(found) if isinstance(t, str) else None for t in part)
    table = pa.table(
        {"doc_id": ids, "end": ends, "excluded": [d in set(excluded) for d in ids]},
        schema=tables.WINDOWS,
    )
    schema = tables.WINDOWS.with_metadata(
        {b"hinter": json.dumps({"name": window.name, "max_tokens": window.max_tokens}).encode()}
    )
    io.write_parquet(table.cast(schema), out_path, schema)
    log.info(
        "%s windows of %d documents (%d few-shot examples left out), at most %d tokens",
        window.name, len(ids), sum(d in set(excluded) for d in ids), window.max_tokens,
    )  # fmt: skip
    return len(ids)


class TableWindow:
    """A track window read from its WINDOWS table (no tokenizer needed): ends by text."""

    def __init__(self, ends: Mapping[str, int], name: str, max_tokens: int):
        self._ends = dict(ends)
        self.name = name
        self.max_tokens = max_tokens

    def ends(self, texts: Sequence[str]) -> list[int]:
        from hinter.edits import text_hash

        return [self._ends.get(text_hash(t), len(t)) for t in texts]


def read_track_windows(path: str | Path, docs_path: str | Path) -> tuple[TableWindow, list[str]]:
    """The window and the excluded documents of one shard, for the mutation of every suite."""
    import pyarrow.parquet as pq

    from hinter.edits import text_hash

    windows = io.read_parquet(path, tables.WINDOWS).to_pylist()
    meta = json.loads((pq.read_schema(path).metadata or {}).get(b"hinter", b"{}"))
    docs = io.read_parquet(docs_path, tables.TESTED_DOCUMENTS, columns=["doc_id", "text"])
    text_of = dict(zip(docs.column("doc_id").to_pylist(), docs.column("text").to_pylist(),
                       strict=True))  # fmt: skip
    ends = {}
    for row in windows:
        text = text_of.get(row["doc_id"])
        if isinstance(text, str) and row["end"] is not None:
            ends[text_hash(text)] = row["end"]
    excluded = [row["doc_id"] for row in windows if row["excluded"]]
    window = TableWindow(ends, meta.get("name", "prompt"), int(meta.get("max_tokens", 0)))
    return window, excluded


def usage_line(summary: Mapping[str, Any]) -> str:
    """An API backend's usage (``OpenAIChat.summary``) as one readable line: requests answered
    (sent now, from the response cache), tokens, cost, retries and failures."""

    def count(key: str) -> str:
        return f"{int(summary.get(key) or 0):,}"

    requests, sent = int(summary.get("requests") or 0), int(summary.get("sent") or 0)
    parts = [
        f"{requests:,} requests ({sent:,} sent, {max(requests - sent, 0):,} cached answers)",
        f"{count('prompt_tokens')} prompt and {count('completion_tokens')} completion tokens",
        f"cost ${float(summary.get('cost_usd') or 0):.4f} "
        f"(${float(summary.get('sent_cost_usd') or 0):.4f} sent now)",
        f"{count('retries')} retries, {count('failed')} failed",
    ]
    return "; ".join(parts)
