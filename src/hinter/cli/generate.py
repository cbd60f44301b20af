"""``hinter generate-test``: LABE's generation tasks (004 Table 10) on one chat LLM, with prompt
mutants, scored for language-agency bias by an agency classifier (docs/labe.md).

The model is what ``hinter test`` takes (a chat folder, a ``.gguf`` file, ``pypi:<package>``,
``openai:<model>``); generations go through the same backends and response cache, an API model's
cost is estimated before anything is sent (``--max-cost-usd`` stops a run over budget,
``--dry-run`` only estimates). Defaults are the workflow schema's ``labe.generation`` keys.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hinter.cli.args import EXIT_OK, at_least, say
from hinter.cli.test import max_cost, prices
from hinter.errors import HinterError


def _defaults() -> dict:
    from hinter import config

    return config.with_defaults({"labe": {}})["labe"]


def cmd_generate_test(args: argparse.Namespace) -> int:
    """Generate, score and write the tables, figure and report section."""
    from hinter.labe import stages
    from hinter.labe.report import write_report
    from hinter.plots.labe import write_mutant_rates

    labe = _defaults()
    settings = dict(labe["generation"])
    for key in ("templates", "seeds", "max_new_tokens", "threshold", "alpha"):
        value = getattr(args, key)
        if value is not None:
            settings[key] = value
    settings["mutants"] = not args.no_mutants
    if args.greedy:
        settings["decoding"] = None
    if args.persons is not None:
        settings["persons"] = _persons(args.persons)
    classifier = Path(args.classifier)
    if not args.dry_run and not (classifier / "config.json").is_file():
        raise HinterError(f"--classifier {args.classifier}: not a model folder (no config.json)")
    stages.generation_plan(
        settings, key="--persons"
    )  # persons and templates checked before any work
    entry = {"model": str(args.model)}
    for key in ("base_url", "tokenizer", "api_key_env", "max_cost_usd", "batch_size"):
        if getattr(args, key) is not None:
            entry[key] = getattr(args, key)
    if args.prices is not None:
        entry["prices"] = {"input": args.prices[0], "output": args.prices[1]}
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in _label(str(args.model)))
    out = Path(args.out or f"hinter-generate-{name}")
    cache = Path(args.cache_dir or out / "cache")
    generations = out / "generations.parquet"
    summary = stages.run_generation(
        name, entry, settings, generations, cache_dir=cache, dry_run=args.dry_run
    )
    if args.dry_run:
        say(json.dumps(summary["estimate"] or {"prompts": summary["prompts"]}))
        return EXIT_OK
    outputs = {
        "bias": out / "generation_bias.csv",
        "pairs": out / "generation_pairs.csv",
        "variances": out / "generation_variances.csv",
        "scores": out / "generation_scores.parquet",
        "figure": out / "generation_bias.png",
    }
    result = stages.generation_tables(
        {name: generations},
        classifier,
        settings,
        outputs,
        cache_dir=cache,
        resamples=labe["resamples"],
        seed=args.seed,
    )
    write_mutant_rates(result["rates"], out / "generation_bias")
    report = write_report(out, name, settings, result)
    say(
        f"{summary['prompts']} prompts, {summary['generated']} generated (the rest cached); "
        f"tables, figure and report in {out} ({report.name})"
    )
    return EXIT_OK


def _label(model: str) -> str:
    for prefix in ("openai:", "pypi:"):
        if model.startswith(prefix):
            return model.removeprefix(prefix)
    return Path(model).name.removesuffix(".gguf")


def _persons(path: str) -> list:
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HinterError(
            f"--persons {path}: cannot read it ({str(exc).splitlines()[0]})"
        ) from None
    if not isinstance(data, list) or not all(isinstance(p, dict) for p in data):
        raise HinterError(f"--persons {path}: a YAML list of persons (name, race, gender, ...)")
    return data


def add_generate_test(sub) -> None:
    p = sub.add_parser(
        "generate-test",
        help="LABE's generation tasks and their prompt mutants on a chat LLM, scored for "
        "language-agency bias",
    )
    p.add_argument("model", help="chat folder, .gguf file, pypi:<package> or openai:<model>")
    p.add_argument(
        "--classifier",
        required=True,
        help="the agency classifier's model folder (the workflow's labe_train output)",
    )
    p.add_argument(
        "--templates",
        nargs="+",
        default=None,
        choices=["biography", "professor_review", "reference_letter"],
    )
    p.add_argument("--seeds", nargs="+", type=at_least(0), default=None)
    p.add_argument("--persons", default=None, help="a YAML list of persons to fill in")
    p.add_argument("--no-mutants", action="store_true", help="only the prompts as written")
    p.add_argument("--max-new-tokens", type=at_least(1), default=None)
    p.add_argument("--greedy", action="store_true", help="greedy decoding instead of sampling")
    p.add_argument(
        "--threshold", type=float, default=None, help="biased pair: ratio-gap difference"
    )
    p.add_argument("--alpha", type=float, default=None, help="level of the paired t-test")
    p.add_argument("--seed", type=int, default=42, help="bootstrap seed")
    p.add_argument("--batch-size", type=at_least(1), default=None)
    p.add_argument("--base-url", default=None)
    p.add_argument("--api-key-env", default=None)
    p.add_argument("--tokenizer", default=None)
    p.add_argument("--prices", metavar="INPUT,OUTPUT", type=prices, default=None)
    p.add_argument("--max-cost-usd", type=max_cost, default=None)
    p.add_argument("--dry-run", action="store_true", help="estimate the requests and cost only")
    p.add_argument("--cache-dir", default=None, help="response cache (default <out>/cache)")
    p.add_argument("--out", default=None, help="output folder (default hinter-generate-<model>)")
