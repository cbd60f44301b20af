"""The predict stage every model under test shares, and the deduplicating, cached engine base.

:class:`BaseEngine` holds what every backend shares; :class:`hinter.models.encoder.Engine` is
the encoder classifier's (a forward pass gives logits), :class:`hinter.models.llm.LLMEngine` the
prompted LLMs' (a generation gives an answer). :func:`run_predict_stage` writes a shard's
predictions for any :class:`Predictor` (:mod:`hinter.models.predictor` is the registry of
backends).

Inference does one model call per distinct model-visible input (docs/design.md §9):

- originals are predicted once per model and shard and reused by every suite;
- texts are deduplicated by their hash, then by their visible token ids (the tokenised text
  after truncation): two texts that look the same to the model share one model call;
- a mutant whose visible token ids equal its original's is *skipped*: it gets the original's
  prediction and ``status = skipped_identical`` (counted in the log). Status never depends on
  the cache's state, so a rerun writes the same table;
- every output is stored in the persistent :mod:`hinter.models.cache`, so reruns and new
  suites reuse work;
- mutant texts are materialised from their edits chunk by chunk, never all at once.

A mutant whose edits all lie beyond a full window is recognised as identical without
tokenising it, when the tokenizer splits words at whitespace (BERT, byte-level BPE, Metaspace;
:func:`splits_at_whitespace`): the tokens before that whitespace cannot change, and the window
is already full.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hinter import edits as edits_mod
from hinter import io, tables
from hinter.errors import DataError, first_line
from hinter.models.cache import MemoryCache
from hinter.progress import Progress

log = logging.getLogger(__name__)

# Pre-tokenizers that never merge characters across whitespace (see the module docstring).
_WHITESPACE_SPLITTING = {
    "BertPreTokenizer",
    "ByteLevel",
    "Whitespace",
    "WhitespaceSplit",
    "Metaspace",
}


@dataclass
class EngineStats:
    """What an engine did: how much work the deduplication, skipping and cache saved."""

    texts: int = 0  # texts asked for
    unique_texts: int = 0  # distinct texts (by hash)
    cached_texts: int = 0  # distinct texts whose visible ids the cache knew
    shortcut: int = 0  # mutants proved identical to their original without tokenisation
    tokenized: int = 0  # texts tokenised
    unique_inputs: int = 0  # distinct model-visible inputs
    cached_outputs: int = 0  # of those, outputs found in the cache
    forward_texts: int = 0  # inputs run through the model
    forward_batches: int = 0  # model calls
    skipped_identical: int = 0  # mutants identical to their original within the window
    seconds: float = 0.0


@dataclass(frozen=True)
class Encoded:
    """A tokenised text: its visible ids and where its window ends in the text."""

    ids: np.ndarray
    visible_end: int  # character offset just past the last visible non-special token
    full: bool  # the window is full, so text after it is never seen

    @property
    def ids_hash(self) -> str:
        return ids_hash(self.ids)


MAX_PADDING = 0.25  # largest share of a batch row that may be padding


def padded_batches(keys: Sequence[str], lengths: Sequence[int], batch_size: int) -> list[list[str]]:
    """Split length-sorted (longest first) inputs into batches of at most ``batch_size`` whose
    rows are at most ``MAX_PADDING`` padding. Unbounded padding made a CPU batch of mixed
    lengths twice as slow as one text at a time: the model is compute-bound there."""
    batches: list[list[str]] = []
    width = 0
    for key, length in zip(keys, lengths, strict=True):
        if not batches or len(batches[-1]) >= batch_size or length < width * (1 - MAX_PADDING):
            batches.append([])
            width = length
        batches[-1].append(key)
    return batches


def ids_hash(ids: np.ndarray) -> str:
    return hashlib.blake2b(np.asarray(ids, dtype="<i4").tobytes(), digest_size=16).hexdigest()


class BaseEngine:
    """Deduplicated, cached model calls (see the module docstring); a backend subclasses it
    with :meth:`encode` (texts to their model-visible ids) and :meth:`forward` (distinct
    inputs to outputs: logits, generations)."""

    def __init__(
        self,
        cache: MemoryCache,
        batch_size: int = 32,
        progress: Any = None,
        shortcut_safe: bool = False,
    ):
        self.cache = cache
        self.batch_size = batch_size
        self.progress = progress  # a tqdm bar advanced per model-run input, or None
        self.stats = EngineStats()
        self.shortcut_safe = shortcut_safe

    def encode(self, texts: Sequence[str]) -> list[Encoded]:
        raise NotImplementedError

    def forward(self, sequences: Mapping[str, np.ndarray]) -> dict[str, Any]:
        raise NotImplementedError

    def cacheable(self, outputs: Mapping[str, Any]) -> Mapping[str, Any]:
        """The outputs worth keeping (a backend may leave out failures, to retry them)."""
        return outputs

    def store(self, texts: Mapping[str, str], outputs: Mapping[str, Any]) -> None:
        """Keep what one :meth:`resolve` learnt: text hash -> ids hash, ids hash -> output."""
        self.cache.put(texts, self.cacheable(outputs))

    def beyond_window(self, original: str, enc: Encoded, mutant_edits: Sequence) -> bool:
        """Whether every edit lies past a full window that ends at a word boundary."""
        if not (self.shortcut_safe and enc.full and mutant_edits):
            return False
        end = enc.visible_end
        if not 0 < end < len(original):
            return False
        if not original[end].isspace() or original[end - 1].isspace():
            return False
        return min(e.start for e in mutant_edits) > end

    # -- texts to outputs --------------------------------------------------------------------
    def resolve(
        self,
        texts: Sequence[str],
        encoded: Mapping[int, Encoded] | None = None,
        known_ids: Mapping[int, str] | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """Each text's visible-ids hash, and the output of every such hash.

        ``encoded`` passes tokenisations the caller already has (by position), ``known_ids``
        ids hashes it has proved (the window shortcut); the rest come from the cache or the
        tokenizer, and only inputs the cache lacks go through the model.
        """
        started = time.perf_counter()
        encoded = dict(encoded or {})
        known_ids = dict(known_ids or {})
        hashes = [edits_mod.text_hash(t) for t in texts]
        first: dict[str, int] = {}
        for i, h in enumerate(hashes):
            first.setdefault(h, i)
        self.stats.texts += len(texts)
        self.stats.unique_texts += len(first)

        ids_of = self.cache.get_ids(first)
        self.stats.cached_texts += len(ids_of)
        new_texts: dict[str, str] = {}
        sequences: dict[str, np.ndarray] = {}
        to_encode = []
        for h, i in first.items():
            if h in ids_of:
                continue
            if i in known_ids:
                ids_of[h] = new_texts[h] = known_ids[i]
                self.stats.shortcut += 1
            elif i in encoded:
                ids_of[h] = new_texts[h] = encoded[i].ids_hash
                sequences[ids_of[h]] = encoded[i].ids
            else:
                to_encode.append(h)
        for h, enc in zip(
            to_encode, self.encode([texts[first[h]] for h in to_encode]), strict=True
        ):
            ids_of[h] = new_texts[h] = enc.ids_hash
            sequences[enc.ids_hash] = enc.ids

        wanted = set(ids_of.values())
        outputs = self.cache.get_logits(wanted)
        self.stats.unique_inputs += len(wanted)
        self.stats.cached_outputs += len(outputs)
        missing = wanted - outputs.keys()
        # Inputs known only by hash (from the cache's text table) but without stored outputs.
        unsequenced = [h for h, ih in ids_of.items() if ih in missing and ih not in sequences]
        for h, enc in zip(
            unsequenced, self.encode([texts[first[h]] for h in unsequenced]), strict=True
        ):
            if enc.ids_hash != ids_of[h]:
                where = getattr(self.cache, "path", "the prediction cache")
                raise DataError(f"{where}: a stale entry for text {h}; delete the cache file")
            sequences.setdefault(enc.ids_hash, enc.ids)
        new_outputs = self.forward({h: sequences[h] for h in sorted(missing)}) if missing else {}
        outputs.update(new_outputs)
        self.store(new_texts, new_outputs)
        self.stats.seconds += time.perf_counter() - started
        return [ids_of[h] for h in hashes], outputs


def splits_at_whitespace(tokenizer) -> bool:
    """Whether the tokenizer's pre-tokenizer always ends a word at whitespace."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    pre = getattr(backend, "pre_tokenizer", None)
    if pre is None:
        return False
    names = [type(p).__name__ for p in getattr(pre, "pre_tokenizers", None) or [pre]]
    return all(name in _WHITESPACE_SPLITTING for name in names)


