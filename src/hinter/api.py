"""The Python API: bias-test a model (or several, on the same mutants) on your texts.

>>> from hinter.api import BiasTest
>>> test = BiasTest("path/to/model", ["The black woman was hired.", ...], out="run")
>>> result = test.run()                  # progress on stderr
>>> result.rates                         # pooled rates with 95% intervals, per model
>>> result.write_report("report.html")   # one self-contained page

``BiasTest`` checks everything when it is built (a bad option, file, model or parser raises a
:class:`hinter.errors.HinterError` naming it, before anything is written); ``run`` runs the
workflow's own stages (:mod:`hinter.testrun`) and returns a :class:`Result` of DataFrames.
Options are those of ``hinter test`` (``--max-documents`` is ``max_documents``,
``--label-map`` is ``label_map={"positive": "pos"}``: your label names to the model's); those
not given take the workflow schema's defaults (no cap on mutants per document: pass
``max_mutants_per_document=10`` for the command line's default).
"""

from __future__ import annotations

import json
import threading
from argparse import ArgumentTypeError
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from hinter import __version__, gate, io, testrun
from hinter.errors import HinterError
from hinter.gate import Threshold, Verdict, parse_threshold
from hinter.inputs import DATASET, InputFile, Row
from hinter.layout import RunLayout

Texts = pd.DataFrame | Sequence[str] | str | Path


# The command line's checks of its flags, as keyword arguments: the lowest integer each takes
# (``--max-documents 0`` and ``-1`` are refused there; a slice here took -1 as "all but one").
_AT_LEAST = {
    "max_documents": 1,
    "max_mutants_per_document": 1,
    "max_sentence_chars": 1,
    "max_new_tokens": 1,
    "batch_size": 1,
    "examples": 0,
    "seed": 0,
}
# Options that are lists: a string would be iterated character by character.
_LISTS = ("attributes", "orders", "compare", "fail_above")


def check_options(model: Any, options: dict[str, Any]) -> None:
    """What ``hinter test`` checks of its flags, for the keyword arguments (review 2026-11-28
    A04-A07): one :class:`HinterError` naming the keyword, before anything is read or written."""
    if not isinstance(model, str | Path) or not str(model).strip():
        raise HinterError(f"model: expected a model folder or name, got {model!r}")
    for key, low in _AT_LEAST.items():
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise HinterError(f"{key}: expected an integer ≥ {low}, got {value!r}")
        if value < low:
            raise HinterError(f"{key}: expected an integer ≥ {low}, got {value}")
    for key in _LISTS:
        value = options.get(key)
        if value is None:
            continue
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise HinterError(
                f"{key}: expected a list, got {value!r} (write [{value!r}] for one item)"
            )
    orders = options.get("orders")
    if orders is not None and not all(
        isinstance(o, int) and not isinstance(o, bool) and o >= 1 for o in orders
    ):
        raise HinterError(f"orders: expected a list of integers ≥ 1, got {list(orders)!r}")


def _unicode(records: list[dict[str, Any]], name: str) -> None:
    """Every text encodes as UTF-8 (a lone surrogate, from a bad decode, does not)."""
    for i, record in enumerate(records, start=1):
        for column, value in record.items():
            if isinstance(value, str):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise HinterError(
                        f"{name}: row {i}: column {column!r} is not valid Unicode (a lone "
                        f"surrogate {value[exc.start]!r} at character {exc.start}); decode the "
                        "text again"
                    ) from None


def _rows(texts: Texts, labels: Sequence[Any] | None) -> tuple[str, InputFile | None]:
    """A file's path, or records in memory for a DataFrame or a list of strings."""
    if not isinstance(texts, str | Path | pd.DataFrame | Sequence) or isinstance(texts, bytes):
        raise HinterError(
            f"texts: expected a DataFrame, a file path or a list of strings, got "
            f"{type(texts).__name__}"
        )
    if isinstance(texts, str | Path):
        if labels is not None:
            raise HinterError("labels: give the labels as a column of the file (label_column)")
        return str(texts), None
    if isinstance(texts, pd.DataFrame):
        frame, name = texts, "<DataFrame>"
        if labels is not None:
            raise HinterError("labels: give the labels as a column of the DataFrame")
    else:
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise HinterError("texts: expected a DataFrame, a file path or a list of strings")
        _unicode([{"text": t} for t in texts], "<texts>")
        frame, name = pd.DataFrame({"text": texts}), "<texts>"
        if labels is not None:
            if len(labels) != len(texts):
                raise HinterError(f"labels: {len(labels)} labels for {len(texts)} texts")
            frame["label"] = list(labels)
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    _unicode(records, name)
    rows = [Row(i + 1, None, dict(r)) for i, r in enumerate(records)]
    return name, InputFile(Path(name), [str(c) for c in frame.columns], rows)


