"""The catalogue of bad inputs and faults (docs/design.md §10 made executable, issue 15).

One row per bad input or fault of ``hinter test``, ``hinter mutate`` and the workflow's start-up
checks (through ``hinter check-config``, which runs the Snakefile's checks). Every row asserts:
the exit code; exactly one line on stderr, starting ``hinter``, naming the flag, key, file or
row (the row's pattern); no traceback; nothing on stdout; and that the working folder — input
files, model folder, output folder — holds exactly what it held before (nothing new, nothing
half-written). Rows run in-process and fail before any work, most in a few milliseconds.
"""

from __future__ import annotations

import importlib

#: The stage files of the catalogue, in the order of a run; each holds its rows as ``CASES``.
STAGES = (
    "test_arguments",
    "test_paths",
    "test_outputs",
    "test_input_file",
    "test_model_folder",
    "test_mutate",
    "test_generate",
    "test_workflow_config",
)


def catalogue() -> list:
    """Every row of the catalogue (``cases.Case``), stage by stage: the one index."""
    modules = [importlib.import_module(f"{__name__}.{stage}") for stage in STAGES]
    return [case for module in modules for case in module.CASES]
