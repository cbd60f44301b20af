"""The small commands: ``sbic-download``, ``estimate`` and ``check-config``."""

from __future__ import annotations

import argparse
from pathlib import Path

from hinter.cli.args import EXIT_OK, say
from hinter.paths import RESOURCES


def cmd_sbic_download(args: argparse.Namespace) -> int:
    from hinter.dictionary import sbic

    url = args.url or sbic.DEFAULT_URL
    for path in sbic.acquire(url, args.dest, args.checksums, record=args.record):
        print(path)
    return EXIT_OK


def add_sbic_download(sub) -> None:
    sbic = sub.add_parser("sbic-download", help="download, verify and extract SBIC.v2.tgz")
    sbic.add_argument("--url", default=None, help="http(s) URL, file:// URL or local path")
    sbic.add_argument("--dest", default=str(RESOURCES / "sbic"))
    sbic.add_argument("--checksums", default=str(RESOURCES / "sbic" / "checksums.sha256"))
    sbic.add_argument(
        "--record",
        action="store_true",
        help="no digest recorded for the archive: record the downloaded one (trust on first use)",
    )


def cmd_estimate(args: argparse.Namespace) -> int:
    from hinter import estimate_report

    print(estimate_report.run(args))
    return EXIT_OK


def add_estimate(sub) -> None:
    from hinter import estimate_report

    estimate_report.add_arguments(
        sub.add_parser("estimate", help="jobs, CPU- and GPU-hours a config will cost")
    )


def cmd_check_config(args: argparse.Namespace) -> int:
    """Check workflow config files as the Snakefile does at start-up (YAML errors with lines)."""
    from hinter.config import load_yaml, merge, startup_checks, validate_config

    config: dict = {}
    for path in args.configfile:
        config = merge(config, load_yaml(path))
    cfg = validate_config(config)
    from hinter.labe.checks import check_labe_config  # the Snakefile's labe.smk checks it too

    check_labe_config(cfg["labe"], Path.cwd())
    startup_checks(cfg, Path.cwd())
    from hinter.readiness import check_ready

    check_ready(cfg, Path.cwd())
    say(f"{', '.join(args.configfile)}: valid (run {cfg['run_name']})")
    return EXIT_OK


def add_check_config(sub) -> None:
    check = sub.add_parser(
        "check-config",
        help="check workflow config files (what the Snakefile checks at start-up)",
        description="Snakemake reads --configfile before the workflow's own checks run, and "
        "its message for a YAML syntax error names neither the file nor the line: this does.",
    )
    check.add_argument("configfile", nargs="+", help="config files, merged in order")
