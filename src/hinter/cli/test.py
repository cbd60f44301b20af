"""``hinter test``: bias-test one model on one file with the workflow's own code."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter import __version__, io, plan, tables
from hinter.cli.args import (
    EXIT_OK,
    at_least,
    attributes_list,
    check_orders,
    column_name,
    fraction,
    orders_list,
    plural,
    say,
    suites_for,
)  # fmt: skip
from hinter.cli.files import LOCK, locked_output, writable_folder
from hinter.config import REPO_ROOT
from hinter.errors import ConfigError, HinterError
from hinter.gate import EXIT_GATE, Threshold, parse_threshold
from hinter.inputs import DATASET, LABEL_FORMATS, LABEL_RULE
from hinter.layout import RunLayout

SHARD = "000"
TRACK = "model"


@dataclass
class TestPlan:
    """Everything ``hinter test`` will do, checked before anything is written."""

    model_dir: Path
    model: str  # the model's name in the run layout
    meta: dict[str, Any]
    window: int
    docs: Any  # the TESTED_DOCUMENTS table
    skipped_empty: list[int]
    label_reading: str | None
    suites: list[plan.Suite]
    orders: list[int]
    attributes: list[str]
    compiled: Any  # the compiled dictionary
    parser: str | None
    out: Path
    cache_dir: Path
    json_path: Path | None
    thresholds: list[Threshold]


def model_name(model_dir: Path) -> str:
    """A path-safe name for the model (its folder, or <parent>-<folder> for .../<x>/model)."""
    name = model_dir.name
    if name == "model" and model_dir.parent.name:
        name = f"{model_dir.parent.parent.name}-{model_dir.parent.name}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "model"


def model_meta(model_dir: Path, task_type: str | None) -> dict[str, Any]:
    """Label space and task type of a checked model directory (our sidecar, else its config)."""
    from hinter.models.loading import n_labels_of, read_model_dir, task_type_of

    info = read_model_dir(model_dir)
    config, sidecar = info["config"], info["sidecar"]
    n_labels = n_labels_of(config)
    names = sidecar.get("label_names")
    if not names:
        id2label = config.get("id2label") or {}
        names = [str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(n_labels)]
    kind = task_type_of(config, sidecar, None if task_type is None else task_type)
    declared = "task_type" in sidecar or config.get("problem_type") in (
        "multi_label_classification",
        "single_label_classification",
    )
    if task_type is not None and declared and kind != task_type:
        raise HinterError(f"--task-type {task_type}: the model folder {model_dir} declares {kind}")
    return {
        "dataset": DATASET,
        "task_type": task_type or kind,
        "label_names": [str(n) for n in names],
        "n_labels": n_labels,
        "empty_label_name": sidecar.get("empty_label_name"),
        "rows": {},
    }


def model_window(model_dir: Path) -> int:
    """Tokens the model sees (its training window, else its position limit, at most 512)."""
    from hinter.models.loading import position_limit, read_model_dir

    info = read_model_dir(model_dir)
    limit = info["sidecar"].get("max_length") or position_limit(info["config"]) or 512
    return int(min(limit, 512))


def _as_flag(exc: HinterError, key: str, flag: str) -> HinterError:
    """A library error that names a config key, reworded for the command line's flag."""
    return type(exc)(str(exc).replace(f"config key '{key}'", flag))


