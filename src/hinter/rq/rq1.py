"""RQ1 effectiveness (docs/design.md §3): paper Table 3, Figs. 4–6 and their data, the truth table
and hidden-bias examples like Tables 1 and 4, under ``results/<run>/rq1/``.

Tables come from pooled counts (:mod:`hinter.rq.outcomes`, :mod:`hinter.rates`); figures are
drawn from the tables' CSV files (:mod:`hinter.plots.rq1`), so every rate is computed once.
Output names, kinds and report entries are registered in :mod:`hinter.rq.outputs`; each table
has a builder here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from hinter import rates
from hinter.oracle import PARENT_DISCARDED, patterns
from hinter.render import Table, document, markdown_table, percent, prose, write_table
from hinter.rq import intervals, outputs
from hinter.rq.definitions import caption
from hinter.rq.examples import examples_table
from hinter.rq.intervals import Bootstrap
from hinter.rq.ordering import in_order, kinds_in_order
from hinter.rq.outcomes import Collected, OutcomeFile, collect, concat
from hinter.rq.outcomes import kind as outcome_kind

TABLES = outputs.names(1, outputs.TABLE)
DEFAULT_BOOTSTRAP = Bootstrap()  # the config's defaults; the rule passes the run's
ALL = "All"
TOTAL = "Total"
NOT_TESTED = "N/A"

# Between the tables' definitions (workflow/report/rq1/*.rst, hinter.rq.definitions) and the
# interval sentence: what the grid's two marks mean.
LEGEND = f"{NOT_TESTED} = not tested; – = nothing to divide."
# In every caption that shows a model's rates, per model that gave every tested original one
# label set (review 2026-11-28 G12): its 0% is not "unbiased".
CONSTANT_NOTE = (
    "constant model: {model} on {dataset} predicted one label set for every tested original; "
    "its rates say nothing about bias."
)


def constant_note(collected: Collected) -> str:
    """The caption sentences that name the constant models (empty: none)."""
    return " ".join(CONSTANT_NOTE.format(model=m, dataset=d) for m, d in collected.constant)


def constant_models(grid: pd.DataFrame, collected: Collected) -> list[str]:
    """Per grid row, the constant models among the (model, dataset) cells it pools ("; ",
    empty: none): the CSV column paper_vs_run reads to leave such a row unjudged."""
    return [
        "; ".join(sorted({m for m, d in collected.constant if dataset in (ALL, d)
                          and model in (TOTAL, m)}))
        for dataset, model in zip(grid["dataset"], grid["model"], strict=True)
    ]  # fmt: skip


# Under each order of the truth table: its hidden count beside the original artifact's.
ARTIFACT_NOTE = prose(
    """Hidden intersectional bias ({cell}): {hidden} of {base} bias-inducing mutants with valid
    parents ({rate}%). The original artifact's condition, read by Python as 'atomic 1 benign and
    atomic 2 biased', counts {artifact} ({artifact_rate}%) instead (docs/design.md §8); the
    tables use the correct definition."""
)


# ---------------------------------------------------------------------------------------------
# Table 3 and the atomic error rates: dataset x model, with pooled totals


def rate_grid(counts: pd.DataFrame, models: Sequence[str], datasets: Sequence[str]) -> pd.DataFrame:
    """Pooled counts and rates per (dataset, model), per dataset over models ("Total"), per
    model over datasets ("All") and overall; only combinations that were tested."""
    tested = counts[["model", "dataset"]].drop_duplicates()
    parts = [
        rates.pool(counts, ["dataset", "model"]),
        rates.pool(counts, ["dataset"]).assign(model=TOTAL),
        rates.pool(counts, ["model"]).assign(dataset=ALL),
        rates.pool(counts).assign(dataset=ALL, model=TOTAL),
    ]
    grid = pd.concat([p for p in parts if len(p)], ignore_index=True)
    grid = rates.add_rates(grid)
    tested_keys = set(tested.itertuples(index=False, name=None))
    keep = [
        m == TOTAL or d == ALL or (m, d) in tested_keys
        for m, d in zip(grid["model"], grid["dataset"], strict=True)
    ]
    return in_order(grid[keep], {"dataset": [*datasets, ALL], "model": [*models, TOTAL]})


def _grid_markdown(
    grid: pd.DataFrame, models: Sequence[str], datasets: Sequence[str], cell
) -> pd.DataFrame:
    by_key = {(r["dataset"], r["model"]): r for _, r in grid.iterrows()}
    rows = []
    for d in [*datasets, ALL]:
        row = {"Dataset": d}
        for m in [*models, TOTAL]:
            r = by_key.get((d, m))
            row[m] = NOT_TESTED if r is None else cell(r)
        rows.append(row)
    return pd.DataFrame(rows)


def _documents(collected: Collected, order: int) -> pd.DataFrame:
    """The per-document counts of one order at every pooling level of the grid."""
    docs = collected.documents[collected.documents["order"] == order].drop(columns="order")
    return intervals.pooled_levels(docs, {"dataset": ALL, "model": TOTAL})


def _pct(grid: pd.DataFrame, rate: str) -> dict[str, pd.Series]:
    """A rate and its interval as CSV columns in percent."""
    return {f"{rate}{s}_pct": 100 * grid[f"{rate}{s}"] for s in ("", "_lo", "_hi")}


def _error_columns(grid: pd.DataFrame) -> dict[str, pd.Series]:
    """A grid's keys, counts and error rate (with its interval) as CSV columns."""
    keys = ("dataset", "model", "valid", "decided", "errors")
    return {**{k: grid[k] for k in keys}, **_pct(grid, "error_rate")}


