"""``validate``: the given artifact files and memory cards against their schemas (pre-commit passes the staged ones)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_USAGE, emit, verdict
from ds_gate.engine.documents import validate_files

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument(
        "--checkpoint",
        action="store_true",
        help="judge them as an ordinary checkpoint does (the pre-commit hook): errors of ds-gate's stricter "
        "(discipline) rules are warnings, only what DeepScientist itself would refuse fails",
    )


def run(args: argparse.Namespace) -> int:
    """A file that cannot be read is a usage error (exit 2), not a failed check: the caller named the wrong thing."""
    report, readable = validate_files(tuple(args.files), checkpoint=bool(args.checkpoint))
    emit(report, args)
    return verdict(report) if readable else EXIT_USAGE
