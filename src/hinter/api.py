"""The Python API: bias-test a model (or several, on the same mutants) on your texts.

>>> from hinter.api import BiasTest
>>> test = BiasTest("path/to/model", ["The black woman was hired.", ...], out="run")
>>> result = test.run()                  # progress on stderr
>>> result.rates                         # pooled rates with 95% intervals, per model
>>> result.write_report("report.html")   # one self-contained page

``BiasTest`` checks everything when it is built (a bad option, file, model or parser raises a
:class:`hinter.errors.HinterError` naming it, before anything is written); ``run`` runs the
workflow's own stages (:mod:`hinter.testrun`) and returns a :class:`Result` of DataFrames.
Options are those of ``hinter test`` (``--max-documents`` is ``max_documents``); those not
given take the workflow schema's defaults.
"""

from __future__ import annotations

import json
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


def _rows(texts: Texts, labels: Sequence[Any] | None) -> tuple[str, InputFile | None]:
    """A file's path, or records in memory for a DataFrame or a list of strings."""
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
        frame, name = pd.DataFrame({"text": texts}), "<texts>"
        if labels is not None:
            if len(labels) != len(texts):
                raise HinterError(f"labels: {len(labels)} labels for {len(texts)} texts")
            frame["label"] = list(labels)
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    rows = [Row(i + 1, None, dict(r)) for i, r in enumerate(records)]
    return name, InputFile(Path(name), [str(c) for c in frame.columns], rows)


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
        data, rows = _rows(texts, labels)
        if rows is not None and labels is not None:
            options.setdefault("label_column", "label")
        if rows is not None and rows.rows and options.get("max_documents"):
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
        with testrun.locked_output(self.plan.out):
            testrun.run(self.plan)
            return Result.load(self.plan)


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

    def write_json(self, path: str | Path) -> Path:
        text = json.dumps(self.summary(), indent=2, sort_keys=True) + "\n"
        io.write_text(path, text)
        return Path(path)

    def write_report(self, path: str | Path) -> Path:
        """The HTML report: one self-contained file (figures embedded)."""
        from hinter.report import write_report

        return write_report(self, path)


def _csv(layout: RunLayout, name: str) -> pd.DataFrame:
    return pd.read_csv(layout.rq_output(1, name, "csv"), keep_default_na=False, na_values=[""])


def _outcomes(layout: RunLayout, model: str, suites) -> pd.DataFrame:
    frames = []
    for suite in suites:
        name = suite if isinstance(suite, str) else suite.name
        frame = pd.read_parquet(layout.outcomes(model, DATASET, name))
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
