"""``validate``: the given artifact files and memory cards against their schemas (pre-commit passes the staged ones)."""

from __future__ import annotations

from ds_gate.commands._shared import EXIT_USAGE, emit, verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ds_gate.commands._shared import Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("validate", parents=[common],
                              help="validate the given run/decision artifact files and memory cards")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--checkpoint", action="store_true",
                   help="judge them as an ordinary checkpoint does (the pre-commit hook): errors of ds-gate's stricter "
                   "(discipline) rules are warnings, only what DeepScientist itself would refuse fails")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """A file that cannot be read is a usage error (exit 2), not a failed check: the caller named the wrong thing."""
    from ds_gate.engine.documents import validate_files

    report, readable = validate_files(args.files, checkpoint=args.checkpoint)
    emit(report, args)
    return verdict(report) if readable else EXIT_USAGE
