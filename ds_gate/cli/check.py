"""``check``, ``closure`` and ``candidates``: one gate over a quest, three scopes of it.

They differ only in the ``Scope`` the engine applies (``model.reports.SCOPES``), so one
module registers all three and one ``run`` serves them: it parses the namespace into
``GateOptions`` and hands them to ``GateCommand``, whose ``run() -> int`` is the command.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ds_gate.cli import all_quests
from ds_gate.cli._shared import (
    HOME_HELP,
    PATH_HELP,
    REQUIRE_HELP,
    emit,
    source_options,
    trust_options,
    verdict,
)
from ds_gate.cli.flags import CLI_NO_CACHE, NO_REQUIRE
from ds_gate.cli.options import GateOptions
from ds_gate.config.settings import load
from ds_gate.engine.gate import Gate, GateInputs
from ds_gate.engine.quest_config import read_quest_config
from ds_gate.sources.location import locate

if TYPE_CHECKING:
    from ds_gate.cli._shared import Subparsers
    from ds_gate.engine.quest_config import QuestConfig
    from ds_gate.sources.location import Location

# name, help, whether it can fail (and so takes --require and --home)
GATES = (
    ("check", "validate every decision and report distill coverage (fails on invalid artifacts only)", True),
    ("closure", "the finalization gate: fails while any completed run lacks a distill_review", True),
    ("candidates", "list the completed runs no distill_review covers yet", False),
)


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    for name, help_text, can_fail in GATES:
        p = subparsers.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
        source_options(p)
        p.add_argument("--no-cache", action="store_true", help=CLI_NO_CACHE)
        trust_options(p, accept=can_fail)
        if can_fail:
            p.add_argument("--require", action=argparse.BooleanOptionalAction, default=None,
                           help=REQUIRE_HELP + f" (--no-require: {NO_REQUIRE})")
            p.add_argument("--home", metavar="DIR", help=HOME_HELP)
            p.add_argument("--all-quests", action="store_true",
                           help="judge every quest of the home (--home DIR) in one process and print a summary "
                           "table: --format text, json or markdown (for $GITHUB_STEP_SUMMARY); exit 2 if any quest "
                           "is unreadable, else 1 if any failed")
        p.set_defaults(handler=run)


@dataclass(frozen=True, slots=True)
class GateCommand:
    """One gate command: the quest located and its configuration read once, the options
    parsed from both, and where the report goes (``output``: the namespace's ``--format``,
    ``--output``, ``--color``, ``--quiet``)."""

    command: str
    location: Location
    config: QuestConfig
    options: GateOptions
    output: argparse.Namespace

    def run(self) -> int:
        """The exit code: 0 when the gate passes, 1 when it fails (a QuestError is exit 2, by ``main``)."""
        inputs = GateInputs.asked(self.command, self.options)
        report = Gate(self.location, inputs, settings=load(self.options.config), config=self.config).run()
        emit(report, self.output)
        return verdict(report)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "all_quests", False):
        return all_quests.run(args)
    # once: for the configuration, then for the gate; only closure stops on a repository that is no quest
    location = locate(args.path, any_repository=args.command != "closure")
    config = read_quest_config(location.root)  # once: for the options, then for the gate
    options = GateOptions.from_args(args, location, config)
    args.format = options.format  # the configured format, unless --format was given
    return GateCommand(args.command, location, config, options, args).run()