# -- mutants to predict --------------------------------------------------------------------


@dataclass(frozen=True)
class MutantRow:
    mutant_id: str
    doc_id: str
    edits: list
    source: str  # the mutants file it was read from (for error messages)


_MUTANT_COLUMNS = pa.schema([tables.MUTANTS.field(n) for n in ("mutant_id", "doc_id", "edits")])


def iter_mutants(
    mutants_paths: Sequence[str | Path],
    validity_paths: Sequence[str | Path],
    keep_discarded: bool,
    chunk_size: int,
) -> Iterator[list[MutantRow]]:
    """Chunks of the mutants to predict: valid ones (and discarded ones when kept), each once.

    Suite files are read batch by batch; a mutant present in several suites (atomic parents
    carried by intersectional suites) is yielded the first time it is seen.
    """
    if len(mutants_paths) != len(validity_paths):
        raise DataError(
            f"{len(mutants_paths)} mutants files but {len(validity_paths)} validity files"
        )
    seen: set[str] = set()
    chunk: list[MutantRow] = []
    for m_path, v_path in zip(mutants_paths, validity_paths, strict=True):
        validity = io.read_parquet(v_path, tables.VALIDITY, columns=["mutant_id", "valid"])
        verdict = dict(
            zip(
                validity.column("mutant_id").to_pylist(),
                validity.column("valid").to_pylist(),
                strict=True,
            )
        )
        for batch in _parquet_batches(m_path, chunk_size):
            for mid, doc_id, row_edits in zip(
                batch.column("mutant_id").to_pylist(),
                batch.column("doc_id").to_pylist(),
                batch.column("edits").to_pylist(),
                strict=True,
            ):
                if mid in seen:
                    continue
                if mid not in verdict:
                    raise DataError(f"{v_path}: no validity row for mutant {mid} of {m_path}")
                valid = verdict[mid]
                if valid is None:
                    raise DataError(f"{v_path}: mutant {mid} has no validity verdict")
                seen.add(mid)
                if valid or keep_discarded:
                    chunk.append(MutantRow(mid, doc_id, row_edits or [], str(m_path)))
                if len(chunk) >= chunk_size:
                    yield chunk
                    chunk = []
    if chunk:
        yield chunk