def _cell(rate: str):
    return lambda r: intervals.cell(r[rate], r[f"{rate}_lo"], r[f"{rate}_hi"])


def table3(collected: Collected, order: int = 2, boot: Bootstrap = DEFAULT_BOOTSTRAP) -> Table:
    """Paper Table 3: intersectional error rate I and hidden rate H, dataset x model, each
    with its bootstrap interval over documents."""
    counts = collected.counts[collected.counts["order"] == order]
    grid = rate_grid(counts, collected.models, collected.datasets)
    grid = intervals.add_intervals(
        grid, _documents(collected, order), ["dataset", "model"],
        ["error_rate", "hidden_rate"], boot, documents=True,
    )  # fmt: skip
    csv = pd.DataFrame(
        {
            **_error_columns(grid),
            "hidden_base": grid["hidden_base"],
            "hidden": grid["hidden"],
            **_pct(grid, "hidden_rate"),
            "documents": grid["documents"],
            "constant": constant_models(grid, collected),
        }
    )
    error, hidden = _cell("error_rate"), _cell("hidden_rate")
    md = _grid_markdown(
        grid, collected.models, collected.datasets, lambda r: f"{error(r)} ({hidden(r)})"
    )
    return Table(
        csv,
        document(
            f"Table 3 — intersectional (N={order}) and hidden error rates",
            caption(1, "table3", LEGEND, boot.describe(), constant_note(collected)),
            markdown_table(md, right=[*collected.models, TOTAL]),
        ),
    )


