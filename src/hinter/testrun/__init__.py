"""One test run: the models × one set of texts, through the workflow's own stages.

What ``hinter test`` and :mod:`hinter.api` run: dictionary → mutation → invariant → prediction
(every model, on the same mutants) → oracle → RQ1 tables and figures, on one shard laid out
exactly like a workflow run directory. :func:`prepare` checks everything and writes nothing;
:func:`run` writes. Settings not given come from the workflow's config schema (its defaults),
so the command line, the API and the workflow agree.
"""

from hinter.testrun.outdir import LOCK, locked_output, writable_folder
from hinter.testrun.plan import Options, TestPlan, check_orders, prepare, suites_for
from hinter.testrun.stages import SHARD, TRACK, run, say, suite_counts

__all__ = [
    "LOCK",
    "SHARD",
    "TRACK",
    "Options",
    "TestPlan",
    "check_orders",
    "locked_output",
    "prepare",
    "run",
    "say",
    "suite_counts",
    "suites_for",
    "writable_folder",
]
