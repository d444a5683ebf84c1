"""``commit-check``: the commit hook, for what ``kernel.checkpoint`` did not pass; an ordinary checkpoint prints nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_OK, emit, verdict
from ds_gate.engine.commit import commit_check
from ds_gate.engine.options import HELP

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument(
        "--no-validate", action="store_true", help="only gate finalization commits (pre-commit runs ds-gate-validate)"
    )
    p.add_argument("--require", action="store_true", help=HELP["require"])


def run(args: argparse.Namespace) -> int:
    report = commit_check(".", validate=not args.no_validate, require=args.require)
    if report is None:  # nothing the gate looks at was staged
        return EXIT_OK
    if report.findings or report.notes or not report.ok:
        emit(report, args)
    return verdict(report)
