"""The ``hinter`` entry point: the parser of every command, signals, and one line per error."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from hinter import __version__
from hinter.cli.args import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Parser,
    Terminated,
)  # fmt: skip
from hinter.cli.generate import add_generate_test, cmd_generate_test
from hinter.cli.mutate import add_mutate, cmd_mutate
from hinter.cli.test import add_test, cmd_test
from hinter.cli.tools import (
    add_check_config,
    add_estimate,
    add_sbic_download,
    cmd_check_config,
    cmd_estimate,
    cmd_sbic_download,
)  # fmt: skip
from hinter.errors import HinterError, os_error

log = logging.getLogger("hinter")

COMMANDS: dict[str, tuple[Callable[[Any], None], Callable[[argparse.Namespace], int]]] = {
    "test": (add_test, cmd_test),
    "mutate": (add_mutate, cmd_mutate),
    "sbic-download": (add_sbic_download, cmd_sbic_download),
    "check-config": (add_check_config, cmd_check_config),
    "estimate": (add_estimate, cmd_estimate),
    "generate-test": (add_generate_test, cmd_generate_test),
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="hinter",
        description="Atomic, intersectional and hidden intersectional bias testing (HInter).",
    )
    parser.add_argument("--version", action="version", version=f"hinter {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every stage")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", required=True)
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def _stop(signum, frame) -> None:
    """SIGINT and SIGTERM: stop now, and at the next progress update should Python swallow it."""
    from hinter import progress

    exc = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    progress.request_stop(exc)
    # The stop can land inside a finaliser (pyarrow's ParquetWriter.__del__), where Python
    # swallows it and prints "Exception ignored in ..." at once: the run says it stopped, in one
    # line, and the progress update that follows stops it.
    sys.unraisablehook = _quiet
    raise exc


def _quiet(unraisable) -> None:
    logging.getLogger(__name__).debug("after the stop: %s", unraisable.exc_value)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return COMMANDS[args.command][1](args)
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        message, code = describe(exc)
        if args.debug:
            traceback.print_exc()
        elif isinstance(exc, KeyboardInterrupt):
            # A stop can land inside a writer's close (pyarrow's ParquetWriter); its finaliser
            # then fails again on the way out. The run says it stopped, in one line: nothing after.
            sys.unraisablehook = _quiet
    finally:
        from hinter import progress

        progress.request_stop(None)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"hinter: {message}", file=sys.stderr)
    return code


def describe(exc: BaseException) -> tuple[str, int]:
    """The one line and the exit code for whatever ended a command."""
    if isinstance(exc, HinterError):
        return str(exc), EXIT_ERROR
    if isinstance(exc, Terminated):
        return "terminated; rerun the same command to resume", EXIT_TERMINATED
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; rerun the same command to resume", EXIT_INTERRUPTED
    if isinstance(exc, OSError):
        return os_error(exc), EXIT_ERROR
    if isinstance(exc, MemoryError):
        return "out of memory (try --batch-size 8, or fewer documents)", EXIT_ERROR
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (
        f"internal error ({type(exc).__name__}: {first}); rerun with --debug for the "
        "traceback and report it",
        EXIT_INTERNAL,
    )


if __name__ == "__main__":
    sys.exit(main())
