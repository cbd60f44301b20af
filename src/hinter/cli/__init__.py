"""The ``hinter`` command line: bias-test one model on one file with the workflow's own code.

``hinter test MODEL_DIR DATA_FILE`` checks every argument, the input file, the model folder and
the parser first (a one-line error, nothing written, for any bad input), then runs dictionary →
mutation → invariant → prediction → oracle on one shard laid out exactly like a workflow run
directory (``--out``), with progress on stderr, and prints the rates, the truth table and
hidden-bias examples; every run writes an HTML report (``--report``). ``--fail-above`` turns it
into a CI gate, ``--json`` writes the summary, ``--compare`` tests more models on the same
mutants, and a chat LLM or an OpenAI-compatible endpoint is tested with ``--prompt``. The
stages and their checks live in :mod:`hinter.testrun`, the result in :mod:`hinter.api`.
``hinter mutate`` shows the mutants of a text; ``hinter check-config`` checks workflow configs.

Each subcommand is a pair of small functions, ``add_<name>(sub)`` (its arguments) and
``cmd_<name>(args)`` (returns an exit code), registered in :data:`COMMANDS`
(``cli/main.py``); ``cli/args.py`` holds the argument types and exit codes, and one module
per command the rest (``test``, ``mutate``, ``tools``).
"""

from hinter.cli.args import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    Parser,
    Terminated,
)
from hinter.cli.main import COMMANDS, build_parser, describe, main
from hinter.testrun.outdir import LOCK, locked_output

__all__ = [
    "COMMANDS",
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "LOCK",
    "Parser",
    "Terminated",
    "build_parser",
    "describe",
    "locked_output",
    "main",
]