def _parquet_batches(path: str | Path, batch_size: int) -> Iterator[pa.Table]:
    return io.iter_batches(path, schema=_MUTANT_COLUMNS, batch_size=batch_size)


def count_rows(paths: Sequence[str | Path]) -> int:
    """Rows in Parquet files, from their footers (an upper bound on mutants to predict)."""
    total = 0
    for path in paths:
        # An unreadable file is reported with a proper message when it is read.
        with contextlib.suppress(pa.ArrowInvalid, OSError):
            total += pq.ParquetFile(path).metadata.num_rows
    return total


# -- the predict stage, for every backend -----------------------------------------------------


class Predictor(Protocol):
    """A model under test, ready to predict one dataset (see :mod:`hinter.models.predictor`)."""

    engine: BaseEngine
    # What the predictions file records about how they were made (generation settings, ...).
    metadata: Mapping[str, Any]
    # Documents this model must not be tested on (an LLM's few-shot examples) and the
    # tested-order cap of its track (None = all): their originals are not predicted.
    excluded: frozenset[str]
    max_documents: int | None

    def rows(
        self,
        text_ids: Sequence[str],
        kind: str,
        keys: Sequence[str],
        outputs: Mapping[str, Any],
        statuses: Sequence[str],
    ) -> pa.Table: ...

    def close(self) -> None: ...

    # Optional: ``prepare(chunks of texts)`` is called with every text to predict before any
    # model call (a paid API's dry cost estimate).


METADATA_KEY = b"hinter"


def predictions_metadata(path: str | Path) -> dict[str, Any]:
    """What a predictions file records about how it was made (its Parquet metadata)."""
    try:
        meta = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: not a readable Parquet file ({first_line(exc)})") from None
    return json.loads(meta[METADATA_KEY]) if METADATA_KEY in meta else {}


def tested_originals(
    docs_path: str | Path, excluded: frozenset[str] = frozenset(), max_documents: int | None = None
) -> tuple[list[str], list[str], int]:
    """The shard's documents a model is tested on: (ids, texts, number left out)."""
    docs = io.read_parquet(
        docs_path, tables.TESTED_DOCUMENTS, columns=["doc_id", "text", "position"]
    )
    doc_ids, texts, left_out = [], [], 0
    for doc_id, text, position in zip(
        docs.column("doc_id").to_pylist(),
        docs.column("text").to_pylist(),
        docs.column("position").to_pylist(),
        strict=True,
    ):
        if doc_id in excluded or (
            max_documents is not None and (position is None or position >= max_documents)
        ):
            left_out += 1
            continue
        if text is None:
            raise DataError(f"{docs_path}: document {doc_id} has no text")
        doc_ids.append(doc_id)
        texts.append(text)
    return doc_ids, texts, left_out