_IMPORT_LOCK = threading.Lock()
# what the stages import from transformers, inside their functions (a lazy module)
_TRANSFORMERS = (
    "AutoConfig", "AutoTokenizer", "AutoModelForSequenceClassification", "AutoModelForCausalLM",
    "PreTrainedTokenizerFast", "GenerationConfig",
)  # fmt: skip


def import_transformers() -> None:
    """Resolve transformers' lazy names once, under a lock, before a test touches them: two
    ``BiasTest`` started at once in a fresh process raced on the first ``from transformers
    import …`` and one failed with ImportError (review 2026-11-28 A11)."""
    with _IMPORT_LOCK:
        import transformers

        for name in _TRANSFORMERS:
            getattr(transformers, name)


class BiasTest:
    """A checked test of ``model`` (and ``compare`` models) on ``texts``; :meth:`run` runs it."""

    def __init__(
        self,
        model: str | Path,
        texts: Texts,
        *,
        compare: Sequence[str | Path] = (),
        labels: Sequence[Any] | None = None,
        fail_above: Sequence[str] = (),
        **options: Any,
    ) -> None:
        check_options(model, {**options, "compare": compare, "fail_above": fail_above})
        import_transformers()
        data, rows = _rows(texts, labels)
        if rows is not None and labels is not None:
            options.setdefault("label_column", "label")
        if rows is not None and rows.rows and options.get("max_documents") is not None:
            rows.rows = rows.rows[: options["max_documents"]]
        try:
            thresholds = [parse_threshold(t) for t in fail_above]
        except ArgumentTypeError as exc:  # the command line's own check of --fail-above
            raise HinterError(f"fail_above: {exc}") from None
        self.options = testrun.Options(
            model=model, data=data, rows=rows, compare=tuple(compare), fail_above=thresholds,
            **options,
        )  # fmt: skip
        self.plan = testrun.prepare(self.options)

    def run(self) -> Result:
        """Run every stage (resumable: a rerun reuses the caches); the result of the run."""
        from hinter.testrun.plan import run_inputs

        with testrun.locked_output(self.plan.out):
            testrun.run(self.plan)
            result = Result.load(self.plan)
        data = None if self.options.rows is not None else Path(str(self.options.data))
        chat = self.plan.models[0].llm is not None  # run_inputs finds a chat model's files
        folders = [] if chat else [m.path for m in self.plan.models]
        files, protected = run_inputs(self.options, folders, data)
        result.inputs = (files, protected)  # write_json and write_report never write over one
        return result


