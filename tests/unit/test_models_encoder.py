"""The encoder engine through the predict stage: batching, deduplication, cache, skipping."""

from __future__ import annotations

import random
import re

import numpy as np
import pyarrow as pa
import pytest
import torch
from model_dirs import MAX_LENGTH, ForwardCounter, make_model_dir, single_thread, text_of  # noqa: F401 (a fixture)

from hinter import edits, io, tables
from hinter.errors import DataError
from hinter.models.cache import MemoryCache, PredictionCache
from hinter.models.encoder import Engine, predict_shard
from hinter.models.loading import load_classifier

pytestmark = pytest.mark.usefixtures("single_thread")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_model_dir(tmp_path_factory.mktemp("model") / "model")


@pytest.fixture()
def classifier(model_dir):
    return load_classifier(model_dir, n_labels=3, task_type="multi_label")


def test_batched_logits_equal_one_by_one(classifier):
    rng = random.Random(3)
    texts = [text_of(rng, rng.randrange(2, 40)) for _ in range(13)]
    engine = Engine(classifier, batch_size=4)
    batched = engine.predict(texts)
    for text, row in zip(texts, batched, strict=True):
        enc = classifier.tokenizer(
            text, truncation=True, max_length=MAX_LENGTH, return_tensors="pt"
        )
        with torch.inference_mode():
            single = classifier.model(
                input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]
            ).logits[0]
        np.testing.assert_allclose(row, single.numpy(), atol=1e-5)
    assert len({tuple(np.round(r, 4)) for r in batched}) > 1  # the model does tell texts apart


def test_duplicates_share_one_forward_pass(classifier):
    counter = ForwardCounter(classifier.model)
    engine = Engine(classifier, batch_size=2)
    texts = ["A man held it.", "A woman held it.", "A man held it.", "A man held it."]
    out = engine.predict(texts)
    assert engine.stats.forward_texts == 2 and counter.calls == 1
    np.testing.assert_array_equal(out[0], out[2])
    # Texts differing only in case look the same to an uncased tokenizer: one input.
    engine.predict(["A MAN HELD IT."])
    assert engine.stats.forward_texts == 2 and engine.stats.unique_inputs == 3


def test_second_run_does_no_forward_pass(classifier, tmp_path):
    rng = random.Random(5)
    texts = [text_of(rng, rng.randrange(3, 30)) for _ in range(20)]
    first = Engine(classifier, PredictionCache(tmp_path, classifier.fingerprint, 3), batch_size=8)
    expected = first.predict(texts)
    first.cache.close()
    counter = ForwardCounter(classifier.model)
    second = Engine(classifier, PredictionCache(tmp_path, classifier.fingerprint, 3), batch_size=8)
    again = second.predict(texts + texts[:3])
    assert counter.calls == 0 and second.stats.forward_texts == 0
    assert second.stats.tokenized == 0  # the cache maps each text to its visible ids
    np.testing.assert_array_equal(again[:20], expected)
    # A new text (a new suite, say) is the only one computed.
    second.predict([*texts, "An entirely new text."])
    assert second.stats.forward_texts == 1 and counter.calls == 1


def test_cache_refuses_another_model(classifier, tmp_path):
    PredictionCache(tmp_path, classifier.fingerprint, 3).close()
    with pytest.raises(DataError, match="another model"):
        PredictionCache(tmp_path, classifier.fingerprint, 4)


def test_cache_concurrent_writers(tmp_path):
    a = PredictionCache(tmp_path, "f" * 64, 2)
    b = PredictionCache(tmp_path, "f" * 64, 2)
    a.put({"t1": "i1"}, {"i1": np.array([1.0, 2.0])})
    b.put({"t1": "i1", "t2": "i2"}, {"i1": np.array([9.0, 9.0]), "i2": np.array([3.0, 4.0])})
    # The first writer wins; both see every entry.
    np.testing.assert_array_equal(b.get_logits(["i1"])["i1"], [1.0, 2.0])
    assert a.get_ids(["t1", "t2", "t3"]) == {"t1": "i1", "t2": "i2"}


