"""Hidden-bias examples like the paper's Tables 1 and 4: an original, its atomic mutants (no
bias) and the intersectional mutant (bias), each with the model's prediction and the edited
words in bold.

The ``hidden_examples`` rule renders a few examples per (model, dataset, suite) while the
suite's mutants and documents are at hand (``results/<run>/examples/...``); RQ1 gathers them
into one table. Only the chosen mutants and their documents are read from the shard files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from hinter import io, tables
from hinter.edits import Edit, as_edits
from hinter.errors import DataError
from hinter.oracle import suite_attributes
from hinter.render import Table, escape_markdown, markdown_table
from hinter.rq.definitions import caption
from hinter.rq.ordering import in_order

ORDINALS = ("I", "II", "III", "IV", "V")


# results/<run>/examples/<model>/<dataset>/<suite>.parquet — hidden-bias examples of one suite:
# one row per line of a paper-style example table (original, atomic I.., intersectional).
# text: a window of context around the edits, as Markdown with the edited words in **bold**.
EXAMPLES = pa.schema(
    [
        pa.field("model", pa.string()),
        pa.field("dataset", pa.string()),
        pa.field("suite", pa.string()),
        pa.field("doc_id", pa.string()),
        pa.field("mutant_id", pa.string()),  # the intersectional mutant of the example
        pa.field("line", pa.int8()),  # 0 original, 1..N atomic parents, N+1 intersectional
        pa.field("type", pa.string()),
        pa.field("attributes", pa.string()),
        pa.field("mutations", pa.string()),
        pa.field("text", pa.string()),
        pa.field("prediction", pa.string()),
        pa.field("bias", pa.string()),  # "-" original, "✓" benign, "X" bias
    ]
)


def _windows(text: str, spans: Iterable[tuple[int, int]], context: int) -> list[tuple[int, int]]:
    """Merged windows of ``context`` characters around each span, widened to whole words."""
    out: list[list[int]] = []
    n = len(text)
    for s, e in sorted(spans):
        ws, we = max(0, s - context), min(n, e + context)
        for _ in range(20):
            if ws > 0 and not text[ws - 1].isspace():
                ws -= 1
        for _ in range(20):
            if we < n and not text[we].isspace():
                we += 1
        if out and ws <= out[-1][1]:
            out[-1][1] = max(out[-1][1], we)
        else:
            out.append([ws, we])
    return [(a, b) for a, b in out]


def highlight(
    text: str,
    edits: Sequence[Edit],
    marks: Sequence[tuple[int, int]],
    context: int,
    bold: Sequence[tuple[int, int]] = (),
) -> str:
    """Markdown of ``text`` with ``edits`` applied, showing only windows around ``marks`` (spans
    of the original: every line of an example shows the same windows). Only what the line
    changes is in **bold** (its replacements), and the ``bold`` spans of the original (the
    original line marks the words its mutants edit)."""
    windows = _windows(text, marks, context)
    by_start = {e.start: e for e in edits}
    bold_only = {(s, e) for s, e in bold if s not in by_start}
    pieces = []
    for ws, we in windows:
        parts = []
        cursor = ws
        for s, e in sorted({*((x.start, x.end) for x in edits), *bold_only}):
            if s < ws or e > we:
                continue
            parts.append(escape_markdown(text[cursor:s]))
            if s in by_start:
                replacement = by_start[s].replacement
                parts.append(f"**{escape_markdown(replacement)}**" if replacement else "")
            else:
                parts.append(f"**{escape_markdown(text[s:e])}**")
            cursor = e
        parts.append(escape_markdown(text[cursor:we]))
        pieces.append("".join(parts).strip())
    if not windows:
        return ""
    head = "… " if windows[0][0] > 0 else ""
    tail = " …" if windows[-1][1] < len(text) else ""
    return head + " … ".join(pieces) + tail


def label_text(labels: Sequence[int] | None, meta: Mapping[str, Any]) -> str:
    """Label names of a prediction (meta.json display names); the empty set is the dataset's
    empty label ("none") or "no answer"."""
    if labels is None:
        return "?"
    if len(labels) == 0:
        return meta.get("empty_label_name") or "no answer"
    names = meta.get("display_names") or meta.get("label_names") or []
    return "; ".join(names[i] if 0 <= i < len(names) else str(i) for i in sorted(set(labels)))


def _mutation_text(text: str, edits: Sequence[Edit]) -> str:
    return "; ".join(f"{text[e.start : e.end]} → {e.replacement}" for e in edits)


def select_hidden(outcomes: pd.DataFrame, k: int) -> pd.DataFrame:
    """The k hidden mutants with the smallest ids (content hashes: a stable pseudo-random pick)."""
    chosen = outcomes[outcomes["hidden"].fillna(False).astype(bool)]
    return chosen.sort_values("mutant_id").head(k)


def render_examples(
    chosen: pd.DataFrame,
    mutants: pa.Table,
    texts: Mapping[str, str],
    meta: Mapping[str, Any],
    *,
    model: str = "",
    dataset: str = "",
    context: int = 60,
) -> pa.Table:
    """Example-table lines (``EXAMPLES``) of the chosen outcome rows: the original, each atomic
    parent and the intersectional mutant, with predictions and the edits in bold."""
    rows_by_id = {r["mutant_id"]: r for r in mutants.to_pylist()}
    lines = []
    for r in chosen.to_dict("records"):
        doc, mid, suite = r["doc_id"], r["mutant_id"], r["suite"]
        if doc not in texts:
            raise DataError(f"example {mid}: text of document {doc} not found")
        text = texts[doc]
        try:
            m_row = rows_by_id[mid]
            parents = [rows_by_id[p] for p in r["parent_ids"]]
        except KeyError as exc:
            raise DataError(
                f"example {mid}: mutant {exc.args[0]} not found in the suite's mutants"
            ) from None
        m_edits = sorted(as_edits(m_row["edits"]))
        p_edits = [sorted(as_edits(p["edits"])) for p in parents]
        marks = sorted(
            {(e.start, e.end) for e in m_edits} | {(e.start, e.end) for es in p_edits for e in es}
        )
        attrs = [p["attributes"][0] for p in parents]
        base = {"model": model, "dataset": dataset, "suite": suite, "doc_id": doc, "mutant_id": mid}
        lines.append(
            {
                **base,
                "line": 0,
                "type": "Original",
                "attributes": "-",
                "mutations": "-",
                "text": highlight(text, [], marks, context, bold=marks),
                "prediction": label_text(r["labels_original"], meta),
                "bias": "-",
            }
        )
        for j, (attr, edits) in enumerate(zip(attrs, p_edits, strict=True)):
            lines.append(
                {
                    **base,
                    "line": j + 1,
                    "type": f"Atomic {ORDINALS[j]}",
                    "attributes": attr.capitalize(),
                    "mutations": _mutation_text(text, edits),
                    "text": highlight(text, edits, marks, context),
                    "prediction": label_text(_at(r["parent_labels"], j), meta),
                    "bias": "X" if _at(r["parent_biased"], j) else "✓",
                }
            )
        lines.append(
            {
                **base,
                "line": len(parents) + 1,
                "type": "Intersectional",
                "attributes": " & ".join(a.capitalize() for a in attrs),
                "mutations": _mutation_text(text, m_edits),
                "text": highlight(text, m_edits, marks, context),
                "prediction": label_text(r["labels_mutant"], meta),
                "bias": "X" if r["biased"] else "✓",
            }
        )
    return pa.Table.from_pylist(lines, schema=EXAMPLES)


def _at(values, j):
    return None if values is None else values[j]


def write_hidden_examples(
    *,
    model: str,
    dataset: str,
    suite: str,
    outcomes: str | Path,
    mutants: Sequence[str | Path],
    docs: Sequence[str | Path],
    meta: Mapping[str, Any] | str | Path,
    output: str | Path,
    k: int = 5,
    context: int = 60,
) -> int:
    """Render up to ``k`` hidden-bias examples of one suite to ``output`` (``EXAMPLES``);
    only the chosen mutants and their documents are read from the shard files."""
    if not isinstance(meta, Mapping):
        meta = io.read_json(meta)
    columns = [
        "mutant_id", "doc_id", "suite", "parent_ids", "biased", "parent_biased", "hidden",
        "labels_original", "labels_mutant", "parent_labels",
    ]  # fmt: skip
    frame = io.read_parquet(outcomes, tables.OUTCOMES, columns=columns).to_pandas()
    chosen = select_hidden(frame, k)
    wanted = set(chosen["mutant_id"]) | {p for ps in chosen["parent_ids"] for p in ps}
    doc_ids = set(chosen["doc_id"])
    mutant_rows, texts = [], {}
    if wanted:
        mutant_rows = [
            io.read_matching(p, "mutant_id", wanted, schema=tables.MUTANTS) for p in mutants
        ]
        for p in docs:
            t = io.read_matching(
                p, "doc_id", doc_ids, columns=["doc_id", "text"], schema=tables.TESTED_DOCUMENTS
            )
            texts.update(zip(t["doc_id"].to_pylist(), t["text"].to_pylist(), strict=True))
    table = render_examples(
        chosen,
        pa.concat_tables(mutant_rows) if mutant_rows else tables.MUTANTS.empty_table(),
        texts,
        meta,
        model=model,
        dataset=dataset,
        context=context,
    )
    io.write_parquet(table, output, EXAMPLES)
    return len(chosen)


def examples_table(
    example_files: Sequence[str | Path],
    models: Sequence[str],
    datasets: Sequence[str],
    k: int,
    order: int = 2,
    output: tuple[int, str] = (1, "hidden_examples"),
) -> Table:
    """The first ``k`` examples (by mutant id) per (model, dataset) over the suites of ``order``,
    models and datasets in the given order (others after them); ``output``: the (RQ, name) whose
    definitions are its caption."""
    parts = [io.read_parquet(p, EXAMPLES).to_pandas() for p in example_files]
    frame = pd.concat(parts, ignore_index=True) if parts else EXAMPLES.empty_table().to_pandas()
    frame = frame.loc[[len(suite_attributes(s)) == order for s in frame["suite"]]]
    keep = []
    for (_, _), part in frame.groupby(["model", "dataset"], sort=False):
        ids = sorted(part["mutant_id"].unique())[:k]
        keep.append(part[part["mutant_id"].isin(ids)])
    frame = pd.concat(keep, ignore_index=True) if keep else frame
    frame = in_order(
        frame,
        {"model": models, "dataset": datasets},
        then=["model", "dataset", "mutant_id", "line"],
    )
    sections = [
        "# Hidden intersectional bias examples",
        "",
        caption(*output, f"Up to {k} examples per model and dataset (N={order})."),
        "",
    ]
    for (model, dataset), part in frame.groupby(["model", "dataset"], sort=False):
        md = pd.DataFrame(
            {
                "ID": [
                    d if line == 0 else ""
                    for d, line in zip(part["doc_id"], part["line"], strict=True)
                ],
                "Sensitive attributes": part["attributes"],
                "Mutations": part["mutations"],
                "Type": part["type"],
                "Text": part["text"],
                "Prediction": part["prediction"],
                "Bias": part["bias"],
            }
        )
        sections += [f"## {model} on {dataset}", "", markdown_table(md, raw=["Text"])]
    if frame.empty:
        sections.append("No hidden intersectional bias was found.\n")
    return Table(frame, "\n".join(sections))
