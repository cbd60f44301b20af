"""RQ2 grammatical validity (docs/design.md §3): paper Fig. 8a and its table, under
``results/<run>/rq2/``.

Grammar scores of originals vs valid mutants, atomic vs intersectional, bias-inducing vs benign,
pooled over every grammar run's balanced sample (:mod:`hinter.grammar`), with bootstrap
intervals over original documents and paired comparisons (:mod:`hinter.rq.scores`). The figure
is drawn from the table's CSV file, so every number is computed once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from hinter.render import Table, prose, write_table
from hinter.rq import outputs, paper, scores
from hinter.rq.definitions import caption
from hinter.rq.intervals import Bootstrap
from hinter.rq.scores import ALL, BENIGN, BIAS, OUTCOMES, ScoreFile

TABLES = outputs.names(2, outputs.TABLE)
ORIGINAL, MUTANT = "original", "valid mutant"
INPUTS = (ORIGINAL, MUTANT)

# After the definitions (workflow/report/rq2/grammar_scores.rst): the paper's numbers.
PAPER_NOTE = prose(
    f"""Paper (Grammarly): originals {paper.RQ2["original_score"]:.2f}% vs valid mutants
    {paper.RQ2["mutant_score"]:.2f}% (intersectional); bias-inducing
    {paper.RQ2["bias_inducing_score_atomic"]:.2f} vs benign {paper.RQ2["benign_score_atomic"]:.2f}
    (atomic)."""
)


def selections(frame: pd.DataFrame) -> dict[tuple[str, str], pd.Series]:
    """(input, outcome) -> the rows of that group (mutants: valid ones only)."""
    inputs = {
        ORIGINAL: frame["kind"] == "original",
        MUTANT: (frame["kind"] == "mutant") & frame["valid"].astype("boolean").fillna(False),
    }
    return {(i, o): inputs[i] & scores.outcome_mask(frame, o) for i in INPUTS for o in OUTCOMES}


def grammar_scores(frame: pd.DataFrame, boot: Bootstrap) -> Table:
    """Fig. 8a's data: every (mutation, input, outcome) group's score, with comparisons of
    valid mutants with their originals and of bias-inducing with benign texts."""
    groups = selections(frame)
    table = scores.score_rows(frame, groups, boot)
    pairs = [
        ((MUTANT, ALL), (ORIGINAL, ALL)),
        ((ORIGINAL, BIAS), (ORIGINAL, BENIGN)),
        ((MUTANT, BIAS), (MUTANT, BENIGN)),
    ]
    diffs = scores.compare(frame, groups, pairs, boot)
    title = "Fig. 8a — grammar scores of originals and valid mutants"
    text = caption(2, "grammar_scores", boot.describe(), PAPER_NOTE, distinct_note(frame))
    return scores.score_table(table, diffs, boot, INPUTS, title, text)


def distinct_note(frame: pd.DataFrame) -> str:
    """How many of the scored texts are distinct: unless ``grammar.sample.disjoint``, every
    model draws the same seeded documents and mutants, and a text drawn for several models
    counts once per model in the pooled scores (each model's bias label is its own)."""
    if frame.empty:
        return ""
    drawn = len(frame)
    distinct = len(frame.drop_duplicates(["dataset", "kind", "text_id"]))
    checkers = ", ".join(sorted(set(frame["checker"].dropna()))) or "unknown"
    return prose(
        f"""This sample: {drawn:,} scored texts, {distinct:,} distinct ({drawn - distinct:,}
        drawn for more than one model, each counted once per model that drew it; with
        grammar.sample.disjoint every model draws its own documents, as the paper drew one
        sample per dataset and mutation type). Checker: {checkers}; score levels differ
        between checkers, so compare the differences with the paper's, not the levels."""
    )


def build_tables(frame: pd.DataFrame, boot: Bootstrap) -> dict[str, Table]:
    builders = {"grammar_scores": lambda: grammar_scores(frame, boot)}
    return {name: builders[name]() for name in TABLES}


def write_tables(files: Sequence[ScoreFile], out_dir: str | Path, boot: Bootstrap) -> list[Path]:
    """Write every RQ2 table to ``out_dir``; the paths."""
    frame = scores.read_scores(files)
    written: list[Path] = []
    for name, table in build_tables(frame, boot).items():
        written += write_table(table, Path(out_dir) / name, outputs.get(2, name).extensions)
    return written