def prepare_test(args: argparse.Namespace) -> TestPlan:
    """Check every argument, the model folder, the parser and the input file; write nothing.

    Cheap checks first, so most mistakes are reported in a fraction of a second.
    """
    from hinter import inputs
    from hinter.dictionary import pairs as dictionary_pairs

    orders, attributes = args.orders, args.attributes
    check_orders(orders, attributes)
    suites = suites_for(attributes, orders)
    from hinter.gate import check_thresholds

    check_thresholds(args.fail_above, [s.name for s in suites])

    model_dir = Path(args.model).expanduser().resolve()
    data = Path(args.data).expanduser()
    if not model_dir.exists():
        raise HinterError(f"model folder {args.model}: not found")
    if not model_dir.is_dir():
        raise HinterError(f"model folder {args.model}: is a file, not a folder")
    if not data.exists():
        raise HinterError(f"{args.data}: file not found")
    inputs.file_format(data)
    model = model_name(model_dir)
    out = Path(args.out or f"hinter-test-{model}").expanduser().resolve()
    writable_folder(out, "--out")
    if out.exists() and any(out.iterdir()) and not (out / LOCK).exists():
        raise HinterError(
            f"--out {out}: the folder is not empty and holds no earlier hinter run; choose a "
            "new or empty folder"
        )
    if out == model_dir or model_dir in out.parents:
        raise HinterError(f"--out {out}: inside the model folder; choose another folder")
    if out in data.resolve().parents:
        raise HinterError(f"--out {out}: holds the input file; choose another folder")
    cache_dir = Path(args.cache_dir).expanduser().resolve() if args.cache_dir else out / "cache"
    if args.cache_dir:
        writable_folder(cache_dir, "--cache-dir")
    json_path = None
    if args.json:
        json_path = Path(args.json).expanduser().resolve()
        if json_path.is_dir():
            raise HinterError(f"--json {args.json}: is a folder, not a file")
        writable_folder(json_path.parent, "--json")
    dictionary = Path(args.dictionary).expanduser()
    if not dictionary.is_dir():
        raise HinterError(f"--dictionary {args.dictionary}: folder not found")

    meta = model_meta(model_dir, args.task_type)  # the folder's files, without loading
    docs = inputs.documents(
        inputs.read_file(data, max_rows=args.max_documents),
        text_column=args.text_column,
        label_column=args.label_column,
        id_column=args.id_column,
        label_names=meta["label_names"],
        task_type=meta["task_type"],
        label_format=args.label_format,
        skip_empty=args.skip_empty,
    )
    meta["rows"] = {DATASET: docs.table.num_rows}
    compiled = dictionary_pairs.compile_dictionary(attributes, dictionary, pairing=args.pairing)

    # Loading: the tokenizer, the weights (all present?), the parser (slowest, last).
    from hinter.models.loading import load_classifier
    from hinter.mutation.window import load_tokenizer

    try:
        load_tokenizer(str(model_dir), key="model")
    except ConfigError as exc:
        raise _as_flag(exc, "model", f"model folder {model_dir}") from None
    load_classifier(model_dir, n_labels=meta["n_labels"], device="cpu")  # weights complete?

    parser = None
    if not args.no_invariant:
        from hinter.invariant import load_pipeline

        try:
            load_pipeline(args.parser)
        except HinterError as exc:
            raise _as_flag(exc, "parser.pipeline", "--parser") from None
        parser = args.parser

    return TestPlan(
        model_dir=model_dir,
        model=model,
        meta=meta,
        window=model_window(model_dir),
        docs=docs.table,
        skipped_empty=docs.skipped_empty,
        label_reading=docs.label_reading,
        suites=suites,
        orders=orders,
        attributes=attributes,
        compiled=compiled,
        parser=parser,
        out=out,
        cache_dir=cache_dir,
        json_path=json_path,
        thresholds=list(args.fail_above),
    )