def atomic_rates(
    collected: Collected, order: int = 2, boot: Bootstrap = DEFAULT_BOOTSTRAP
) -> Table:
    """Atomic error rates (Fig. 5a), dataset x model, with pooled totals and intervals, and
    whether the intersectional (N=``order``) error rate differs significantly from them."""
    counts = collected.counts[collected.counts["order"] == 1]
    grid = rate_grid(counts, collected.models, collected.datasets)
    atomic_docs = _documents(collected, 1)
    grid = intervals.add_intervals(
        grid, atomic_docs, ["dataset", "model"], ["error_rate"], boot, documents=True
    )
    keys = ["dataset", "model"]
    diff = intervals.compare(_documents(collected, order), atomic_docs, keys, "error_rate", boot)
    grid = grid.merge(diff, on=keys, how="left", validate="one_to_one")
    csv = pd.DataFrame(
        {
            **_error_columns(grid),
            "intersectional_error_rate_pct": 100 * grid["rate_a"],
            "difference_pct": 100 * grid["difference"],
            "difference_lo_pct": 100 * grid["difference_lo"],
            "difference_hi_pct": 100 * grid["difference_hi"],
            "p_value": grid["p_value"],
            "significant": intervals.verdicts(grid),
            "documents": grid["documents"],
            "constant": constant_models(grid, collected),
        }
    )
    md = _grid_markdown(grid, collected.models, collected.datasets, _cell("error_rate"))
    versus = pd.DataFrame(
        {
            "Dataset": grid["dataset"],
            "Model": grid["model"],
            "Intersectional": grid["rate_a"].map(percent),
            "Atomic": grid["error_rate"].map(percent),
            "Difference": [intervals.difference_cell(r) for r in grid.to_dict("records")],
            "p": grid["p_value"].map(lambda p: "–" if pd.isna(p) else f"{p:.4f}"),
        }
    )
    return Table(
        csv,
        "\n".join(
            [
                document(
                    "Atomic error rates",
                    caption(1, "atomic_rates", boot.describe(), constant_note(collected)),
                    markdown_table(md, right=[*collected.models, TOTAL]),
                ),
                f"## Intersectional (N={order}) vs atomic",
                "",
                markdown_table(versus, right=["Intersectional", "Atomic", "Difference", "p"]),
            ]
        ),
    )


def rates_by_suite(collected: Collected) -> Table:
    """Every count and rate per (model, dataset, suite), including the artifact's hidden count."""
    c = in_order(
        rates.add_rates(collected.counts),
        {"model": collected.models, "dataset": collected.datasets},
        then=["order", "suite"],
    )
    # rates' "generated" counts the suite's mutants as tested, after the mutation caps: the
    # mutation summary's "written" (its "generated" is before the caps), so "mutants" here.
    csv = c[["model", "dataset", "suite", "order", *rates.COUNT_COLUMNS]].rename(
        columns={"generated": "mutants"}
    )
    for name in ("error_rate", "hidden_rate", "hidden_rate_artifact", "valid_share"):
        csv[f"{name}_pct"] = 100 * c[name]
    md = pd.DataFrame(
        {
            "Model": c["model"],
            "Dataset": c["dataset"],
            "Suite": c["suite"],
            "Mutants": c["generated"].astype(str),
            "Valid": c["valid"].astype(str),
            "Decided": c["decided"].astype(str),
            "Unchanged in window": c["skipped_identical"].astype(str),
            "Errors": c["errors"].astype(str),
            "Error rate": c["error_rate"].map(percent),
            "Hidden": c["hidden"].astype(str),
            "Hidden rate": c["hidden_rate"].map(percent),
            "False positives": c["false_positives"].astype(str),
        }
    )
    return Table(
        csv,
        document(
            "Counts and rates per suite",
            caption(1, "rates_by_suite", constant_note(collected)),
            markdown_table(md, right=list(md.columns[3:])),
        ),
    )


