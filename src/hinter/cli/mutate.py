"""``hinter mutate``: the mutants of one text."""

from __future__ import annotations

import argparse
from pathlib import Path

from hinter import plan
from hinter.cli.args import EXIT_OK, at_least, attributes_list, orders_list, say, suites_for
from hinter.errors import HinterError
from hinter.paths import RESOURCES


def cmd_mutate(args: argparse.Namespace) -> int:
    """Print the atomic (and intersectional) mutants of one text."""
    from hinter.dictionary import pairs as dictionary_pairs
    from hinter.edits import apply_edits
    from hinter.mutation.generate import SuiteMutator, pairs_from_table

    if not args.text.strip():
        raise HinterError("text: the text is empty")
    suites = suites_for(args.attributes, args.orders)
    if not Path(args.dictionary).is_dir():
        raise HinterError(f"--dictionary {args.dictionary}: folder not found")
    compiled = dictionary_pairs.compile_dictionary(args.attributes, Path(args.dictionary))
    pairs = pairs_from_table(compiled.table, args.attributes)
    shown = 0
    for suite in suites:
        mutator = SuiteMutator(pairs, plan.parse_suite(suite.name))
        for mutant in mutator.mutants("text", args.text):
            if shown >= args.limit:
                return EXIT_OK
            used = [mutator.pairs[pid] for pid in mutant.pair_ids]
            changes = "; ".join(f"{p.source_form} → {p.target}" for p in used)
            print(f"[{suite.name}] {changes}\n    {apply_edits(args.text, mutant.edits)}")
            shown += 1
    if not shown:
        say("no dictionary term of the attributes occurs in the text: no mutants")
    return EXIT_OK


def add_mutate(sub) -> None:
    mutate = sub.add_parser("mutate", help="show the mutants of one text")
    mutate.add_argument("text")
    mutate.add_argument("--attributes", type=attributes_list, default=["race", "gender", "body"])
    mutate.add_argument("--orders", type=orders_list, default=[1, 2])
    mutate.add_argument("--dictionary", default=str(RESOURCES / "dictionary"))
    mutate.add_argument("--limit", type=at_least(1), default=20)
