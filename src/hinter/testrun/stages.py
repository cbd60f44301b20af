"""The stages of a checked test run, each the same stage-level function a workflow rule runs.

Every model is predicted on the same mutants and validity (one mutation and invariant pass):
their outcomes differ only by the model, which is what a comparison needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hinter import io, plan, tables
from hinter.inputs import DATASET
from hinter.layout import RunLayout
from hinter.testrun import dryrun
from hinter.testrun.plan import TestPlan

SHARD = "000"
TRACK = "model"  # hinter.testrun.dryrun repeats both (it cannot import this module)
# Mutants predicted per chunk: the predict bar moves once a chunk, so a CPU run of a few
# thousand texts moves every ~minute instead of once at the end (review 2026-11-28 P10).
PREDICT_CHUNK = 256


def say(message: str) -> None:
    """A status line on stderr (stdout holds the results)."""
    print(f"hinter: {message}", file=sys.stderr, flush=True)


def plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def run(p: TestPlan) -> Path:
    """Run every stage of a checked plan; return the output (run) directory."""
    _announce(p)
    layout = RunLayout(str(p.out))
    docs_path, meta_path, pairs_path = _inputs(p, layout)
    chat = p.models[0].llm is not None
    if chat:
        from hinter.testrun import llm

        spec = p.models[0].llm
        spec["model"] = llm.resolve_local(str(spec["model"]), p.cache_dir)  # a GGUF: converted
    mutants = _mutate(p, layout, docs_path, pairs_path)
    dryrun.warn_if_large(dryrun.counted(p, layout, mutants), p)
    validity = _check(p, layout, docs_path, mutants)
    for model in p.models:
        if chat:
            _predict_llm(p, layout, model, docs_path, meta_path, mutants, validity)
        else:
            _predict(p, layout, model, docs_path, meta_path, mutants, validity)
    _judge(p, layout, docs_path, mutants, validity)
    _groups(p, layout, pairs_path)
    return p.out


def dry_run(p: TestPlan, prices: tuple[float, float] | None = None) -> dryrun.Projection:
    """``--dry-run``: mutate into a scratch folder, count and project; print the plan. Nothing
    is parsed, predicted or sent, and ``p.out`` is not touched."""
    import dataclasses
    import tempfile

    _announce(p)
    with tempfile.TemporaryDirectory(prefix="hinter-dry-run-") as tmp:
        # A scratch cache too (an API model's response cache is opened by its backend); only a
        # GGUF conversion, a cache worth keeping for the run, goes to the run's cache folder.
        scratch = dataclasses.replace(
            p, out=Path(tmp), cache_dir=Path(tmp) / "cache", extra=dict(p.extra)
        )
        layout = RunLayout(tmp)
        if scratch.models[0].llm is not None:
            from hinter.testrun import llm

            spec = dict(scratch.models[0].llm)
            spec["model"] = llm.resolve_local(str(spec["model"]), p.cache_dir)
            scratch.models = [dataclasses.replace(scratch.models[0], llm=spec)]
        docs_path, _, pairs_path = _inputs(scratch, layout)
        mutants = _mutate(scratch, layout, docs_path, pairs_path, quiet=True)
        projection = dryrun.counted(scratch, layout, mutants, prices)
    dryrun.print_plan(projection, p)
    dryrun.warn_if_large(projection, p)
    return projection


def _announce(p: TestPlan) -> None:
    n_docs = p.docs.num_rows
    suite_names = ", ".join(s.name for s in p.suites)
    first = p.models[0]
    others = "".join(f", {m.name}" for m in p.models[1:])
    window = (
        f"prompt {first.task.name}, answers of {first.task.max_new_tokens} tokens"
        if first.llm
        else f"window {first.window} tokens"
    )
    say(
        f"testing {first.name}{others} ({p.meta['n_labels']} labels, {p.meta['task_type']}, "
        f"{window}) on {plural(n_docs, 'document')} of {p.data}: "
        f"{len(p.suites)} suites ({suite_names}); "
        + (f"invariant parser {p.parser}" if p.parser else "no invariant")
        + f"; output {p.out}"
    )
    if p.skipped_empty:
        rows = ", ".join(map(str, p.skipped_empty[:10]))
        more = "…" if len(p.skipped_empty) > 10 else ""
        say(f"skipped {plural(len(p.skipped_empty), 'empty text')} (rows {rows}{more})")


def _inputs(p: TestPlan, layout: RunLayout) -> tuple[Path, Path, Path]:
    """The tested documents, their label space and the compiled dictionary, as the workflow's."""
    from hinter.dictionary import pairs as dictionary_pairs

    docs_path = Path(layout.tested(DATASET, SHARD))
    meta_path = Path(layout.meta(DATASET))
    io.write_parquet(p.docs, docs_path, tables.TESTED_DOCUMENTS, row_group_size=64)
    io.write_json(meta_path, p.meta)
    pairs_path = Path(layout.dictionary("pairs.parquet"))
    dictionary_pairs.write_compiled(p.compiled, pairs_path, Path(layout.dictionary("review.tsv")))
    if p.models[0].llm is not None:  # an LLM's few-shot examples come from the labelled texts
        train = p.docs.select(["doc_id", "text", "labels"]).cast(tables.DOCUMENTS)
        io.write_parquet(train, layout.documents(DATASET, "train"), tables.DOCUMENTS)
    return docs_path, meta_path, pairs_path