def run_test(p: TestPlan, args: argparse.Namespace) -> Path:
    """Run every stage of a checked plan; return the output (run) directory."""
    import pyarrow.parquet as pq

    from hinter import oracle
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.invariant import check_shard
    from hinter.models.inference import predict_shard
    from hinter.mutation import mutate_job
    from hinter.progress import Progress
    from hinter.rq import examples, rq1
    from hinter.rq.intervals import Bootstrap
    from hinter.rq.outcomes import OutcomeFile

    n_docs = p.docs.num_rows
    suite_names = ", ".join(s.name for s in p.suites)
    say(
        f"testing {p.model} ({p.meta['n_labels']} labels, {p.meta['task_type']}, window "
        f"{p.window} tokens) on {plural(n_docs, 'document')} of {args.data}: "
        f"{len(p.suites)} suites ({suite_names}); "
        + (f"invariant parser {p.parser}" if p.parser else "no invariant")
        + f"; output {p.out}"
    )
    if p.skipped_empty:
        rows = ", ".join(map(str, p.skipped_empty[:10]))
        more = "…" if len(p.skipped_empty) > 10 else ""
        say(f"skipped {plural(len(p.skipped_empty), 'empty text')} (rows {rows}{more})")
    layout = RunLayout(str(p.out))
    docs_path = Path(layout.tested(DATASET, SHARD))
    meta_path = Path(layout.meta(DATASET))
    io.write_parquet(p.docs, docs_path, tables.TESTED_DOCUMENTS, row_group_size=64)
    io.write_json(meta_path, p.meta)
    pairs_path = Path(layout.dictionary("pairs.parquet"))
    dictionary_pairs.write_compiled(p.compiled, pairs_path, Path(layout.dictionary("review.tsv")))

    mutation = {
        "mode": "simultaneous",
        "max_mutants_per_document": args.max_mutants_per_document,
        "max_mutants_per_suite": None,
    }
    track_spec = {"tokenizer": str(p.model_dir), "max_tokens": p.window}
    mutants_paths, validity_paths = {}, {}
    with Progress("mutate", n_docs * len(p.suites), "documents") as bar:
        for suite in p.suites:
            key = (TRACK, DATASET, suite.name, SHARD)
            mutants_paths[suite.name] = Path(layout.mutants(*key))
            mutate_job(
                str(docs_path), str(pairs_path), str(mutants_paths[suite.name]),
                layout.mutant_stats(*key),
                suite=suite, track=TRACK, track_spec=track_spec, dataset=DATASET, shard=SHARD,
                n_shards=1, mutation=mutation, seed=args.seed, progress=bar.update,
            )  # fmt: skip
    rows = {s: pq.ParquetFile(path).metadata.num_rows for s, path in mutants_paths.items()}
    mutants = sum(
        io.read_json(layout.mutant_stats(TRACK, DATASET, s.name, SHARD))["written"]
        for s in p.suites
    )
    say(
        f"{plural(mutants, 'mutant')} in {len(p.suites)} suites ({sum(rows.values()):,} rows "
        f"with parents); up to {n_docs + mutants:,} texts to predict"
    )

    invariant = {
        "enabled": p.parser is not None,
        "keep_discarded": True,
        "max_sentence_chars": args.max_sentence_chars,
        "batch_size": 256,
        "parse_cache": True,
    }
    with Progress("invariant", sum(rows.values()), "mutants") as bar:
        for suite in p.suites:  # atomic suites first: intersectional parents reuse verdicts
            key = (TRACK, DATASET, suite.name, SHARD)
            validity_paths[suite.name] = Path(layout.validity(*key))
            atomic = (
                [validity_paths[plan.suite_name((a,))] for a in suite.attributes]
                if suite.order > 1
                else []
            )
            check_shard(
                mutants_paths[suite.name], docs_path, validity_paths[suite.name],
                Path(layout.validity_stats(*key)),
                pipeline=p.parser or "", invariant=invariant, cache_dir=p.cache_dir,
                suite=suite.name, shard=SHARD, atomic_validity=atomic,
                progress=bar.update, chunk_rows=2000,
            )  # fmt: skip

    predictions_path = Path(layout.predictions(p.model, DATASET, SHARD))
    predict_shard(
        model_dir=p.model_dir,
        docs_path=docs_path,
        mutants_paths=list(mutants_paths.values()),
        validity_paths=list(validity_paths.values()),
        meta_path=meta_path,
        out_path=predictions_path,
        inference={
            "batch_size": args.batch_size,
            "dtype": "auto",
            "chunk_size": 4096,
            "cache": True,
        },
        keep_discarded=True,
        cache_dir=p.cache_dir,
    )

    outcome_files, example_files = [], []
    for suite in p.suites:
        outcome_path = Path(layout.outcomes(p.model, DATASET, suite.name))
        oracle.write_suite_outcomes(
            suite.name,
            docs=[docs_path],
            mutants=[mutants_paths[suite.name]],
            validity=[validity_paths[suite.name]],
            predictions=[predictions_path],
            meta=p.meta,
            output=outcome_path,
            threshold=args.threshold,
        )
        outcome_files.append(OutcomeFile(p.model, DATASET, suite.name, outcome_path))
        if suite.order > 1:
            example_path = Path(layout.examples(p.model, DATASET, suite.name))
            examples.write_hidden_examples(
                model=p.model, dataset=DATASET, suite=suite.name, outcomes=outcome_path,
                mutants=[mutants_paths[suite.name]], docs=[docs_path], meta=p.meta,
                output=example_path, k=args.examples,
            )  # fmt: skip
            example_files.append(example_path)
    rq1.write_tables(
        outcome_files,
        example_files,
        Path(layout.rq_dir(1)),
        datasets=[DATASET],
        examples=args.examples,
        order=2 if 2 in p.orders else max(p.orders),
        boot=Bootstrap(seed=args.seed),  # the intervals: config defaults, the run's seed
    )
    rq1.write_figures(layout.rq_dir(1), layout.rq_dir(1))
    return p.out


