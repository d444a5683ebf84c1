"""``check``, ``closure`` and ``candidates``: one gate over a quest, three ``Scope``s of it
(``model.reports.SCOPES``), so one module parses all three and one ``run`` serves them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ds_gate.cli import all_quests
from ds_gate.cli._shared import HOME_HELP, PATH_HELP, Default, emit, source_options, verdict
from ds_gate.cli.options import gate_options
from ds_gate.config.failclosed import ACCEPT_FLAG
from ds_gate.config.quest import read_quest_config
from ds_gate.engine.gate import Gate, scope_of
from ds_gate.engine.options import HELP, GateOptions
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.reporters.registry import TEXT
from ds_gate.sources.location import locate

if TYPE_CHECKING:
    from ds_gate.config.quest import QuestConfig
    from ds_gate.model.reports import GateReport
    from ds_gate.sources.location import Location


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    """``candidates`` never fails, so it takes no --require, --home, --accept-quest-waivers or --all-quests."""
    can_fail = scope_of(name).can_fail
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    source_options(p)
    p.add_argument("--no-cache", action="store_true", help=HELP["cache"])
    p.add_argument("--config", metavar="FILE", help=HELP["config"])  # the trusted settings a caller may give
    if can_fail:
        p.add_argument(ACCEPT_FLAG, action="store_true", help=HELP["accept_quest_waivers"])
        p.add_argument(
            "--require",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=HELP["require"] + f" (--no-require: {HELP['no_require']})",
        )
        p.add_argument("--home", metavar="DIR", help=HOME_HELP)
        p.add_argument(
            "--all-quests",
            action="store_true",
            help="judge every quest of the home (--home DIR) in one process and print a summary "
            f"table: --format {all_quests.SUMMARY_FORMATS} (for $GITHUB_STEP_SUMMARY); exit 2 if any quest "
            "is unreadable, else 1 if any failed",
        )


@dataclass(frozen=True, slots=True)
class GateCommand:
    """One gate command: the quest located and its configuration read once; ``output``: the namespace."""

    command: str
    location: Location
    config: QuestConfig
    options: GateOptions
    output: argparse.Namespace

    def judge(self) -> GateReport:
        return Gate(self.location, scope_of(self.command), self.options, config=self.config).run()

    def run(self) -> int:
        report = self.judge()
        emit(report, self.output)
        return verdict(report)


def gate_command(args: argparse.Namespace) -> GateCommand:
    """The command ``args`` name, its quest located and its options built; a stop raises here or in ``judge``."""
    # once: for the configuration, then for the gate; only closure stops on a repository that is no quest
    location = locate(args.path, any_repository=args.command != "closure")
    config = read_quest_config(location.root)  # once: for the options, then for the gate
    options, args.format = gate_options(args, config)  # the configured format, unless --format was given
    return GateCommand(args.command, location, config, options, args)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "all_quests", False):
        return all_quests.run(args)
    return gate_command(args).run()


def closure_stop(path: str, home: str | None) -> QuestError | GitError | None:
    """What ``ds-gate closure PATH [--home DIR]`` stops on here (exit 2: a place it cannot see, a
    configuration it cannot read), or None: closure's own steps, run to their end, its verdict
    dropped. ``doctor`` in CI asks it, so it fails exactly where the job's closure would stop."""
    parser = argparse.ArgumentParser(add_help=False)
    arguments(parser, "closure")
    args = parser.parse_args([*(["--home", home] if home else []), "--", path])
    args.command, args.format = "closure", Default(TEXT)  # no --format: the configured one, checked as closure does
    try:
        gate_command(args).judge()
    except (QuestError, GitError) as exc:
        return exc
    return None