def _mutate(
    p: TestPlan, layout: RunLayout, docs_path: Path, pairs_path: Path, quiet: bool = False
) -> dict:
    """Every suite's mutants, within what the smallest window of the models sees (measured
    with the first model's tokenizer)."""
    import pyarrow.parquet as pq

    from hinter.mutation import mutate_job
    from hinter.progress import Progress

    n_docs = p.docs.num_rows
    window, excluded = None, ()
    if p.models[0].llm is not None:  # what the LLM reads, its few-shot examples left out
        track_spec = {"from_models": True}
        window, excluded = _llm_window(p, layout)
    else:
        smallest = min(m.window for m in p.models)
        track_spec = {"tokenizer": str(p.models[0].path), "max_tokens": smallest}
    paths = {}
    with Progress("mutate", n_docs * len(p.suites), "documents") as bar:
        for suite in p.suites:
            key = (TRACK, DATASET, suite.name, SHARD)
            paths[suite.name] = Path(layout.mutants(*key))
            mutate_job(
                str(docs_path), str(pairs_path), str(paths[suite.name]),
                layout.mutant_stats(*key),
                suite=suite, track=TRACK, track_spec=track_spec, dataset=DATASET, shard=SHARD,
                n_shards=1, mutation=p.settings["mutation"], seed=p.settings["seed"],
                window=window, excluded=excluded, progress=bar.update,
            )  # fmt: skip
    rows = sum(pq.ParquetFile(path).metadata.num_rows for path in paths.values())
    written = sum(
        io.read_json(layout.mutant_stats(TRACK, DATASET, s.name, SHARD))["written"]
        for s in p.suites
    )
    if not quiet:  # the same count as the predict bar's total and --dry-run's
        say(
            f"{plural(written, 'mutant')} in {len(p.suites)} suites ({rows:,} rows "
            f"with parents); up to {n_docs + rows:,} texts to predict"
        )
    p.extra["mutant_rows"] = rows
    return paths


def _check(p: TestPlan, layout: RunLayout, docs_path: Path, mutants: dict) -> dict:
    """Every suite's validity; atomic suites first, so intersectional parents reuse verdicts."""
    from hinter.invariant import check_shard
    from hinter.progress import Progress

    paths: dict[str, Path] = {}
    with Progress("invariant", p.extra["mutant_rows"], "mutants") as bar:
        for suite in p.suites:
            key = (TRACK, DATASET, suite.name, SHARD)
            paths[suite.name] = Path(layout.validity(*key))
            atomic = (
                [paths[plan.suite_name((a,))] for a in suite.attributes] if suite.order > 1 else []
            )
            check_shard(
                mutants[suite.name], docs_path, paths[suite.name],
                Path(layout.validity_stats(*key)),
                pipeline=p.parser or "", invariant=p.settings["invariant"],
                cache_dir=p.cache_dir, suite=suite.name, shard=SHARD, atomic_validity=atomic,
                progress=bar.update, chunk_rows=2000,
            )  # fmt: skip
    return paths


def _predict(p, layout, model, docs_path, meta_path, mutants: dict, validity: dict) -> None:
    from hinter.models.encoder import predict_shard

    inference = p.settings["models"]["inference"]
    predict_shard(
        model_dir=model.path,
        docs_path=docs_path,
        mutants_paths=list(mutants.values()),
        validity_paths=list(validity.values()),
        meta_path=meta_path,
        out_path=Path(layout.predictions(model.name, DATASET, SHARD)),
        inference={**inference, "chunk_size": min(PREDICT_CHUNK, int(inference["chunk_size"]))},
        keep_discarded=p.settings["invariant"]["keep_discarded"],
        cache_dir=p.cache_dir,
    )


def _llm_window(p: TestPlan, layout: RunLayout):
    from hinter.models.llm import track_setup

    model = p.models[0]
    return track_setup(
        [(model.name, model.llm, ["default"])], dataset=DATASET,
        meta_path=layout.meta(DATASET), train_path=layout.documents(DATASET, "train"),
        cache_dir=p.cache_dir, from_hub=False, prompts_dir=model.task.folder,
    )  # fmt: skip