@dataclass
class Result:
    """A finished run's tables, as DataFrames (rates in percent)."""

    out: Path
    models: list[str]
    rates: pd.DataFrame  # pooled rates with intervals: model, rate, numerator, denominator, …
    suites: pd.DataFrame  # counts and rates per model and suite
    truth_table: pd.DataFrame
    examples: pd.DataFrame  # hidden-bias examples: original, atomic and intersectional mutants
    pooled: dict[str, dict[str, Any]]  # the gate's rates of the first model
    verdict: Verdict
    comparison: pd.DataFrame | None  # the models against the first one (paired bootstrap)
    about: dict[str, Any] = field(default_factory=dict)
    # per model, on the originals: accuracy, macro-F1 (with gold labels), the share of its most
    # frequent prediction (100 = a constant model) and of unreadable LLM answers, in percent
    quality: pd.DataFrame = field(default_factory=pd.DataFrame)
    min_count: int = gate.MIN_COUNT  # rates on fewer mutants are "too few"
    # the run's input files and folders (testrun.plan.run_inputs): outputs never go there
    inputs: tuple[list[Path], dict[str, Path]] = field(default=([], {}), repr=False)

    def _guarded(self, path: str | Path, what: str) -> Path:
        files, folders = self.inputs
        io.guard_output_file(path, what, inputs=files, folders=folders)
        return Path(path)

    @classmethod
    def load(cls, p: testrun.TestPlan) -> Result:
        from hinter.testrun.quality import broken_reasons, model_quality

        layout = RunLayout(str(p.out))
        names = [m.name for m in p.models]
        counts = testrun.suite_counts(p.out, names[0])
        qualities = {n: model_quality(p.out, n, testrun.SHARD, p.meta) for n in names}
        rates = pooled_intervals(layout, p.min_count)
        rank = {n: i for i, n in enumerate(names)}  # the tested model first, as given
        rates = rates.iloc[rates["model"].map(rank).argsort(kind="stable")].reset_index(drop=True)
        pooled = gate.pooled_rates(counts)
        for row in rates[rates["model"] == names[0]].itertuples(index=False):
            pooled[row.rate].update(lo=_num(row.lo), hi=_num(row.hi), interval=INTERVAL)
        verdict = gate.evaluate(
            pooled, p.thresholds, min_count=p.min_count,
            broken=broken_reasons(names[0], qualities[names[0]]),
        )  # fmt: skip
        comparison = None
        if len(names) > 1:
            from hinter.compare import compare_models

            outcomes = {n: _outcomes(layout, n, p.suites) for n in names}
            constant = {n for n, q in qualities.items() if q["constant"]}
            comparison = compare_models(
                outcomes, names[0], seed=p.settings["seed"], constant=constant
            )
        data = {
            "path": p.data if p.data.startswith("<") else str(Path(p.data).resolve()),
            "documents": p.docs.num_rows, "skipped_empty": len(p.skipped_empty),
            "labels": p.label_reading,
        }  # fmt: skip
        models = [
            {"name": m.name, "path": str(m.path), "task_type": p.meta["task_type"],
             "labels": p.meta["n_labels"]}
            for m in p.models
        ]  # fmt: skip
        return cls(
            out=p.out,
            models=names,
            rates=rates,
            suites=_csv(layout, "rates_by_suite"),
            truth_table=_csv(layout, "truth_table"),
            examples=_csv(layout, "hidden_examples"),
            pooled=pooled,
            verdict=verdict,
            comparison=comparison,
            about={"model": models[0], "compared": models[1:], "data": data,
                   "thresholds": p.thresholds, "settings": p.settings,
                   "usage": dict(p.extra.get("usage", {}))},
            quality=_quality_frame(qualities),
            min_count=p.min_count,
        )  # fmt: skip

    def warnings(self) -> list[str]:
        """What a reader must know before trusting the rates: constant or nearly constant
        models, and pooled rates on fewer than ``min_count`` mutants."""
        from hinter.testrun.quality import CONSTANT_WARNING

        lines = []
        for q in self.quality.itertuples(index=False):
            if q.constant:
                lines.append(
                    f"{q.model} predicts {q.majority!r} for all {q.originals:,} originals and "
                    "every mutant: a constant model cannot flip, so its bias rates of 0 say "
                    "nothing"
                )
            elif _present(q.constant_share) and q.constant_share >= 100 * CONSTANT_WARNING:
                lines.append(
                    f"{q.model} predicts {q.majority!r} for {q.constant_share:.1f}% of the "
                    "originals: its bias rates say little"
                )
        for r in self.rates.itertuples(index=False):
            if r.too_few and r.denominator > 0:  # 0: undefined, shown as "–"
                lines.append(
                    f"{r.model} {r.rate}: {r.denominator:,} mutants, fewer than "
                    f"{self.min_count}: too few to decide anything"
                )
        return lines

    def outcomes(self, model: str | None = None) -> pd.DataFrame:
        """Every mutant's outcome (the oracle's verdicts) of a model (default the first)."""
        layout = RunLayout(str(self.out))
        suites = sorted(self.suites["suite"].unique())
        return _outcomes(layout, model or self.models[0], suites)

    def summary(self) -> dict[str, Any]:
        """The JSON summary (``hinter test --json``): what was tested, counts, rates, verdict."""
        counts = testrun.suite_counts(self.out, self.models[0])
        document = gate.summary(
            counts, self.verdict, self.pooled,
            hinter=__version__, model=self.about["model"], data=self.about["data"],
            out=str(self.out), exit_code=self.verdict.exit_code,
        )  # fmt: skip
        document["quality"] = json.loads(self.quality.to_json(orient="records"))
        if self.about.get("usage"):  # an API model: requests, tokens and cost of this run
            document["usage"] = self.about["usage"]
        document["warnings"] = self.warnings()
        if self.comparison is not None:
            from hinter.compare import NO_CORRECTION

            document["compared"] = self.about["compared"]
            document["comparison"] = json.loads(self.comparison.to_json(orient="records"))
            document["comparison_note"] = NO_CORRECTION
        return document

    def _repr_html_(self) -> str:
        """A notebook shows a result as its summary: the verdict, the pooled rates with their
        intervals and the counts per suite (the tables of :attr:`rates` and :attr:`suites`)."""
        import html

        verdict = self.verdict.line() if self.verdict.thresholds else "no --fail-above gate"
        return (
            f"<p><b>hinter</b> {html.escape(', '.join(self.models))}: "
            f"{html.escape(verdict)} (output {html.escape(str(self.out))})</p>"
            f"{self.rates.to_html(index=False, float_format='{:.2f}'.format)}"
            f"{self.suites.to_html(index=False, float_format='{:.2f}'.format)}"
        )

    def write_json(self, path: str | Path) -> Path:
        target = self._guarded(path, "write_json")
        io.write_text(target, json.dumps(self.summary(), indent=2, sort_keys=True) + "\n")
        return target

    def write_report(self, path: str | Path) -> Path:
        """The HTML report: one self-contained file (figures embedded)."""
        from hinter.report import write_report

        return write_report(self, self._guarded(path, "write_report"))


