"""``doctor``: whether a quest is guarded, one ok / warn / fail line per check, each with its fix."""

from __future__ import annotations

import argparse

from ds_gate.cli._shared import HOME_HELP, PATH_HELP, emit, verdict
from ds_gate.cli.check import closure_stop
from ds_gate.model.reports import FAIL, DoctorReport
from ds_gate.setup.doctor import diagnose, in_ci


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument(
        "--ci",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="weigh the checks for a CI clone: a missing hook is no failure; what makes closure stop (exit 2) is "
        "one, found by closure's own steps (default: on when the CI environment variable is set, as CI services "
        "set it)",
    )


def run(args: argparse.Namespace) -> int:
    """Fails (exit 1) on a ``fail`` check only: a warning is worth reading, not a broken guard."""
    root, checks = diagnose(args.path, args.home, in_ci(args.ci), lambda: closure_stop(args.path, args.home))
    report = DoctorReport(command="doctor", ok=not any(c.status == FAIL for c in checks), quest=root, checks=checks)
    emit(report, args)
    return verdict(report)
