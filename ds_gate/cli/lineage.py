"""``lineage``: the experience cards of a home (and of given quests) traced back to their runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.cli._shared import HOME_HELP, emit, verdict
from ds_gate.engine.lineage import evaluate_lineage

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="quests whose own (quest-scope) cards to check too")
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument("--since", metavar="REV", help="check cards of <home>/memory changed since REV (a git revision)")
    p.add_argument("--quest", metavar="QUEST_ID", help="with --since: the quest that made the changes (else inferred)")


def run(args: argparse.Namespace) -> int:
    report = evaluate_lineage(args.home, args.paths, since=args.since, patching_quest=args.quest)
    emit(report, args)
    return verdict(report)