def suite_counts(out: Path):
    """Per-suite counts (``hinter.rates.COUNT_COLUMNS``) of a finished run."""
    import pandas as pd

    from hinter import rates

    frame = pd.read_csv(RunLayout(str(out)).rq_output(1, "rates_by_suite", "csv"))
    # The table calls the tested mutants "mutants"; the rates module's count is "generated".
    frame = frame.rename(columns={"mutants": "generated"})
    return frame[["suite", "order", *rates.COUNT_COLUMNS]]


def print_summary(out: Path) -> None:
    """Rates per suite, the truth table and a few hidden-bias examples, on the terminal."""
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    layout = RunLayout(str(out))
    tables_dir = Path(layout.rq_dir(1))
    console = Console()
    console.width = max(console.width, 100)  # pipes default to 80 columns: too narrow for the table
    rates = pd.read_csv(layout.rq_output(1, "rates_by_suite", "csv"))
    table = Table(title="Bias by suite (rates in % of valid mutants; hidden in % of biased)")
    table.add_column("suite", no_wrap=True)
    for column in ("mutants", "valid", "valid%", "biased", "error%", "hidden", "hidden%"):
        table.add_column(column, justify="right")

    def pct(value) -> str:
        return "–" if pd.isna(value) else f"{value:.2f}"

    for row in rates.itertuples(index=False):
        table.add_row(
            row.suite, str(row.mutants), str(row.valid), pct(row.valid_share_pct),
            str(row.errors), pct(row.error_rate_pct),
            "–" if row.order == 1 else str(row.hidden),
            "–" if row.order == 1 else pct(row.hidden_rate_pct),
        )  # fmt: skip
    console.print(table)
    truth = (tables_dir / "truth_table.md").read_text(encoding="utf-8")
    for line in truth.splitlines():
        if line.startswith("Hidden intersectional"):
            console.print(line)
    examples_path = tables_dir / "hidden_examples.md"
    console.print(f"\nTables: {tables_dir} (truth table, examples: {examples_path.name})")


