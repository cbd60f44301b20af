"""Llama 2's document budget per dataset in the paper config (review F8): the tokens left for
the test document in the 4,096-token context after the system prompt, the three few-shot turns
(each example cut to 150 words + " …"), the question and the answer budget.

Computed by the run's own code path (:func:`hinter.models.budget.document_budget`, i.e.
``chat_frame``) with the real Llama 2 tokenizer (``tests/support/llama2_tokenizer.py``: npm,
cached) and Llama 2's chat format. The few-shot texts:

- IMDB: the paper's three reviews themselves (``../shared/real/imdb/fewshot``, sha256-checked
  against ``resources/prompts/imdb.yaml``): the exact budget;
- ECtHR, SCOTUS, EURLEX, LEDGAR: the paper's examples are train rows that are not here, so every
  choice of three of the real LexGLUE records of ``../shared/real/lexglue/<dataset>.jsonl``
  stands in (cut to 150 words like the real ones): the range of budgets they give.

    PYTHONPATH=src python tests/benchmarks/llama2_budgets.py            # Markdown table
    PYTHONPATH=src python tests/benchmarks/llama2_budgets.py --json     # the figures as JSON
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "real"
sys.path.insert(0, str(ROOT))

from hinter.config import load_yaml, validate_config  # noqa: E402
from hinter.models.budget import document_budget  # noqa: E402
from hinter.prompt_spec import load_prompt_spec  # noqa: E402
from tests.support.llama2_tokenizer import load_llama2_tokenizer  # noqa: E402

LEXGLUE = ("ecthr_a", "scotus", "eurlex", "ledgar")


def lexglue_texts(dataset: str) -> list[str]:
    """The real records' texts as the hub (and hinter.data) give them: ECtHR's paragraphs
    joined with newlines."""
    out = []
    for line in (REAL / "lexglue" / f"{dataset}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if dataset == "ecthr_a":
            facts = record["facts"]
            out.append("\n".join(facts if isinstance(facts, list) else eval_list(facts)))
        else:
            out.append(record["text"])
    return out


def eval_list(value: str) -> list[str]:
    import ast

    return list(ast.literal_eval(value))


def imdb_texts() -> list[str]:
    spec = load_prompt_spec("imdb")
    texts = []
    for example in spec.examples:
        name = example.source.removeprefix("aclImdb/").replace("/", "-")
        text = (REAL / "imdb" / "fewshot" / name).read_text(encoding="utf-8")
        if hashlib.sha256(text.encode()).hexdigest() != example.sha256:
            raise SystemExit(f"{name}: not the review resources/prompts/imdb.yaml names")
        texts.append(text)
    return texts


def budgets() -> dict[str, dict]:
    cfg = validate_config(load_yaml(ROOT / "config" / "config.yaml"))
    llama2 = cfg["models"]["llms"]["llama2"]
    tok = load_llama2_tokenizer()
    out = {}
    for dataset in cfg["datasets"]:
        kwargs = {
            "context_tokens": int(llama2["context_tokens"]),
            "max_new_tokens": int(llama2["max_new_tokens"][dataset]),
        }
        if dataset == "imdb":
            choices = [imdb_texts()]
        else:
            choices = list(itertools.combinations(lexglue_texts(dataset), 3))
        frames = [document_budget(tok, dataset, list(texts), **kwargs) for texts in choices]
        values = sorted(f.budget for f in frames)
        out[dataset] = {
            **kwargs,
            "examples": "the paper's" if dataset == "imdb" else f"{len(choices)} stand-in triples",
            "budget_min": values[0],
            "budget_max": values[-1],
            "prompt_tokens_min": min(f.prompt_tokens for f in frames),
            "prompt_tokens_max": max(f.prompt_tokens for f in frames),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (REAL / "lexglue").is_dir():
        raise SystemExit(f"needs the real-data samples at {REAL} (../shared/real)")
    figures = budgets()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print("| dataset | examples | prompt tokens | answer | document budget |")
    print("|---|---|--:|--:|--:|")
    for dataset, f in figures.items():
        span = lambda lo, hi: f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"  # noqa: E731
        print(
            f"| {dataset} | {f['examples']}"
            f" | {span(f['prompt_tokens_min'], f['prompt_tokens_max'])}"
            f" | {f['max_new_tokens']} | {span(f['budget_min'], f['budget_max'])} |"
        )


if __name__ == "__main__":
    main()