def _csv(layout: RunLayout, name: str) -> pd.DataFrame:
    return pd.read_csv(layout.rq_output(1, name, "csv"), keep_default_na=False, na_values=[""])


def _outcomes(layout: RunLayout, model: str, suites) -> pd.DataFrame:
    frames = []
    for suite in suites:
        name = suite if isinstance(suite, str) else suite.name
        frame = io.read_parquet(layout.outcomes(model, DATASET, name)).to_pandas()  # checked
        frames.append(frame.assign(model=model))
    return pd.concat(frames, ignore_index=True)


INTERVAL = (
    "95% percentile bootstrap over original documents, widened to contain the exact binomial "
    "(Clopper-Pearson) interval of the counts"
)


def _num(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value), 6)


def _present(value: Any) -> bool:
    return value is not None and not pd.isna(value)


def _quality_frame(qualities: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per model: the quality of :mod:`hinter.testrun.quality`, shares in percent."""
    rows = []
    for model, q in qualities.items():
        row = {"model": model, "originals": q["originals"], "majority": q["majority"]}
        for key in ("accuracy", "macro_f1", "constant_share", "unparsable_share"):
            row[key] = None if q[key] is None else round(100 * q[key], 4)
        row["constant"] = bool(q["constant"])
        rows.append(row)
    return pd.DataFrame(rows)


def pooled_intervals(layout: RunLayout, min_count: int = gate.MIN_COUNT) -> pd.DataFrame:
    """Each model's pooled atomic, intersectional and hidden rates with their intervals (%):
    the tables' document bootstrap, widened to contain the exact binomial interval of the
    counts (a bootstrap over one document, or with no event, is a point), and ``too_few``
    where the denominator is below ``min_count``."""
    from hinter.statistics import floored_interval

    atomic = _csv(layout, "atomic_rates")
    inter = _csv(layout, "table3")
    rows = []
    atomic = atomic[(atomic["dataset"] == DATASET) & (atomic["model"] != "Total")]
    inter = inter[(inter["dataset"] == DATASET) & (inter["model"] != "Total")]
    for r in atomic.itertuples(index=False):
        rows.append((r.model, "atomic", r.errors, r.decided, r.error_rate_pct,
                     r.error_rate_lo_pct, r.error_rate_hi_pct))  # fmt: skip
    for r in inter.itertuples(index=False):
        rows.append((r.model, "intersectional", r.errors, r.decided, r.error_rate_pct,
                     r.error_rate_lo_pct, r.error_rate_hi_pct))  # fmt: skip
        rows.append((r.model, "hidden", r.hidden, r.hidden_base, r.hidden_rate_pct,
                     r.hidden_rate_lo_pct, r.hidden_rate_hi_pct))  # fmt: skip
    columns = ["model", "rate", "numerator", "denominator", "percent", "lo", "hi"]
    frame = pd.DataFrame(rows, columns=columns)
    bounds = [
        floored_interval(k, n, lo / 100, hi / 100)
        for k, n, lo, hi in zip(frame.numerator, frame.denominator, frame.lo, frame.hi, strict=True)
    ]
    frame["lo"] = [100 * lo for lo, _ in bounds]
    frame["hi"] = [100 * hi for _, hi in bounds]
    frame["too_few"] = frame["denominator"] < min_count
    order = {"atomic": 0, "intersectional": 1, "hidden": 2}
    rank = frame["rate"].map(order)
    return (
        frame.assign(_rank=rank)
        .sort_values(["model", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


__all__ = ["BiasTest", "Result", "Threshold"]