def _predict_llm(p, layout, model, docs_path, meta_path, mutants: dict, validity: dict) -> None:
    """The workflow's LLM predictor; its dry cost estimate (before any request) and its API
    usage on stderr."""
    import logging

    from hinter.models.predictor import PredictJob, load_predictor
    from hinter.models.stage import run_predict_stage

    inference = p.settings["models"]["inference"]
    job = PredictJob(
        model=model.name, kind="llm", dataset=DATASET, variant="default", meta_path=meta_path,
        cache_dir=p.cache_dir, inference=inference, spec=model.llm,
        train_path=layout.documents(DATASET, "train"), from_hub=False,
        prompts_dir=model.task.folder,
    )  # fmt: skip
    predictor = load_predictor(job)
    logger = logging.getLogger("hinter.models.llm")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("hinter: %(message)s"))
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # one line each, whatever the root logger prints
    try:
        _llm_predict_stage(
            run_predict_stage,
            predictor, docs_path=docs_path, mutants_paths=list(mutants.values()),
            validity_paths=list(validity.values()),
            out_path=layout.predictions(model.name, DATASET, SHARD),
            keep_discarded=p.settings["invariant"]["keep_discarded"],
            chunk_size=int(inference["chunk_size"]),
        )  # fmt: skip
    finally:  # the stage closes the predictor (its API usage is logged then)
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    summary = getattr(getattr(predictor, "backend", None), "summary", None)
    if summary is not None:  # requests, tokens, cost: for the report and --json
        p.extra.setdefault("usage", {})[model.name] = summary()


def _llm_predict_stage(stage, predictor, **kwargs) -> None:
    """The predict stage, its errors in the command line's words (``--max-cost-usd``)."""
    from hinter.errors import HinterError

    try:
        stage(predictor, **kwargs)
    except HinterError as exc:
        text = str(exc).replace("exceeds max_cost_usd", "exceeds --max-cost-usd")
        if text == str(exc):
            raise
        raise type(exc)(text) from None


def _judge(p: TestPlan, layout: RunLayout, docs_path: Path, mutants: dict, validity: dict):
    """The oracle's outcomes and hidden-bias examples of every model, then the RQ1 tables."""
    from hinter import oracle
    from hinter.plots import rq1 as rq1_plots
    from hinter.rq import examples, rq1
    from hinter.rq.intervals import Bootstrap
    from hinter.rq.outcomes import OutcomeFile

    settings = p.settings["oracle"]
    outcome_files, example_files = [], []
    for model in p.models:
        predictions = Path(layout.predictions(model.name, DATASET, SHARD))
        for suite in p.suites:
            outcome_path = Path(layout.outcomes(model.name, DATASET, suite.name))
            oracle.write_suite_outcomes(
                suite.name, docs=[docs_path], mutants=[mutants[suite.name]],
                validity=[validity[suite.name]], predictions=[predictions], meta=p.meta,
                output=outcome_path, threshold=settings["confidence_threshold"],
            )  # fmt: skip
            outcome_files.append(OutcomeFile(model.name, DATASET, suite.name, outcome_path))
            if suite.order > 1:
                example_path = Path(layout.examples(model.name, DATASET, suite.name))
                examples.write_hidden_examples(
                    model=model.name, dataset=DATASET, suite=suite.name, outcomes=outcome_path,
                    mutants=[mutants[suite.name]], docs=[docs_path], meta=p.meta,
                    output=example_path, k=settings["examples"],
                    context=settings["example_context"],
                )  # fmt: skip
                example_files.append(example_path)
    rq1.write_tables(
        outcome_files,
        example_files,
        Path(layout.rq_dir(1)),
        datasets=[DATASET],
        examples=settings["examples"],
        order=2 if 2 in p.orders else max(p.orders),
        boot=Bootstrap(seed=p.settings["seed"]),  # the intervals: config defaults, the run's seed
    )
    rq1_plots.write_figures(layout.rq_dir(1), layout.rq_dir(1))


def _groups(p: TestPlan, layout: RunLayout, pairs_path: Path) -> None:
    """Group-level bias (error rates per attribute class and class pair) and its heatmap."""
    from hinter.plots import groups as group_plots
    from hinter.rq import groups
    from hinter.rq.intervals import Bootstrap
    from hinter.rq.outcomes import OutcomeFile

    files = [
        OutcomeFile(m.name, DATASET, s.name, Path(layout.outcomes(m.name, DATASET, s.name)))
        for m in p.models
        for s in p.suites
    ]
    boot = Bootstrap(seed=p.settings["seed"])
    groups.write_tables(files, pairs_path, layout.rq_dir(1), datasets=[DATASET], boot=boot)
    group_plots.write_figures(layout.rq_dir(1), layout.rq_dir(1))


def suite_counts(out: Path, model: str | None = None):
    """Per-suite counts (``hinter.rates.COUNT_COLUMNS``) of a finished run (of one model)."""
    import pandas as pd

    from hinter import rates

    frame = pd.read_csv(RunLayout(str(out)).rq_output(1, "rates_by_suite", "csv"))
    if model is not None:
        frame = frame[frame["model"] == model]
    # The table calls the tested mutants "mutants"; the rates module's count is "generated".
    frame = frame.rename(columns={"mutants": "generated"})
    return frame[["suite", "order", *rates.COUNT_COLUMNS]].reset_index(drop=True)
