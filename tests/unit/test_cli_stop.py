"""A stopped command ends with its one line, even when a finaliser fails on the way out (a Ctrl-C
inside pyarrow's ParquetWriter.close left its __del__ to fail again and print a traceback)."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import gc, importlib, sys
m = importlib.import_module("hinter.cli.main")

class HalfWritten:
    def __del__(self):
        raise OSError("closing a half-written file")

def command(args):
    leak = HalfWritten()
    leak.cycle = leak  # collected by gc.collect() below, after main has returned
    raise {exc}

m.COMMANDS["estimate"] = (m.COMMANDS["estimate"][0], command)
code = m.main([{debug}"estimate"])
gc.collect()
sys.exit(code)
"""


def run(exc: str, debug: bool = False) -> subprocess.CompletedProcess:
    program = PROGRAM.format(exc=exc, debug='"--debug", ' if debug else "")
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_an_interrupted_command_prints_one_line_whatever_fails_after_it():
    from hinter.cli.args import EXIT_INTERRUPTED, EXIT_TERMINATED

    stopped = run("KeyboardInterrupt")
    assert stopped.returncode == EXIT_INTERRUPTED
    assert stopped.stderr == "hinter: interrupted; rerun the same command to resume\n"
    terminated = run("__import__('hinter.cli.args').cli.args.Terminated()")
    assert terminated.returncode == EXIT_TERMINATED
    assert terminated.stderr.splitlines() == [
        "hinter: terminated; rerun the same command to resume"
    ]


def test_debug_and_other_errors_keep_the_finalisers_report():
    """Only a stop silences finalisers: a real error (or --debug) leaves Python's report alone."""
    failed = run("ValueError('boom')")
    assert failed.stderr.splitlines()[0].startswith("hinter: internal error (ValueError: boom)")
    assert "closing a half-written file" in failed.stderr
    assert "closing a half-written file" in run("KeyboardInterrupt", debug=True).stderr
