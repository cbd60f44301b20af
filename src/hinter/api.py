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

    @classmethod
    def load(cls, p: testrun.TestPlan) -> Result:
        layout = RunLayout(str(p.out))
        names = [m.name for m in p.models]
        counts = testrun.suite_counts(p.out, names[0])
        pooled = gate.pooled_rates(counts)
        verdict = gate.evaluate(pooled, p.thresholds)
        comparison = None
        if len(names) > 1:
            from hinter.compare import compare_models

            outcomes = {n: _outcomes(layout, n, p.suites) for n in names}
            comparison = compare_models(outcomes, names[0], seed=p.settings["seed"])
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
            rates=pooled_intervals(layout),
            suites=_csv(layout, "rates_by_suite"),
            truth_table=_csv(layout, "truth_table"),
            examples=_csv(layout, "hidden_examples"),
            pooled=pooled,
            verdict=verdict,
            comparison=comparison,
            about={"model": models[0], "compared": models[1:], "data": data,
                   "thresholds": p.thresholds, "settings": p.settings},
        )  # fmt: skip

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
        if self.comparison is not None:
            document["compared"] = self.about["compared"]
            document["comparison"] = json.loads(self.comparison.to_json(orient="records"))
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


def pooled_intervals(layout: RunLayout) -> pd.DataFrame:
    """Each model's pooled atomic, intersectional and hidden rates with their intervals (%)."""
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
    order = {"atomic": 0, "intersectional": 1, "hidden": 2}
    rank = frame["rate"].map(order)
    return (
        frame.assign(_rank=rank)
        .sort_values(["model", "_rank"], kind="stable")
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


__all__ = ["BiasTest", "Result", "Threshold"]
