"""Argument types, exit codes and the one-line-error parser of the ``hinter`` command line."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable

from hinter.config import BUILTIN_ATTRIBUTES
from hinter.testrun import check_orders, suites_for
from hinter.testrun.stages import plural, say

__all__ = ["check_orders", "plural", "say", "suites_for"]  # for the commands

# Exit codes (README "Exit codes").
EXIT_OK = 0
EXIT_ERROR = 1  # bad input, or a run that could not finish: one line on stderr
EXIT_INTERNAL = 4  # a bug: one line, --debug shows the traceback
EXIT_INTERRUPTED = 130  # Ctrl-C (SIGINT)
EXIT_TERMINATED = 143  # SIGTERM (a scheduler's time limit, `kill`)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: temporary files removed, resumable state kept."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line naming the flag, with exit code 1."""

    def error(self, message: str) -> None:  # type: ignore[override]
        message = re.sub(r"^argument (\S+?)(/\S+)?: ", r"\1: ", message)
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(EXIT_ERROR)


def at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer ≥ {low}, got {value}")
        return value

    parse.__name__ = f"integer ≥ {low}"
    return parse


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in 0..1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in 0..1, got {text}")
    return value


def orders_list(text: str) -> list[int]:
    """``1,2`` → [1, 2]: mutation orders (1 = atomic)."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise argparse.ArgumentTypeError(f"expected orders like 1,2, got {text!r}")
    orders = []
    for item in items:
        if not item.isdigit() or int(item) < 1:
            raise argparse.ArgumentTypeError(f"{item!r} is not an order (1, 2, 3, …)")
        orders.append(int(item))
    if len(set(orders)) != len(orders):
        raise argparse.ArgumentTypeError(f"an order is repeated in {text!r}")
    return sorted(orders)


def attributes_list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise argparse.ArgumentTypeError(f"expected attributes like race,gender, got {text!r}")
    unknown = [a for a in items if a not in BUILTIN_ATTRIBUTES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown attribute(s) {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(BUILTIN_ATTRIBUTES)})"
        )
    if len(set(items)) != len(items):
        raise argparse.ArgumentTypeError(f"an attribute is repeated in {text!r}")
    return items


def column_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the column name is empty")
    return text
