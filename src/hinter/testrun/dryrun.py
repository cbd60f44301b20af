"""The size of a test run before its slow stages: ``hinter test --dry-run`` and the huge-plan
warning.

Mutation is cheap (a dictionary lookup per word); the invariant (a dependency parse per mutant)
and prediction are what take minutes to hours. So the plan mutates into a scratch folder, counts
the mutants of each suite and the texts to predict, and projects the minutes of the two slow
stages from what a ``hinter test`` run measured on a shared 2-core machine (below; a local
LLM's from ``resources/costs/unit_costs.json``) and, for an API model given ``--prices``, a
rough bound of its dollars. Nothing is parsed, predicted or sent.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hinter.inputs import DATASET
from hinter.layout import RunLayout
from hinter.testrun.plan import TestPlan

SHARD, TRACK = "000", "model"  # hinter.testrun.stages' one shard and track


def say(message: str) -> None:
    print(f"hinter: {message}", file=sys.stderr, flush=True)


def plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


# A plan above this many projected minutes is "unusually large": a warning says how to cap it.
LARGE_MINUTES = 15.0
CHARS_PER_TOKEN = 4.0  # English under subword vocabularies (as hinter.estimate assumes)
# Wall seconds measured by `hinter test` itself on 2 idle CPU cores, the quick start's run of
# 2026-11-28 (README "Quick start": 100 IMDB reviews, the default cap, results/quickstart/model):
# invariant 1,553 mutant rows in 6 s; predict 1,438 texts in 17 s with MiniLM (6 layers, hidden
# 384) at 128 tokens. On a machine shared with other work it is slower: the same run took 39 s
# and 6:50 at load average ~10.
INVARIANT_S_PER_ROW = 6 / 1553
ENCODER_S_PER_TEXT = 17 / 1438
MEASURED_ENCODER = 6 * 384**2 * 128  # layers x hidden^2 x tokens of that MiniLM run


@dataclass
class Projection:
    """What a run will do, counted and projected before the invariant runs."""

    documents: int
    suites: list[dict[str, Any]]  # name, order, mutants (written), rows (with parents)
    texts: int  # texts to predict, at most: originals and every mutant row (valid or not)
    invariant_minutes: float
    predict_minutes: float
    requests: int | None = None  # an API model's
    dollars: float | None = None  # an API model's upper bound, with --prices

    @property
    def minutes(self) -> float:
        return self.invariant_minutes + self.predict_minutes

    @property
    def mutants(self) -> int:
        return sum(s["mutants"] for s in self.suites)


def counted(p: TestPlan, layout: RunLayout, paths: dict, prices=None) -> Projection:
    """The projection of ``p`` from its mutants, written by the mutation stage under
    ``layout`` (``paths``: suite name -> mutants file)."""
    suites = []
    for suite in p.suites:
        stats = json.loads(Path(layout.mutant_stats(TRACK, DATASET, suite.name, SHARD)).read_text())
        suites.append(
            {
                "suite": suite.name,
                "order": suite.order,
                "mutants": int(stats["written"]),
                "rows": _rows(paths[suite.name]),
            }
        )
    return _projection(p, suites, _mean_chars(p), prices)


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


def _mean_chars(p: TestPlan) -> float:
    texts = p.docs.column("text").to_pylist()
    return sum(map(len, texts)) / max(1, len(texts))


def _projection(p: TestPlan, suites, chars: float, prices) -> Projection:
    from hinter.estimate import load_unit_costs

    n_docs = p.docs.num_rows
    rows = sum(s["rows"] for s in suites)
    invariant_s = rows * INVARIANT_S_PER_ROW if p.parser else 0.0
    texts = n_docs + rows
    model = p.models[0]
    requests = dollars = None
    if model.llm is None:
        predict_s = texts * ENCODER_S_PER_TEXT * _encoder_scale(p, chars) * len(p.models)
    elif model.llm.get("backend") == "openai":
        predict_s = 0.0  # the endpoint's time, not this machine's
        requests = texts
        if prices is not None:
            prompt_tokens = texts * (chars / CHARS_PER_TOKEN + _FEW_SHOT_TOKENS)
            answer_tokens = texts * model.task.max_new_tokens
            dollars = (prompt_tokens * prices[0] + answer_tokens * prices[1]) / 1e6
    else:  # a local chat LLM: the batched engine's measured CPU cost of a prompt
        predict_s = texts * load_unit_costs()["llm_prompt_cpu_engine"]["cpu_s_per_unit"]
    return Projection(n_docs, suites, texts, invariant_s / 60, predict_s / 60, requests, dollars)


# Three few-shot reviews and the instruction of the paper's IMDB prompt (hinter.estimate's 765
# prompt tokens, less one review of ~290 tokens): what every request sends besides its text.
_FEW_SHOT_TOKENS = 475


def _encoder_scale(p: TestPlan, chars: float) -> float:
    """A text's cost relative to the measured one (MiniLM, 128 tokens)."""
    from hinter.model_dir import read_model_dir

    worst = 0.0
    for m in p.models:
        config = read_model_dir(m.path)["config"]
        layers = config.get("num_hidden_layers", 12)
        hidden = config.get("hidden_size", 768)
        tokens = min(m.window, chars / CHARS_PER_TOKEN)
        worst = max(worst, layers * hidden**2 * tokens / MEASURED_ENCODER)
    return worst


def print_plan(proj: Projection, p: TestPlan) -> None:
    """The plan on stderr: per-suite counts, texts to predict, minutes (and dollars)."""
    for s in proj.suites:
        parents = s["rows"] - s["mutants"]
        extra = f" (+{parents:,} atomic parents)" if parents else ""
        say(f"  {s['suite']}: {plural(s['mutants'], 'mutant')}{extra}")
    say(
        f"plan: {plural(proj.documents, 'document')}, {plural(proj.mutants, 'mutant')} in "
        f"{len(proj.suites)} suites, up to {proj.texts:,} texts to predict"
    )
    times = f"invariant ~{_minutes(proj.invariant_minutes)}"
    if proj.requests is not None:
        times += f", {proj.requests:,} API requests at most"
        if proj.dollars is not None:
            times += f" costing at most ~${proj.dollars:,.2f} (rough; the exact dry estimate "
            times += "comes before the first request)"
    else:
        times += f", predict ~{_minutes(proj.predict_minutes)}"
    say(
        f"projected on 2 idle CPU cores: {times}; total ~{_minutes(proj.minutes)} "
        "(slower on a busy machine)"
    )


def _minutes(m: float) -> str:
    return "<1 min" if m < 1 else f"{m:,.0f} min"


def warn_if_large(proj: Projection, p: TestPlan) -> None:
    """A plan projected above :data:`LARGE_MINUTES`: say which cap brings it down."""
    if proj.minutes <= LARGE_MINUTES or not proj.documents:
        return
    per_doc = max(1, proj.mutants / proj.documents / max(1, len(proj.suites)))
    cap = max(1, int(per_doc * LARGE_MINUTES / proj.minutes))
    say(
        f"warning: this plan is large (~{_minutes(proj.minutes)}): cap it with "
        f"--max-mutants-per-document {cap} or fewer --max-documents (see --dry-run)"
    )
