"""004 Table 1's professor-review rows from a run, beside the paper's, with intervals and the
paper's orderings checked (not assumed); the human gender row of 004 Fig. 2; the classifier's
LAC test scores beside 004 Table 12.

Inputs are the per-text score tables the scoring rule writes (one per LLM, plus the human
reviews); every statistic is :mod:`hinter.labe.metric`'s, its interval a bootstrap over texts.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import pandas as pd

from hinter.labe import metric, paper
from hinter.render import Table, document, markdown_table

INTERVAL = "95% percentile bootstrap over texts (resampled within each race x gender group)"


def estimates(
    scored: Mapping[str, pd.DataFrame], *, resamples: int, seed: int, human: pd.DataFrame | None
) -> pd.DataFrame:
    """Every group mean, variance and gender gap of every source, with its interval."""
    frames = []
    for name, frame in scored.items():
        v, m = metric.bootstrap(frame, resamples=resamples, seed=seed)
        frames.append(metric.estimates_frame(v, m, source=name))
    if human is not None:
        v, m = metric.bootstrap(human, resamples=resamples, seed=seed, dimensions=("gender",))
        frames.append(metric.estimates_frame(v, m, source="human"))
    return pd.concat(frames, ignore_index=True)


def _fmt(value: float, low: float, high: float) -> str:
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def comparison(est: pd.DataFrame) -> pd.DataFrame:
    """One row per (LLM, dimension): ours with its interval, the paper's, the ratio."""
    rows = []
    for llm, reported in paper.TABLE1_PROFESSOR.items():
        part = est[(est["source"] == llm) & (est["kind"] == "variance")]
        if part.empty:
            continue
        for dim in (*metric.DIMENSIONS, metric.OVERALL):
            r = part[part["dimension"] == dim].iloc[0]
            rows.append(
                {
                    "llm": llm,
                    "dimension": dim,
                    "ours": r["value"],
                    "low": r["low"],
                    "high": r["high"],
                    "paper": reported[dim],
                    "paper_in_interval": bool(r["low"] <= reported[dim] <= r["high"]),
                }
            )
    return pd.DataFrame(rows)


def orderings(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims about professor reviews, each checked on our point values."""
    rows = []
    overall = table[table["dimension"] == metric.OVERALL].set_index("llm")
    present = [m for m in paper.OVERALL_ORDER if m in overall.index]
    if len(present) >= 2:
        values = [overall.loc[m, "ours"] for m in present]
        holds = all(a > b for a, b in itertools.pairwise(values))
        claim = " > ".join(paper.DISPLAY[m] for m in present) + " (overall)"
        rows.append(
            {"claim": claim, "paper": True, "ours": holds, "detail": _detail(present, values)}
        )
    for llm in paper.TABLE1_PROFESSOR:
        part = table[(table["llm"] == llm) & table["dimension"].isin(metric.DIMENSIONS)]
        if part.empty:
            continue
        largest = part.loc[part["ours"].idxmax(), "dimension"]
        reported = max(metric.DIMENSIONS, key=lambda d: paper.TABLE1_PROFESSOR[llm][d])
        rows.append(
            {
                "claim": f"{paper.DISPLAY[llm]}: intersectional is the largest dimension",
                "paper": reported == "intersectional",
                "ours": largest == "intersectional",
                "detail": f"largest here: {largest}",
            }
        )
    return pd.DataFrame(rows, columns=["claim", "paper", "ours", "detail"])


def _detail(models, values) -> str:
    return ", ".join(f"{paper.DISPLAY[m]} {v:.2f}" for m, v in zip(models, values, strict=True))


def table1(est: pd.DataFrame, classifier: Mapping | None = None) -> Table:
    """The paper-vs-run table (CSV: the comparison; Markdown: it, the orderings, the classifier
    and the human gender row)."""
    comp = comparison(est)
    order = orderings(comp)
    shown = pd.DataFrame(
        {
            "LLM": [paper.DISPLAY[m] for m in comp["llm"]],
            "bias dimension": comp["dimension"],
            "ours [95% CI]": [
                _fmt(*r) for r in comp[["ours", "low", "high"]].itertuples(index=False)
            ],
            "004 Table 1": [f"{v:.2f}" for v in comp["paper"]],
            "paper's value in our interval": [
                "yes" if v else "no" for v in comp["paper_in_interval"]
            ],
        }
    )
    checks = pd.DataFrame(
        {
            "claim": order["claim"],
            "in 004": ["holds" if v else "does not hold" for v in order["paper"]],
            "in this run": ["holds" if v else "does not hold" for v in order["ours"]],
            "detail": order["detail"],
        }
    )
    right = ["ours [95% CI]", "004 Table 1"]
    parts = [markdown_table(shown, right=right), "", "**Orderings.**", "", markdown_table(checks)]
    gaps = est[est["kind"] == "gap"]
    if not gaps.empty:
        g = pd.DataFrame(
            {
                "source": [paper.DISPLAY.get(s, s) for s in gaps["source"]],
                "male - female mean ratio gap (points) [95% CI]": [
                    _fmt(*r) for r in gaps[["value", "low", "high"]].itertuples(index=False)
                ],
            }
        )
        parts += ["", "**Gender gap (004 Fig. 2), human reviews and LLMs.**", "", markdown_table(g)]
    if classifier:
        parts += ["", "**Agency classifier.** " + classifier_sentence(classifier)]
    caption = (
        "Variance (n - 1) of the groups' mean ratio gaps, per bias dimension, for the released "
        f"professor reviews of each LLM; intervals: {INTERVAL}. Our agency classifier differs "
        "from the paper's fine-tuned BERT (its accuracy, below, is the main source of "
        "difference), and the paper averages three seeds where one generation per prompt is "
        "released."
    )
    return Table(comp, document("LABE: 004 Table 1, professor reviews", caption, "\n".join(parts)))


def classifier_sentence(m: Mapping) -> str:
    test = m.get("test") or {}
    acc = 100 * float(test.get("micro_f1", float("nan")))
    macro = 100 * float(test.get("macro_f1", float("nan")))
    return (
        f"{m.get('model')} fine-tuned on LAC: test accuracy {acc:.2f}, macro-F1 {macro:.2f} "
        f"({test.get('documents')} sentences); 004 Table 12's BERT: accuracy "
        f"{paper.TABLE12_BERT['accuracy']:.2f}, macro-F1 {paper.TABLE12_BERT['macro_f1']:.2f}."
    )


def classifier_table(m: Mapping) -> Table:
    test = m.get("test") or {}
    frame = pd.DataFrame(
        [
            {
                "classifier": m.get("model"),
                "source": "this run",
                "accuracy": 100 * test.get("micro_f1", float("nan")),
                "macro_f1": 100 * test.get("macro_f1", float("nan")),
                "best_epoch": m.get("best_epoch"),
                "train_sentences": m.get("train_documents"),
            },
            {
                "classifier": "BERT-base (004 Table 12)",
                "source": "004",
                "accuracy": paper.TABLE12_BERT["accuracy"],
                "macro_f1": paper.TABLE12_BERT["macro_f1"],
                "best_epoch": None,
                "train_sentences": 2979,
            },
        ]
    )
    shown = frame.copy()
    for col in ("accuracy", "macro_f1"):
        shown[col] = [f"{v:.2f}" for v in frame[col]]
    body = markdown_table(shown.fillna(""), right=["accuracy", "macro_f1"])
    return Table(
        frame, document("LABE agency classifier on LAC test", classifier_sentence(m), body)
    )