def distinct_originals(
    collected: Collected, order: int = 2, boot: Bootstrap = DEFAULT_BOOTSTRAP
) -> Table:
    """Share of originals with >= 1 bias-inducing valid mutant (Figs. 4b, 5b), per model and
    dataset, pooled over datasets ("All") and over models ("Total" counts (model, original)),
    with its bootstrap interval over documents."""
    per_run = collected.originals

    def pooled(by: list[str]) -> pd.DataFrame:
        if per_run.empty:
            return per_run
        out = per_run.groupby(by, sort=True)[["originals", "bias_inducing"]].sum().reset_index()
        out["share"] = (out["bias_inducing"] / out["originals"].astype(float)).where(
            out["originals"] > 0
        )
        return out

    table = concat(
        [
            per_run,
            pooled(["model", "kind"]).assign(dataset=ALL),
            pooled(["kind"]).assign(model=TOTAL, dataset=ALL),
        ],
        ["model", "dataset", "kind", "originals", "bias_inducing", "share"],
    )
    table = in_order(
        table,
        {"model": [*collected.models, TOTAL], "dataset": [*collected.datasets, ALL]},
        then=["kind"],
    )
    docs = collected.documents.assign(
        kind=[outcome_kind(int(o), order) for o in collected.documents["order"]]
    ).drop(columns="order")
    table = intervals.add_intervals(
        table.rename(columns={"share": "distinct_share"}),
        intervals.pooled_levels(docs, {"dataset": ALL, "model": TOTAL}),
        ["model", "dataset", "kind"], ["distinct_share"], boot,
    ).rename(columns=lambda c: c.replace("distinct_share", "share"))  # fmt: skip
    csv = table[["model", "dataset", "kind", "originals", "bias_inducing"]].assign(
        **{f"share{s}_pct": 100 * table[f"share{s}"] for s in ("", "_lo", "_hi")}
    )
    kinds = kinds_in_order(table["kind"])
    over_datasets = table[table["dataset"] == ALL]
    rows = []
    for m in [*collected.models, TOTAL]:
        row = {"Model": m}
        for k in kinds:
            hit = over_datasets[(over_datasets["model"] == m) & (over_datasets["kind"] == k)]
            row[k] = "–" if hit.empty else _share_cell(hit.iloc[0])
        rows.append(row)
    return Table(
        csv,
        document(
            "Distinct bias-inducing originals",
            caption(1, "distinct_originals", boot.describe(), constant_note(collected)),
            markdown_table(pd.DataFrame(rows), right=kinds),
        ),
    )


def _share_cell(row: pd.Series) -> str:
    share = intervals.cell(row["share"], row["share_lo"], row["share_hi"])
    return f"{share} ({row['bias_inducing']}/{row['originals']})"


def truth_table(collected: Collected) -> Table:
    """Truth-table cells pooled over models and datasets, per suite and per order, with the
    original artifact's hidden count beside the correct one (docs/design.md §8)."""
    truth = collected.truth
    per_suite = (
        truth.groupby(["order", "suite", "pattern"], sort=False)["count"].sum().reset_index()
    )
    per_order = truth.groupby(["order", "pattern"], sort=False)["count"].sum().reset_index()
    per_order["suite"] = TOTAL
    long = pd.concat([per_suite, per_order], ignore_index=True)
    records = []
    sections = ["# Truth table", "", caption(1, "truth_table"), ""]
    counts = collected.counts
    for order in sorted(long["order"].unique()):
        part = long[long["order"] == order]
        suites = [s for s in dict.fromkeys(part["suite"]) if s != TOTAL] + [TOTAL]
        cells = [*patterns(int(order)), PARENT_DISCARDED]
        found = {(r.suite, r.pattern): int(r.count) for r in part.itertuples()}
        totals = {s: sum(found.get((s, c), 0) for c in patterns(int(order))) for s in suites}

        def share(suite: str, cell: str, found=found, totals=totals) -> float:
            n = found.get((suite, cell), 0)
            return n / totals[suite] if totals[suite] and cell != PARENT_DISCARDED else float("nan")

        for s in suites:
            for cell in cells:
                records.append(
                    {
                        "order": int(order),
                        "suite": s,
                        "pattern": cell,
                        "count": found.get((s, cell), 0),
                        "share_pct": 100 * share(s, cell),
                    }
                )
        md_rows = [
            {
                "Cell": cell,
                **{
                    s: str(found.get((s, cell), 0))
                    + ("" if cell == PARENT_DISCARDED else f" ({percent(share(s, cell))})")
                    for s in suites
                },
            }
            for cell in cells
        ]
        sections += [f"## N = {order}", "", markdown_table(pd.DataFrame(md_rows), right=suites)]
        c = rates.add_rates(rates.pool(counts[counts["order"] == order]))
        if len(c):
            r = c.iloc[0]
            sections.append(
                ARTIFACT_NOTE.format(
                    cell=",".join(["E"] + ["B"] * int(order)),
                    hidden=int(r["hidden"]),
                    base=int(r["hidden_base"]),
                    rate=percent(r["hidden_rate"]),
                    artifact=int(r["hidden_artifact"]),
                    artifact_rate=percent(r["hidden_rate_artifact"]),
                )
                + "\n"
            )
    if len(long) == 0:
        sections.append("No intersectional outcomes.\n")
    csv = pd.DataFrame(records, columns=["order", "suite", "pattern", "count", "share_pct"])
    return Table(csv, "\n".join(sections))