def test_fingerprint_follows_weights_and_dtype(model_dir, tmp_path):
    base = load_classifier(model_dir, dtype="float32")
    assert load_classifier(model_dir, dtype="float32").fingerprint == base.fingerprint
    assert load_classifier(model_dir, dtype="bfloat16").fingerprint != base.fingerprint
    other = make_model_dir(tmp_path / "other")
    from safetensors.torch import load_file, save_file

    weights = load_file(other / "model.safetensors")
    weights["classifier.bias"] = weights["classifier.bias"] + 1
    save_file(weights, other / "model.safetensors", metadata={"format": "pt"})
    assert load_classifier(other, dtype="float32").fingerprint != base.fingerprint


@pytest.mark.parametrize(
    ("arch", "tokenizer"), [("bert", "demo-wordpiece"), ("roberta", "demo-bpe")]
)
def test_window_shortcut_agrees_with_the_tokenizer(tmp_path, arch, tokenizer):
    clf = load_classifier(make_model_dir(tmp_path / arch, arch, tokenizer))
    engine = Engine(clf)
    rng = random.Random(11)
    proved = 0
    for _ in range(60):
        text = text_of(rng, rng.randrange(10, 60))
        enc = engine.encode([text])[0]
        words = [m for m in re.finditer(r"\w+", text)]
        # Half the time, edit only the last third of the words (past a full window, mostly).
        pool = words[2 * len(words) // 3 :] if rng.random() < 0.5 else words
        picked = rng.sample(pool, k=min(2, len(pool)))
        mutant_edits = [
            edits.Edit(m.start(), m.end(), rng.choice(["woman", "Jamaican nuns", "x"]))
            for m in sorted(picked, key=lambda m: m.start())
        ]
        mutant = edits.apply_edits(text, mutant_edits)
        same = engine.encode([mutant])[0].ids_hash == enc.ids_hash
        if engine.beyond_window(text, enc, mutant_edits):
            proved += 1
            assert same, (text, mutant)
    assert proved > 5  # the shortcut does fire on long texts


def _docs_table(texts):
    rows = [
        {"doc_id": f"d{i}", "split": "test", "position": i, "text": t, "labels": [0]}
        for i, t in enumerate(texts)
    ]
    return pa.Table.from_pylist(rows, schema=tables.TESTED_DOCUMENTS)


def _mutant(doc_id, text, pairs, role="mutant", parents=()):
    es = []
    for source, target in pairs:
        m = re.search(rf"\b{source}\b", text)
        es.append(edits.Edit(m.start(), m.end(), target))
    return {
        "mutant_id": edits.mutant_id(doc_id, es),
        "doc_id": doc_id,
        "order": len(pairs),
        "role": role,
        "attributes": ["a"] * len(pairs),
        "pair_ids": ["p"] * len(pairs),
        "edits": [e.as_dict() for e in es],
        "parent_ids": list(parents),
    }


@pytest.fixture()
def shard(tmp_path):
    """Two documents, an atomic and an intersectional suite sharing parent mutants."""
    long_tail = " ".join(["the court held that"] * 12) + " the man left."
    texts = ["The man saw the black judge. He left.", "A tall woman stayed at home.", long_tail]
    io.write_parquet(_docs_table(texts), tmp_path / "docs.parquet", tables.TESTED_DOCUMENTS)
    a1 = _mutant("d0", texts[0], [("man", "woman")])
    a2 = _mutant("d0", texts[0], [("black", "white")])
    a3 = _mutant("d1", texts[1], [("tall", "short")])
    beyond = _mutant("d2", texts[2], [("man", "woman")])  # past the 24-token window
    noop = _mutant("d1", texts[1], [("woman", "woman")])  # the same text
    inter = _mutant(
        "d0",
        texts[0],
        [("man", "woman"), ("black", "white")],
        parents=[a1["mutant_id"], a2["mutant_id"]],
    )
    atomic = [a1, a2, a3, beyond, noop]
    inter_rows = [inter, {**a1, "role": "parent"}, {**a2, "role": "parent"}]
    valid = {m["mutant_id"]: True for m in atomic + inter_rows}
    valid[a3["mutant_id"]] = False  # discarded by the invariant
    paths = {}
    for name, rows in (("atomic", atomic), ("inter", inter_rows)):
        io.write_parquet(
            pa.Table.from_pylist(rows, schema=tables.MUTANTS),
            tmp_path / f"m-{name}.parquet",
            tables.MUTANTS,
        )
        vrows = [
            {
                "mutant_id": r["mutant_id"],
                "valid": valid[r["mutant_id"]],
                "reason": "ok",
                "sentence_index": None,
            }
            for r in rows
        ]
        io.write_parquet(
            pa.Table.from_pylist(vrows, schema=tables.VALIDITY),
            tmp_path / f"v-{name}.parquet",
            tables.VALIDITY,
        )
        paths[name] = (tmp_path / f"m-{name}.parquet", tmp_path / f"v-{name}.parquet")
    io.write_json(
        tmp_path / "meta.json", {"dataset": "ecthr_a", "task_type": "multi_label", "n_labels": 3}
    )
    ids = {"a1": a1, "a2": a2, "a3": a3, "beyond": beyond, "noop": noop, "inter": inter}
    return tmp_path, paths, {k: v["mutant_id"] for k, v in ids.items()}


def _predict(model_dir, tmp_path, paths, out, keep_discarded=False, cache=True, meta="meta.json"):
    return predict_shard(
        model_dir=model_dir,
        docs_path=tmp_path / "docs.parquet",
        mutants_paths=[p[0] for p in paths],
        validity_paths=[p[1] for p in paths],
        meta_path=tmp_path / meta,
        out_path=tmp_path / out,
        inference={"batch_size": 2, "dtype": "auto", "chunk_size": 2, "cache": cache},
        keep_discarded=keep_discarded,
        cache_dir=tmp_path / "cache",
        progress=False,
    )


def test_predict_shard(model_dir, shard):
    tmp_path, paths, ids = shard
    stats = _predict(model_dir, tmp_path, [paths["atomic"], paths["inter"]], "pred.parquet")
    table = io.read_parquet(tmp_path / "pred.parquet", tables.PREDICTIONS).to_pylist()
    by_id = {r["text_id"]: r for r in table}
    assert [r["text_id"] for r in table[:3]] == ["d0", "d1", "d2"]
    assert all(r["kind"] == "original" for r in table[:3])
    # Each mutant once (parents repeated in the intersectional suite), the discarded one left out.
    assert sorted(r["text_id"] for r in table[3:]) == sorted(
        [ids["a1"], ids["a2"], ids["beyond"], ids["noop"], ids["inter"]]
    )
    assert by_id[ids["beyond"]]["status"] == "skipped_identical"
    assert by_id[ids["noop"]]["status"] == "skipped_identical"
    assert by_id[ids["a1"]]["status"] == "ok"
    for key, doc in (("beyond", "d2"), ("noop", "d1")):
        for column in ("labels", "scores", "confidence"):
            assert by_id[ids[key]][column] == by_id[doc][column]
    assert stats.skipped_identical == 2 and stats.shortcut == 1
    assert all(len(r["scores"]) == 3 for r in table)


def test_predict_shard_keeps_discarded_on_request(model_dir, shard):
    tmp_path, paths, ids = shard
    _predict(
        model_dir, tmp_path, [paths["atomic"], paths["inter"]], "p.parquet", keep_discarded=True
    )
    text_ids = io.read_parquet(tmp_path / "p.parquet").column("text_id").to_pylist()
    assert ids["a3"] in text_ids and len(text_ids) == 3 + 6


def test_rerun_is_byte_identical_and_uses_the_cache(model_dir, shard):
    tmp_path, paths, _ = shard
    suites = [paths["atomic"], paths["inter"]]
    _predict(model_dir, tmp_path, suites, "first.parquet")
    stats = _predict(model_dir, tmp_path, suites, "second.parquet")
    assert stats.forward_texts == 0
    assert (tmp_path / "first.parquet").read_bytes() == (tmp_path / "second.parquet").read_bytes()
    _predict(model_dir, tmp_path, suites, "nocache.parquet", cache=False)
    assert (tmp_path / "first.parquet").read_bytes() == (tmp_path / "nocache.parquet").read_bytes()


def test_predict_without_suites_writes_originals(model_dir, shard):
    tmp_path, _, _ = shard
    _predict(model_dir, tmp_path, [], "orig.parquet")
    table = io.read_parquet(tmp_path / "orig.parquet", tables.PREDICTIONS)
    assert table.column("kind").to_pylist() == ["original"] * 3


def test_predict_errors_leave_no_output(model_dir, shard):
    tmp_path, paths, _ = shard
    m_path, v_path = paths["atomic"]
    # A validity file that lacks a mutant.
    validity = io.read_parquet(v_path).slice(1)
    io.write_parquet(validity, tmp_path / "v-short.parquet", tables.VALIDITY)
    with pytest.raises(DataError, match="no validity row"):
        _predict(model_dir, tmp_path, [(m_path, tmp_path / "v-short.parquet")], "bad.parquet")
    assert not (tmp_path / "bad.parquet").exists()
    # A mutant of a document outside the shard, and an edit beyond the text.
    rows = io.read_parquet(m_path).to_pylist()
    rows[0]["doc_id"] = "elsewhere"
    rows[1]["edits"] = [{"start": 500, "end": 501, "replacement": "x"}]
    for bad, message in ((rows[:1], "unknown document"), (rows[1:2], "beyond the end")):
        io.write_parquet(
            pa.Table.from_pylist(bad, schema=tables.MUTANTS), tmp_path / "m-bad.parquet"
        )
        with pytest.raises(DataError, match=message):
            _predict(model_dir, tmp_path, [(tmp_path / "m-bad.parquet", v_path)], "bad.parquet")
        assert not (tmp_path / "bad.parquet").exists()
    # The dataset's label count disagrees with the model's.
    io.write_json(
        tmp_path / "meta5.json", {"dataset": "x", "task_type": "multi_label", "n_labels": 5}
    )
    with pytest.raises(DataError, match="predicts 3 labels, but dataset x has 5"):
        _predict(model_dir, tmp_path, [], "bad.parquet", meta="meta5.json")


def test_memory_cache_interface():
    cache = MemoryCache(2)
    cache.put({"t": "i"}, {"i": np.array([1.0, 2.0])})
    assert cache.get_ids(["t", "u"]) == {"t": "i"}
    np.testing.assert_array_equal(cache.get_logits(["i"])["i"], [1.0, 2.0])


def test_known_text_without_stored_output_is_recomputed(classifier):
    engine = Engine(classifier)
    text = "The judge met the applicant."
    enc = engine.encode([text])[0]
    cache = MemoryCache(3)
    cache.put({edits.text_hash(text): enc.ids_hash}, {})  # a mapping whose output was lost
    fresh = Engine(classifier, cache)
    np.testing.assert_allclose(fresh.predict([text]), engine.predict([text]), atol=1e-6)
    assert fresh.stats.cached_texts == 1 and fresh.stats.forward_texts == 1
    stale = MemoryCache(3)
    stale.put({edits.text_hash(text): "0" * 32}, {})
    with pytest.raises(DataError, match="stale entry"):
        Engine(classifier, stale).predict([text])
