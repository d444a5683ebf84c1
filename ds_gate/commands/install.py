"""``install``: the git pre-commit hook into one quest, or into every quest of a home."""

from __future__ import annotations

from ds_gate.commands._shared import PATH_HELP, emit, verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ds_gate.commands._shared import Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("install", parents=[common],
                              help="install the git pre-commit hook into a quest (or every quest of a home)")
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    p.add_argument("--home", metavar="DIR", help="install into every quest under DIR/quests/")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Reported like any other command, so ``--format json`` works for provisioning scripts;
    a quest of a home that could not take the hook is a finding, the others still get it."""
    from ds_gate.install import INSTALL_FAILED, install, install_home
    from ds_gate.model import DocumentsReport

    if args.home is not None:
        done, skipped, failed = install_home(args.home)
    else:
        done, skipped, failed = install(args.path), [], []
    findings = [INSTALL_FAILED.at(None, line) for line in failed]
    notes = [item.describe() for item in done] + skipped
    report = DocumentsReport(command="install", ok=not failed, findings=findings, notes=notes)
    emit(report, args.format)
    return verdict(report)
