"""The ``hinter`` command line: bias-test one model on one file with the workflow's own code.

``hinter test MODEL_DIR DATA_FILE`` runs dictionary → mutation → invariant → prediction → oracle
on one shard laid out exactly like a workflow run directory (``--out``), then prints the rates,
the truth table and hidden-bias examples. ``hinter mutate`` shows the mutants of a text.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import pyarrow as pa

from hinter import __version__, io, plan, tables
from hinter.config import BUILTIN_ATTRIBUTES, REPO_ROOT
from hinter.errors import DataError, HinterError
from hinter.layout import RunLayout

log = logging.getLogger("hinter")

DATASET = "input"  # the dataset name of a user's file inside the run layout
SHARD = "000"
TRACK = "model"


# --------------------------------------------------------------------------- input files


def read_table(path: str | Path) -> pa.Table:
    """Read a CSV, TSV, Parquet or JSON-lines file of texts (one-line error when it can't)."""
    import pyarrow.csv as pacsv
    import pyarrow.json as pajson

    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: file not found")
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    try:
        if suffix in (".parquet", ".pq"):
            return io.read_parquet(path)
        if suffix in (".jsonl", ".ndjson", ".jsonl.gz"):
            return pajson.read_json(path)
        if suffix in (".csv", ".csv.gz"):
            return pacsv.read_csv(path)
        if suffix in (".tsv", ".tsv.gz"):
            return pacsv.read_csv(path, parse_options=pacsv.ParseOptions(delimiter="\t"))
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"{path}: cannot be read ({str(exc).splitlines()[0]})") from None
    raise DataError(f"{path}: unknown format {suffix!r} (use .csv, .tsv, .parquet or .jsonl)")