def run_predict_stage(
    predictor: Predictor,
    *,
    docs_path: str | Path,
    mutants_paths: Sequence[str | Path],
    validity_paths: Sequence[str | Path],
    out_path: str | Path,
    keep_discarded: bool,
    chunk_size: int = 4096,
    progress: bool | None = None,
) -> EngineStats:
    """Write the PREDICTIONS table of one shard: its originals, then its mutants."""
    engine = predictor.engine
    doc_ids, texts, left_out = tested_originals(
        docs_path, predictor.excluded, predictor.max_documents
    )
    total = len(doc_ids) + count_rows(mutants_paths)
    # A bar on a terminal, else a line every few seconds (hinter.progress); False: silent.
    bar = Progress("predict", total, "texts", enabled=progress is not False)
    metadata = json.dumps(dict(predictor.metadata), sort_keys=True, ensure_ascii=False)
    schema = tables.PREDICTIONS.with_metadata({METADATA_KEY: metadata.encode()})
    try:
        prepare = getattr(predictor, "prepare", None)
        if prepare is not None:
            doc_texts = dict(zip(doc_ids, texts, strict=True))
            mutants = iter_mutants(mutants_paths, validity_paths, keep_discarded, chunk_size)
            prepare(itertools.chain([texts], mutant_texts(doc_texts, mutants)))
        with io.ParquetStreamWriter(out_path, schema) as writer:
            encoded = engine.encode(texts)
            keys, outputs = engine.resolve(texts, encoded=dict(enumerate(encoded)))
            original = {
                d: (text, enc, key)
                for d, text, enc, key in zip(doc_ids, texts, encoded, keys, strict=True)
            }
            writer.write(predictor.rows(doc_ids, "original", keys, outputs, ["ok"] * len(keys)))
            bar.update(len(doc_ids))
            for chunk in iter_mutants(mutants_paths, validity_paths, keep_discarded, chunk_size):
                writer.write(_predict_mutants(predictor, chunk, original))
                bar.update(len(chunk))
    finally:
        bar.close()
        predictor.close()
    log.info(
        "predictions -> %s (%d documents left out of this model's test): %s",
        out_path, left_out, asdict(engine.stats),
    )  # fmt: skip
    return engine.stats


def mutant_texts(
    doc_texts: Mapping[str, str], chunks: Iterable[Sequence[MutantRow]]
) -> Iterator[list[str]]:
    """The texts of chunks of mutants, materialised from their edits chunk by chunk."""
    for chunk in chunks:
        texts = []
        for row in chunk:
            doc_text = doc_texts.get(row.doc_id)
            if doc_text is None:
                raise DataError(
                    f"{row.source}: mutant {row.mutant_id} of unknown document {row.doc_id}"
                )
            try:
                texts.append(
                    edits_mod.apply_edits(doc_text, edits_mod.normalise(row.edits, len(doc_text)))
                )
            except ValueError as exc:
                raise DataError(f"{row.source}: mutant {row.mutant_id}: {exc}") from None
        yield texts


def _predict_mutants(predictor: Predictor, chunk: list[MutantRow], original: Mapping) -> pa.Table:
    engine = predictor.engine
    texts, known, heads = [], {}, {}
    # Only the encoder engine tokenises long texts by their beginning (encoder.Engine.encode).
    limit = getattr(engine, "prefix_chars", 0)
    for i, row in enumerate(chunk):
        if row.doc_id not in original:
            raise DataError(
                f"{row.source}: mutant {row.mutant_id} of unknown document {row.doc_id}"
            )
        doc_text, enc, key = original[row.doc_id]
        try:
            row_edits = edits_mod.normalise(row.edits, len(doc_text))
        except ValueError as exc:
            raise DataError(f"{row.source}: mutant {row.mutant_id}: {exc}") from None
        if engine.beyond_window(doc_text, enc, row_edits):
            known[i] = key
        cut = max((e.end for e in row_edits), default=0) + limit
        if limit and engine.shortcut_safe and cut < len(doc_text):
            # A long document: only the mutant's beginning is made (bounded memory); it
            # stands for the whole text when it decides the window (checked below).
            texts.append(edits_mod.apply_edits(doc_text[:cut], row_edits))
            if i not in known:
                heads[i] = (doc_text, row_edits)
        else:
            texts.append(edits_mod.apply_edits(doc_text, row_edits))
    encoded = {}
    pending = list(heads)
    for i, enc in zip(pending, engine.encode([texts[i] for i in pending]), strict=True):
        if engine.decided(texts[i], enc):
            encoded[i] = enc
        else:  # the window reaches past the beginning: the whole text after all
            texts[i] = edits_mod.apply_edits(*heads[i])
    keys, outputs = engine.resolve(texts, encoded=encoded, known_ids=known)
    statuses = []
    for row, key in zip(chunk, keys, strict=True):
        same = key == original[row.doc_id][2]
        statuses.append("skipped_identical" if same else "ok")
        engine.stats.skipped_identical += same
    return predictor.rows([r.mutant_id for r in chunk], "mutant", keys, outputs, statuses)