def cmd_test(args: argparse.Namespace) -> int:
    from hinter import gate

    p = prepare_test(args)
    with locked_output(p.out) as stale:
        if stale:
            say(f"removed {plural(len(stale), 'temporary file')} of an interrupted run")
        run_test(p, args)
        counts = suite_counts(p.out)
        pooled = gate.pooled_rates(counts)
        verdict = gate.evaluate(pooled, p.thresholds)
        if p.json_path is not None:
            document = gate.summary(
                counts, verdict, pooled,
                hinter=__version__, model={"name": p.model, "path": str(p.model_dir),
                "task_type": p.meta["task_type"], "labels": p.meta["n_labels"]},
                data={"path": str(Path(args.data).resolve()), "documents": p.docs.num_rows,
                      "skipped_empty": len(p.skipped_empty), "labels": p.label_reading},
                out=str(p.out), exit_code=EXIT_GATE if verdict.failed else EXIT_OK,
            )  # fmt: skip
            io.write_text(p.json_path, json.dumps(document, indent=2, sort_keys=True) + "\n")
    print_summary(p.out)
    if verdict.thresholds:
        say(verdict.line())
    return EXIT_GATE if verdict.failed else EXIT_OK


def add_test(sub) -> None:
    dictionary = str(REPO_ROOT / "resources" / "dictionary")
    test = sub.add_parser(
        "test",
        help="bias-test a fine-tuned classifier on a file of texts",
        description="Mutate the texts with the bias dictionary, keep mutants that pass the "
        "dependency invariant, predict originals and mutants, and report atomic, "
        "intersectional and hidden intersectional bias. Every argument, the input file, the "
        "model folder and the parser are checked before anything is written.",
        epilog=f"{LABEL_RULE} Exit codes: 0 done (gate passed), 1 bad input or error, "
        f"{EXIT_GATE} a --fail-above rate exceeded, 130 interrupted (rerun to resume).",
    )
    test.add_argument(
        "model", help="a fine-tuned model folder (config.json, safetensors, tokenizer)"
    )
    test.add_argument("data", help="texts: .csv, .tsv, .parquet or .jsonl (UTF-8; .gz allowed)")
    test.add_argument("--text-column", type=column_name, default="text")
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
    test.add_argument("--task-type", choices=["multi_class", "multi_label"], default=None)
    test.add_argument("--attributes", type=attributes_list, default=["race", "gender", "body"])
    test.add_argument(
        "--orders", type=orders_list, default=[1, 2], help="mutation orders, e.g. 1,2,3"
    )
    test.add_argument("--pairing", choices=["as_published", "complete"], default="as_published")
    test.add_argument("--dictionary", default=dictionary, help="curated dictionary folder")
    test.add_argument(
        "--parser",
        default="en_core_web_sm",
        help="spaCy pipeline of the invariant: en_core_web_sm (spaCy's package if installed, "
        "else the pinned offline re-upload), another installed package, or a directory",
    )
    test.add_argument("--no-invariant", action="store_true", help="keep every mutant (MUTAINT)")
    test.add_argument("--max-sentence-chars", type=at_least(1), default=500)
    test.add_argument("--max-mutants-per-document", type=at_least(1), default=None)
    test.add_argument(
        "--max-documents", type=at_least(1), default=None, help="test the first N rows"
    )
    test.add_argument("--threshold", type=fraction, default=0.0, help="confidence threshold 0..1")
    test.add_argument("--batch-size", type=at_least(1), default=32)
    test.add_argument("--examples", type=at_least(0), default=5)
    test.add_argument("--seed", type=at_least(0), default=42)
    test.add_argument("--cache-dir", default=None, help="parse and prediction caches")
    test.add_argument("--out", default=None, help="output folder (default hinter-test-<model>)")
    test.add_argument(
        "--fail-above",
        metavar="RATE=PERCENT",
        type=parse_threshold,
        action="append",
        default=[],
        help="CI gate: exit with code 3 when a pooled rate exceeds PERCENT (repeatable); "
        "RATE is atomic, intersectional, hidden, a suite (its error rate) or hidden:<suite>",
    )
    test.add_argument("--json", metavar="PATH", default=None, help="write the summary as JSON")