def _label_list(value: Any, names: Sequence[str], where: str) -> list[int] | None:
    """Gold labels as label ids: an id, a name, a list of either, or a JSON list in a string."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise DataError(f"{where}: labels {value!r} are not a JSON list") from None
        elif text == "":
            return []
        else:
            value = [text]
    values = value if isinstance(value, list) else [value]
    index = {name.lower(): i for i, name in enumerate(names)}
    out = []
    for v in values:
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int) or (isinstance(v, str) and v.strip().isdigit() and v not in index):
            label = int(v)
        elif isinstance(v, str) and v.strip().lower() in index:
            label = index[v.strip().lower()]
        else:
            raise DataError(f"{where}: unknown label {v!r} (labels: {', '.join(names)})")
        if not 0 <= label < len(names):
            raise DataError(f"{where}: label {label} outside 0..{len(names) - 1}")
        out.append(label)
    return sorted(set(out))


def tested_documents(
    table: pa.Table,
    path: str | Path,
    *,
    text_column: str,
    label_column: str | None,
    id_column: str | None,
    label_names: Sequence[str],
    max_documents: int | None,
) -> pa.Table:
    """The user's rows as the workflow's tested-documents table (one shard)."""
    if text_column not in table.column_names:
        raise DataError(
            f"{path}: no column {text_column!r} (columns: {', '.join(table.column_names)})"
        )
    for column in (label_column, id_column):
        if column is not None and column not in table.column_names:
            raise DataError(f"{path}: no column {column!r}")
    n = table.num_rows if max_documents is None else min(table.num_rows, max_documents)
    texts = table.column(text_column).to_pylist()[:n]
    ids = (
        [str(v) for v in table.column(id_column).to_pylist()[:n]]
        if id_column
        else [f"doc-{i:06d}" for i in range(n)]
    )
    if len(set(ids)) != len(ids):
        raise DataError(f"{path}: column {id_column!r} has duplicate ids")
    gold = table.column(label_column).to_pylist()[:n] if label_column else [None] * n
    labels = [_label_list(g, label_names, f"{path} row {i + 1}") for i, g in enumerate(gold)]
    return pa.table(
        {
            "doc_id": ids,
            "split": [DATASET] * n,
            "position": list(range(n)),
            "text": [t if isinstance(t, str) else None for t in texts],
            "labels": labels,
        },
        schema=tables.TESTED_DOCUMENTS,
    )


# --------------------------------------------------------------------------- the pipeline


def model_meta(model_dir: Path, task_type: str | None) -> dict[str, Any]:
    """Label space and task type of a model directory (our sidecar, else its config)."""
    from hinter.models.loading import n_labels_of, read_model_dir, task_type_of

    info = read_model_dir(model_dir)
    config, sidecar = info["config"], info["sidecar"]
    n_labels = int(sidecar.get("n_labels") or n_labels_of(config))
    names = sidecar.get("label_names")
    if not names:
        id2label = config.get("id2label") or {}
        names = [str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(n_labels)]
    return {
        "dataset": DATASET,
        "task_type": task_type_of(config, sidecar, task_type),
        "label_names": list(names),
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


def suites_for(attributes: Sequence[str], orders: Sequence[int]) -> list[plan.Suite]:
    """Atomic suites always (parents), then every combination of each requested order."""
    wanted = {(a,) for a in attributes}
    for order in orders:
        if order > len(attributes):
            raise HinterError(f"order {order} needs {order} attributes, got {len(attributes)}")
        wanted |= set(combinations(sorted(attributes), order))
    suites = [plan.Suite(tuple(sorted(c))) for c in wanted]
    return sorted(suites, key=lambda s: (s.order, s.name))


def run_test(args: argparse.Namespace) -> Path:
    """Run every stage on one model and one file; return the output (run) directory."""
    from hinter import oracle
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.invariant import check_shard
    from hinter.models.inference import predict_shard
    from hinter.mutation import mutate_job
    from hinter.rq import examples, rq1
    from hinter.rq.outcomes import OutcomeFile

    model_dir = Path(args.model).resolve()
    model = re.sub(r"[^A-Za-z0-9_.-]+", "-", model_dir.name).strip("-") or "model"
    if model_dir.name == "model" and model_dir.parent.name:
        model = f"{model_dir.parent.parent.name}-{model_dir.parent.name}"
    out = Path(args.out or f"hinter-test-{model}").resolve()
    cache_dir = Path(args.cache_dir).resolve() if args.cache_dir else out / "cache"
    attributes = [a.strip() for a in args.attributes.split(",") if a.strip()]
    unknown = [a for a in attributes if a not in BUILTIN_ATTRIBUTES]
    if unknown:
        raise HinterError(f"--attributes: unknown attribute(s) {', '.join(unknown)}")
    orders = [int(o) for o in args.orders.split(",")]

    meta = model_meta(model_dir, args.task_type)
    docs = tested_documents(
        read_table(args.data),
        args.data,
        text_column=args.text_column,
        label_column=args.label_column,
        id_column=args.id_column,
        label_names=meta["label_names"],
        max_documents=args.max_documents,
    )
    meta["rows"] = {DATASET: docs.num_rows}
    layout = RunLayout(str(out))
    docs_path = Path(layout.tested(DATASET, SHARD))
    meta_path = Path(layout.meta(DATASET))
    io.write_parquet(docs, docs_path, tables.TESTED_DOCUMENTS, row_group_size=64)
    io.write_json(meta_path, meta)
    log.info("%d documents from %s", docs.num_rows, args.data)

    pairs_path = Path(layout.dictionary("pairs.parquet"))
    compiled = dictionary_pairs.compile_dictionary(
        attributes, Path(args.dictionary), pairing=args.pairing
    )
    dictionary_pairs.write_compiled(compiled, pairs_path, Path(layout.dictionary("review.tsv")))

    suites = suites_for(attributes, orders)
    mutation = {
        "mode": "simultaneous",
        "max_mutants_per_document": args.max_mutants_per_document,
        "max_mutants_per_suite": None,
    }
    track_spec = {"tokenizer": str(model_dir), "max_tokens": model_window(model_dir)}
    invariant = {
        "enabled": not args.no_invariant,
        "keep_discarded": True,
        "max_sentence_chars": args.max_sentence_chars,
        "batch_size": 256,
        "parse_cache": True,
    }
    mutants_paths, validity_paths = {}, {}
    for suite in suites:  # atomic suites first: intersectional parents reuse their verdicts
        key = (TRACK, DATASET, suite.name, SHARD)
        mutants_paths[suite.name] = Path(layout.mutants(*key))
        validity_paths[suite.name] = Path(layout.validity(*key))
        mutate_job(
            str(docs_path), str(pairs_path), str(mutants_paths[suite.name]),
            layout.mutant_stats(*key),
            suite=suite, track=TRACK, track_spec=track_spec, dataset=DATASET, shard=SHARD,
            n_shards=1, mutation=mutation, seed=args.seed,
        )  # fmt: skip
        atomic = (
            [validity_paths[plan.suite_name((a,))] for a in suite.attributes]
            if suite.order > 1
            else []
        )
        check_shard(
            mutants_paths[suite.name], docs_path, validity_paths[suite.name],
            Path(layout.validity_stats(*key)),
            pipeline=args.parser, invariant=invariant, cache_dir=cache_dir,
            suite=suite.name, shard=SHARD, atomic_validity=atomic,
        )  # fmt: skip

    predictions_path = Path(layout.predictions(model, DATASET, SHARD))
    predict_shard(
        model_dir=model_dir,
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
        cache_dir=cache_dir,
    )

    outcome_files, example_files = [], []
    for suite in suites:
        outcome_path = Path(layout.outcomes(model, DATASET, suite.name))
        oracle.write_suite_outcomes(
            suite.name,
            docs=[docs_path],
            mutants=[mutants_paths[suite.name]],
            validity=[validity_paths[suite.name]],
            predictions=[predictions_path],
            meta=meta,
            output=outcome_path,
            threshold=args.threshold,
        )
        outcome_files.append(OutcomeFile(model, DATASET, suite.name, outcome_path))
        if suite.order > 1:
            example_path = Path(layout.examples(model, DATASET, suite.name))
            examples.write_hidden_examples(
                model=model, dataset=DATASET, suite=suite.name, outcomes=outcome_path,
                mutants=[mutants_paths[suite.name]], docs=[docs_path], meta=meta,
                output=example_path, k=args.examples,
            )  # fmt: skip
            example_files.append(example_path)
    intersectional_order = 2 if 2 in orders else max(orders)
    rq1.write_tables(
        outcome_files,
        example_files,
        Path(layout.rq_dir(1)),
        datasets=[DATASET],
        examples=args.examples,
        order=intersectional_order,
    )
    rq1.write_figures(layout.rq_dir(1), layout.rq_dir(1))
    return out


def print_summary(out: Path, examples: int) -> None:
    """Rates per suite, the truth table and a few hidden-bias examples, on the terminal."""
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    tables_dir = Path(RunLayout(str(out)).rq_dir(1))
    console = Console()
    console.width = max(console.width, 100)  # pipes default to 80 columns: too narrow for the table
    rates = pd.read_csv(tables_dir / "rates_by_suite.csv")
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
    summary = [line for line in truth.splitlines() if line.startswith("Hidden intersectional")]
    for line in summary:
        console.print(line)
    examples_path = tables_dir / "hidden_examples.md"
    console.print(f"\nTables: {tables_dir} (truth table, examples: {examples_path.name})")


def run_mutate(args: argparse.Namespace) -> None:
    """Print the atomic (and intersectional) mutants of one text."""
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.edits import apply_edits
    from hinter.mutation.generate import SuiteMutator, pairs_from_table

    attributes = [a.strip() for a in args.attributes.split(",") if a.strip()]
    compiled = dictionary_pairs.compile_dictionary(attributes, Path(args.dictionary))
    pairs = pairs_from_table(compiled.table, attributes)
    orders = [int(o) for o in args.orders.split(",")]
    shown = 0
    for suite in suites_for(attributes, orders):
        mutator = SuiteMutator(pairs, plan.parse_suite(suite.name))
        for mutant in mutator.mutants("text", args.text):
            if shown >= args.limit:
                return
            used = [mutator.pairs[pid] for pid in mutant.pair_ids]
            changes = "; ".join(f"{p.source} → {p.target}" for p in used)
            print(f"[{suite.name}] {changes}\n    {apply_edits(args.text, mutant.edits)}")
            shown += 1


# --------------------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hinter",
        description="Atomic, intersectional and hidden intersectional bias testing (HInter).",
    )
    parser.add_argument("--version", action="version", version=f"hinter {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every stage")
    sub = parser.add_subparsers(dest="command", required=True)
    dictionary = str(REPO_ROOT / "resources" / "dictionary")

    test = sub.add_parser(
        "test",
        help="bias-test a fine-tuned classifier on a file of texts",
        description="Mutate the texts with the bias dictionary, keep mutants that pass the "
        "dependency invariant, predict originals and mutants, and report atomic, "
        "intersectional and hidden intersectional bias.",
    )
    test.add_argument(
        "model", help="a fine-tuned model directory (config.json, safetensors, tokenizer)"
    )
    test.add_argument("data", help="texts: .csv, .tsv, .parquet or .jsonl")
    test.add_argument("--text-column", default="text")
    test.add_argument("--label-column", default=None, help="gold labels (ids, names or JSON lists)")
    test.add_argument("--id-column", default=None)
    test.add_argument("--task-type", choices=["multi_class", "multi_label"], default=None)
    test.add_argument("--attributes", default="race,gender,body")
    test.add_argument("--orders", default="1,2", help="mutation orders, e.g. 1,2,3")
    test.add_argument("--pairing", choices=["as_published", "complete"], default="as_published")
    test.add_argument("--dictionary", default=dictionary, help="curated dictionary folder")
    test.add_argument(
        "--parser",
        default="en_core_web_sm",
        help="spaCy pipeline of the invariant: en_core_web_sm (spaCy's package if installed, "
        "else the pinned offline re-upload), another installed package, or a directory",
    )
    test.add_argument("--no-invariant", action="store_true", help="keep every mutant (MUTAINT)")
    test.add_argument("--max-sentence-chars", type=int, default=500)
    test.add_argument("--max-mutants-per-document", type=int, default=None)
    test.add_argument("--max-documents", type=int, default=None)
    test.add_argument("--threshold", type=float, default=0.0, help="confidence threshold 0..1")
    test.add_argument("--batch-size", type=int, default=32)
    test.add_argument("--examples", type=int, default=5)
    test.add_argument("--seed", type=int, default=42)
    test.add_argument("--cache-dir", default=None)
    test.add_argument("--out", default=None, help="output folder (default hinter-test-<model>)")

    sbic = sub.add_parser("sbic-download", help="download, verify and extract SBIC.v2.tgz")
    sbic.add_argument("--url", default=None, help="http(s) URL, file:// URL or local path")
    sbic.add_argument("--dest", default=str(REPO_ROOT / "resources" / "sbic"))
    sbic.add_argument(
        "--checksums", default=str(REPO_ROOT / "resources" / "sbic" / "checksums.sha256")
    )
    sbic.add_argument(
        "--record",
        action="store_true",
        help="no digest recorded for the archive: record the downloaded one (trust on first use)",
    )

    mutate = sub.add_parser("mutate", help="show the mutants of one text")
    mutate.add_argument("text")
    mutate.add_argument("--attributes", default="race,gender,body")
    mutate.add_argument("--orders", default="1,2")
    mutate.add_argument("--dictionary", default=dictionary)
    mutate.add_argument("--limit", type=int, default=20)

    from hinter import estimate

    estimate.add_arguments(
        sub.add_parser("estimate", help="jobs, CPU- and GPU-hours a config will cost")
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command == "test":
            out = run_test(args)
            print_summary(out, args.examples)
        elif args.command == "mutate":
            run_mutate(args)
        elif args.command == "estimate":
            from hinter import estimate

            print(estimate.run(args))
        elif args.command == "sbic-download":
            from hinter import sbic

            url = args.url or sbic.DEFAULT_URL
            for path in sbic.acquire(url, args.dest, args.checksums, record=args.record):
                print(path)
    except HinterError as exc:
        print(f"hinter: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