def correctness(collected: Collected) -> Table:
    """Right / wrong / no-answer outcomes of bias-inducing originals vs mutants (Fig. 6), for
    intersectional and hidden bias errors, per model and pooled."""
    c = collected.correctness
    per_model = (
        c.groupby(["population", "model", "input", "outcome"], sort=False)["count"]
        .sum()
        .reset_index()
    )
    pooled = c.groupby(["population", "input", "outcome"], sort=False)["count"].sum().reset_index()
    pooled["model"] = TOTAL
    long = pd.concat([per_model, pooled], ignore_index=True)
    long["n"] = long.groupby(["population", "model", "input"])["count"].transform("sum")
    long["share_pct"] = (100 * long["count"] / long["n"].astype(float)).where(long["n"] > 0)
    long = in_order(
        long,
        {
            "population": ["errors", "hidden"],
            "model": [*collected.models, TOTAL],
            "input": ["original", "mutant"],
            "outcome": rates.CORRECTNESS_OUTCOMES,
        },
    )
    csv = long[["population", "model", "input", "outcome", "count", "share_pct"]].copy()
    csv["population"] = csv["population"].map({"errors": "intersectional", "hidden": "hidden"})
    md_rows = []
    for (pop, model, inp), part in csv.groupby(["population", "model", "input"], sort=False):
        shares = dict(zip(part["outcome"], part["share_pct"], strict=True))
        row = {"Bias": pop, "Model": model, "Input": inp, "N": str(int(part["count"].sum()))}
        for o in rates.CORRECTNESS_OUTCOMES:
            v = shares.get(o)
            row[o] = percent(None if v is None else v / 100)
        md_rows.append(row)
    return Table(
        csv,
        document(
            "Correctness of bias-inducing inputs",
            caption(1, "correctness"),
            markdown_table(pd.DataFrame(md_rows), right=["N", *rates.CORRECTNESS_OUTCOMES])
            if md_rows
            else "No bias errors.\n",
        ),
    )


# ---------------------------------------------------------------------------------------------
# Writing the tables


def build_tables(
    collected: Collected,
    example_files: Sequence[str | Path],
    examples: int = 5,
    order: int = 2,
    boot: Bootstrap = DEFAULT_BOOTSTRAP,
) -> dict[str, Table]:
    """Every RQ1 table (``TABLES``) by name."""
    builders: dict[str, Callable[[], Table]] = {
        "table3": lambda: table3(collected, order, boot),
        "atomic_rates": lambda: atomic_rates(collected, order, boot),
        "rates_by_suite": lambda: rates_by_suite(collected),
        "distinct_originals": lambda: distinct_originals(collected, order, boot),
        "truth_table": lambda: truth_table(collected),
        "correctness": lambda: correctness(collected),
        "hidden_examples": lambda: examples_table(
            example_files, collected.models, collected.datasets, examples, order
        ),
    }
    return {name: builders[name]() for name in TABLES}


def write_tables(
    outcome_files: Sequence[OutcomeFile],
    example_files: Sequence[str | Path],
    out_dir: str | Path,
    *,
    datasets: Sequence[str] | None = None,
    examples: int = 5,
    order: int = 2,
    boot: Bootstrap = DEFAULT_BOOTSTRAP,
) -> list[Path]:
    """Write every RQ1 table to ``out_dir`` (``<name>.csv``, ``.md``, ``.html``); the paths.
    ``boot``: the intervals' resamples, seed and level (config ``statistics``)."""
    collected = collect(outcome_files, intersectional_order=order)
    if datasets is not None:
        collected.datasets = [d for d in datasets if d in collected.datasets]
    written: list[Path] = []
    for name, table in build_tables(collected, example_files, examples, order, boot).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(1, name).extensions)
    return written
