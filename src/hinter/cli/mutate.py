"""``hinter mutate``: the mutants of one text, each with the invariant's verdict."""

from __future__ import annotations

import argparse
from pathlib import Path

from hinter import plan
from hinter.cli.args import (
    EXIT_OK,
    at_least,
    attributes_list,
    orders_list,
    plural,
    say,
    suites_for,
)
from hinter.errors import HinterError
from hinter.paths import RESOURCES


def cmd_mutate(args: argparse.Namespace) -> int:
    """Print the first ``--limit`` mutants of the requested orders, how many there are in all,
    and whether the dependency invariant keeps each (``valid``) or discards it (and why)."""
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.edits import apply_edits
    from hinter.mutation.generate import SuiteMutator, pairs_from_table

    if not args.text.strip():
        raise HinterError("text: the text is empty")
    # The requested orders only: atomic suites are a run's parents, not asked for by --orders 2.
    suites = [s for s in suites_for(args.attributes, args.orders) if s.order in args.orders]
    if not Path(args.dictionary).is_dir():
        raise HinterError(f"--dictionary {args.dictionary}: folder not found")
    compiled = dictionary_pairs.compile_dictionary(args.attributes, Path(args.dictionary))
    pairs = pairs_from_table(compiled.table, args.attributes)
    shown, total, kept = [], 0, 0
    for suite in suites:
        mutator = SuiteMutator(pairs, plan.parse_suite(suite.name))
        for mutant in mutator.mutants("text", args.text):
            total += 1
            if len(shown) < args.limit:
                used = [mutator.pairs[pid] for pid in mutant.pair_ids]
                changes = "; ".join(f"{p.source_form} → {p.target}" for p in used)
                shown.append((suite.name, changes, apply_edits(args.text, mutant.edits)))
    if not total:
        say("no dictionary term of the attributes occurs in the text: no mutants")
        return EXIT_OK
    verdict = _invariant(args.parser) if not args.no_invariant else None
    for suite_name, changes, text in shown:
        mark = ""
        if verdict is not None:
            ok, reason = verdict(args.text, text)
            kept += ok
            mark = "  [valid]" if ok else f"  [discarded: {reason}]"
        print(f"[{suite_name}] {changes}{mark}\n    {text}")
    checked = f"; {kept} of them valid (the invariant keeps them)" if verdict else ""
    more = f" (--limit {args.limit}; --limit {total} shows all)" if total > len(shown) else ""
    say(f"showed {len(shown):,} of {plural(total, 'mutant')}{more}{checked}")
    return EXIT_OK


def _invariant(pipeline: str):
    """``(original, mutant) -> (valid, reason)``: the run's dependency invariant (paper Alg. 3)."""
    from hinter.invariant import SentenceSplitter, SpacyParser, inv_check, load_pipeline
    from hinter.invariant.parse import pipeline_info

    try:
        nlp = load_pipeline(pipeline)
    except HinterError as exc:
        raise HinterError(str(exc).replace("config key 'parser.pipeline'", "--parser")) from None
    parser = SpacyParser(nlp, pipeline_info(nlp).fingerprint)
    split = SentenceSplitter.for_pipeline(nlp).split

    def check(original: str, mutant: str) -> tuple[bool, str]:
        result = inv_check(original, mutant, split, parser.parse, max_sentence_chars=500)
        return bool(result.valid), str(result.reason)

    return check


def add_mutate(sub) -> None:
    mutate = sub.add_parser(
        "mutate",
        help="show the mutants of one text, valid or discarded",
        description="The mutants hinter test would make of one text, with the dependency "
        "invariant's verdict on each (valid: kept and predicted; discarded: its parse changed).",
    )
    mutate.add_argument("text", help="the text to mutate (quote it)")
    mutate.add_argument(
        "--attributes",
        type=attributes_list,
        default=["race", "gender", "body"],
        help="attributes to swap, comma-separated (default race,gender,body)",
    )
    mutate.add_argument(
        "--orders",
        type=orders_list,
        default=[1, 2],
        help="which mutants: 1 atomic, 2 intersectional pairs, 3 triples (default 1,2)",
    )
    mutate.add_argument(
        "--dictionary", default=str(RESOURCES / "dictionary"), help="curated dictionary folder"
    )
    mutate.add_argument("--limit", type=at_least(1), default=20, help="mutants shown (default 20)")
    mutate.add_argument(
        "--parser", default="en_core_web_sm", help="spaCy pipeline of the invariant"
    )
    mutate.add_argument(
        "--no-invariant", action="store_true", help="do not parse: no valid/discarded marks"
    )
