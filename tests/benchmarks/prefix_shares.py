"""How much of Llama 2's mutant prompts the chat engine can take from a shared document head
(issue 33): the bound of head reuse, measured on the real samples in ../shared/real.

A mutant's prompt is the few-shot prefix (computed once already), its visible document and the
question. Every token before its first edit is the original's too. For each dataset and order
(atomic = race, gender, body; pairs = their three pairs; triple = race+gender+body, IMDB only as
in the paper config), over the mutants the LLM would compute (identical to their original within
the window, or to another mutant, left out as the engine skips them), token-weighted:

- ``before edit``: the share of the prompt tokens after the few-shot prefix that precede the
  mutant's first differing token (its common prefix with the original);
- ``engine``: the share the chat engine still computes with its plan
  (:func:`hinter.models.prefix_plan.shared_heads` over one document's mutants; its heads once,
  the rest per mutant) — what ``hinter estimate`` folds in;
- ``tree``: the share a full prefix tree would compute (every distinct prefix once, the original's
  cache kept): the bound no plan beats;
- the same two on a random sample of the mutants at the paper's valid share (the LLMs compute
  valid mutants only; as ``hinter estimate`` counts it: 002 Table 5's rate per order for IMDB,
  12.52 / 1.40 / 0.54%, the pooled 2.42% elsewhere), what a run of the paper config computes.

The project's own code throughout: mutation (``mutate_shard``, the published dictionary), Llama
2's real tokenizer (``tests/support/llama2_tokenizer.py``), the run's prompt frames
(``document_budget``: the paper's IMDB examples; for LexGLUE the first triple of real records
stands in, as in ``llama2_budgets.py``) and its document truncation. Documents are a seeded sample
per order (every mutant of each sampled document, so the plan sees whole documents).

    PYTHONPATH=src python tests/benchmarks/prefix_shares.py            # Markdown table
    PYTHONPATH=src python tests/benchmarks/prefix_shares.py --json     # figures as JSON
    PYTHONPATH=src python tests/benchmarks/prefix_shares.py --smoke    # a few documents
    PYTHONPATH=src python tests/benchmarks/prefix_shares.py --by-document   # one plan per document?
    ... --real /work/shared/real      # from a worktree whose ../shared is elsewhere
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import llama2_budgets as budgets  # noqa: E402  (puts the repository root on sys.path)
import measure_costs as costs  # noqa: E402  (puts tests/support on sys.path)
import real_corpora as rc  # noqa: E402

from hinter import estimate  # noqa: E402
from hinter import estimate_stages as stages  # noqa: E402
from hinter.models.budget import document_budget  # noqa: E402
from hinter.models.context import HFDocTokenizer  # noqa: E402
from hinter.models.prefix_plan import (  # noqa: E402
    common_length,
    computed_tokens,
    shared_heads,
    trie_tokens,
)
from hinter.mutation import Options, mutant_texts, mutate_shard  # noqa: E402
from tests.support.llama2_tokenizer import load_llama2_tokenizer  # noqa: E402

DATASETS = ("imdb", "ledgar", "ecthr_a", "scotus", "eurlex")
SUITES = {
    "atomic": [("race",), ("gender",), ("body",)],
    "pairs": [("race", "gender"), ("race", "body"), ("gender", "body")],
    "triple": [("race", "gender", "body")],
}
TRIPLE_DATASETS = ("imdb",)  # config/config.yaml's higher_orders
# documents sampled per order (a dataset with fewer uses all): the pair and triple suites of a
# review hold hundreds to thousands of mutants each
DOCUMENTS = {"atomic": 200, "pairs": 40, "triple": 40}
SMOKE_DOCUMENTS = {"atomic": 10, "pairs": 3, "triple": 1}
# orders whose documents hold thousands of mutants each: the valid sample is drawn before
# tokenising (memory and time), and only its figures are reported
VALID_FIRST = ("triple",)
DRAWS = 20  # valid samples drawn from the mutants of the other orders
SEED = 33


def frame_of(tok, dataset: str):
    """The Llama 2 prompt frame of a dataset (paper config: 4,096 tokens, its answer budget)."""
    examples = budgets.imdb_texts() if dataset == "imdb" else budgets.lexglue_texts(dataset)[:3]
    return document_budget(
        tok, dataset, examples, context_tokens=4096,
        max_new_tokens=estimate.ANSWER_TOKENS[dataset],
    )  # fmt: skip


class Sample:
    """A seeded sample of a dataset's real documents under Llama 2's frame: their file, their
    prompts after the few-shot prefix (document and question), and the sample's generator."""

    def __init__(self, dataset: str, tag: str, n_docs: int, tok, tmp: Path):
        self.frame = frame_of(tok, dataset)
        self.doc_tok = HFDocTokenizer(tok, "llama2")
        self.suffix = np.asarray(self.frame.suffix_ids, dtype=np.int32)
        texts = rc.texts(dataset, budgets.REAL)
        self.rng = random.Random(f"{SEED}-{dataset}-{tag}")
        self.texts = self.rng.sample(texts, min(n_docs, len(texts)))
        self.path = costs._write_docs(self.texts, tmp / f"{dataset}-{tag}.parquet", dataset)
        self.originals = self.prompts(self.texts)

    def prompts(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's visible document ids and the question, as the engine reads them."""
        return [
            np.concatenate([np.asarray(e.ids, dtype=np.int32), self.suffix])
            for e in self.doc_tok.documents(texts, self.frame.budget)
        ]


def measure(dataset: str, order: str, n_docs: int, tok, tmp: Path, pairs: Path) -> dict:
    sample = Sample(dataset, order, n_docs, tok, tmp)
    frame, texts, docs_path, rng = sample.frame, sample.texts, sample.path, sample.rng
    originals = sample.originals
    keep = valid_share(dataset, order)
    by_doc: dict[int, list[np.ndarray]] = defaultdict(list)
    for attributes in SUITES[order]:
        out = tmp / "m.parquet"
        mutate_shard(docs_path, pairs, out, tmp / "m.json", attributes=attributes, window=None,
                     options=Options())  # fmt: skip
        rows = mutant_texts(out, docs_path)
        if order in VALID_FIRST:  # too many to tokenise: the valid sample only
            rows = [(row, text) for row, text in rows if rng.random() < keep]
        else:
            rows = list(rows)
        for (row, _), prompt in zip(rows, sample.prompts([t for _, t in rows]), strict=True):
            by_doc[int(row["doc_id"][1:])].append(prompt)
    total = before = engine = tree = mutants = 0
    v_total = v_engine = v_tree = v_mutants = 0
    for d, seqs in by_doc.items():
        original = originals[d]
        distinct = {s.tobytes(): s for s in seqs if not np.array_equal(s, original)}
        seqs = list(distinct.values())
        if not seqs:
            continue
        mutants += len(seqs)
        total += sum(len(s) for s in seqs)
        before += sum(common_length(s, original) for s in seqs)
        engine += computed_tokens(seqs, shared_heads(seqs))
        tree += trie_tokens([original, *seqs]) - len(original)
        # the LLMs compute the valid mutants only: the paper's valid share, drawn at random
        # (DRAWS times, summed: the expected share, not one draw's luck)
        for _ in range(1 if order in VALID_FIRST else DRAWS):
            valid = seqs if order in VALID_FIRST else [s for s in seqs if rng.random() < keep]
            v_mutants += len(valid)
            v_total += sum(len(s) for s in valid)
            v_engine += computed_tokens(valid, shared_heads(valid))
            v_tree += trie_tokens([original, *valid]) - len(original)
    share = lambda part, whole: round(part / whole, 4) if whole else None  # noqa: E731
    if order in VALID_FIRST:  # every mutant was never there: no all-mutant figures
        total = 0
    return {
        "documents": len(texts),
        "mutants": mutants if total else None,
        "mutants_per_document": round(mutants / len(texts), 1) if total else None,
        "tokens_per_mutant": round(total / mutants, 1) if total else None,
        "before_edit": share(before, total),
        "engine_computed": share(engine, total),
        "tree_computed": share(tree, total),
        "valid_mutants": v_mutants if order in VALID_FIRST else round(v_mutants / DRAWS, 1),
        "valid_engine_computed": share(v_engine, v_total),
        "valid_tree_computed": share(v_tree, v_total),
        "budget": frame.budget,
    }


DOCUMENT_DRAWS = 10
ORDER = {"atomic": 1, "pairs": 2, "triple": 3}


def valid_share(dataset: str, order: str) -> float:
    """The share of an order's mutants the paper config's LLMs compute, as ``hinter estimate``
    counts it: 002 Table 5's rate of the order for IMDB, the pooled 2.42% elsewhere."""
    return stages.valid_share(dataset, ORDER[order], "")


def measure_documents(dataset: str, n_docs: int, tok, tmp: Path, pairs: Path) -> dict:
    """Would answering a document's original and the valid mutants of all its suites in one call
    share more? Over ``DOCUMENT_DRAWS`` valid samples (002 Table 5's share per order), the share
    of the mutants' tokens computed: today's engine (a plan per suite, the original apart), a
    prefix tree per suite with the original's cache, the engine's plan over the whole document
    (original and every suite together), and a prefix tree over it (the floor of head reuse)."""
    sample = Sample(dataset, "documents", n_docs, tok, tmp)
    docs_path, rng, originals = sample.path, sample.rng, sample.originals
    orders = [o for o in SUITES if o != "triple" or dataset in TRIPLE_DATASETS]
    # draw -> document -> suite -> the valid sample's distinct mutant prompts
    drawn = [defaultdict(dict) for _ in range(DOCUMENT_DRAWS)]
    for order in orders:
        for attributes in SUITES[order]:
            out = tmp / "m.parquet"
            mutate_shard(docs_path, pairs, out, tmp / "m.json", attributes=attributes,
                         window=None, options=Options())  # fmt: skip
            rows = list(mutant_texts(out, docs_path))
            for draw in drawn:
                valid = [(r, t) for r, t in rows if rng.random() < valid_share(dataset, order)]
                prompts = sample.prompts([t for _, t in valid])
                for (row, _), prompt in zip(valid, prompts, strict=True):
                    d = int(row["doc_id"][1:])
                    if not np.array_equal(prompt, originals[d]):
                        draw[d].setdefault(attributes, {})[prompt.tobytes()] = prompt
    total = suite_engine = suite_tree = doc_engine = doc_tree = 0
    for draw in drawn:
        for d, suites in draw.items():
            original, every = originals[d], []
            for prompts in suites.values():
                group = list(prompts.values())
                every += group
                total += sum(map(len, group))
                suite_engine += computed_tokens(group, shared_heads(group))
                suite_tree += trie_tokens([original, *group]) - len(original)
            whole = [original, *{p.tobytes(): p for p in every}.values()]
            doc_engine += computed_tokens(whole, shared_heads(whole)) - len(original)
            doc_tree += trie_tokens(whole) - len(original)
    share = lambda part: round(part / total, 4) if total else None  # noqa: E731
    return {
        "documents": len(sample.texts),
        "mutant_tokens": total,
        "engine_per_suite": share(suite_engine),
        "tree_per_suite": share(suite_tree),
        "engine_per_document": share(doc_engine),
        "tree_per_document": share(doc_tree),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a few documents per order")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--orders", default=",".join(DOCUMENTS))
    parser.add_argument("--real", type=Path, default=rc.REAL, help="the samples' folder")
    parser.add_argument(
        "--by-document",
        action="store_true",
        help="per-suite plans vs one plan per document (original + every suite)",
    )
    args = parser.parse_args()
    missing = rc.missing(args.real)
    if missing:
        raise SystemExit(f"needs the real-data samples at {args.real}: missing {missing}")
    budgets.REAL = args.real  # the few-shot texts too
    tok = load_llama2_tokenizer()
    sizes = SMOKE_DOCUMENTS if args.smoke else DOCUMENTS
    figures: dict[str, dict] = {}
    if args.by_document:
        with tempfile.TemporaryDirectory() as tmp:
            pairs = costs._real_pairs(Path(tmp))
            for dataset in args.datasets.split(","):
                n = sizes["pairs"] if dataset == "imdb" else sizes["atomic"]
                figures[dataset] = measure_documents(dataset, n, tok, Path(tmp), pairs)
        if args.json:
            print(json.dumps(figures, indent=2))
            return
        print("| dataset | documents | mutant tokens (all draws) | engine, per suite (today) | "
              "tree, per suite | engine, per document | tree, per document (floor) |")  # fmt: skip
        print("|---|--:|--:|--:|--:|--:|--:|")
        for dataset, f in figures.items():
            cells = [f[k] for k in ("engine_per_suite", "tree_per_suite",
                                    "engine_per_document", "tree_per_document")]  # fmt: skip
            shown = " | ".join("—" if c is None else f"{c:.1%}" for c in cells)
            print(f"| {dataset} | {f['documents']} | {f['mutant_tokens']:,} | {shown} |")
        return
    with tempfile.TemporaryDirectory() as tmp:
        pairs = costs._real_pairs(Path(tmp))
        for dataset in args.datasets.split(","):
            for order, n in sizes.items():
                if order not in args.orders.split(","):
                    continue
                if order == "triple" and dataset not in TRIPLE_DATASETS:
                    continue
                figures[f"{dataset}/{order}"] = measure(dataset, order, n, tok, Path(tmp), pairs)
                print(dataset, order, figures[f"{dataset}/{order}"], file=sys.stderr)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print("| dataset | order | documents | mutants (per doc) | tokens per mutant prompt | "
          "before first edit | engine computes | prefix tree computes | valid sample: "
          "mutants, engine computes, tree computes |")  # fmt: skip
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
    pct = lambda x: "—" if x is None else f"{x:.1%}"  # noqa: E731
    for key, f in figures.items():
        dataset, order = key.split("/")
        print(
            f"| {dataset} | {order} | {f['documents']} | {f['mutants'] or 0:,} "
            f"({f['mutants_per_document']}) | {f['tokens_per_mutant'] or '—'} "
            f"| {pct(f['before_edit'])} | {pct(f['engine_computed'])} "
            f"| {pct(f['tree_computed'])} | {f['valid_mutants']:,} per draw, "
            f"{pct(f['valid_engine_computed'])}, {pct(f['valid_tree_computed'])} |"
        )


if __name__ == "__main__":
    main()
