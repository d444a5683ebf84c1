"""``ds-gate report``: a home's distillation health, quest by quest (engine.health).

Each quest is judged as ``closure --all-quests`` judges it (``all_quests.judge_by``: one quest in
memory at a time, the home's global cards read once) and reduced to its row. It is a report, not
a gate: exit 0 whenever it is made, whatever it shows; 2 when the home's quests cannot be listed.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.cli._shared import HOME_HELP, write, write_file
from ds_gate.cli.all_quests import Progress, judge_by
from ds_gate.cli.options import home_from_environment
from ds_gate.config.settings import load
from ds_gate.engine.gate import scope_of
from ds_gate.engine.health import HealthRow, health, health_row, unreadable_row
from ds_gate.engine.home_quests import home_quests, reduce_each
from ds_gate.engine.options import HELP
from ds_gate.reporters.health import RENDER
from ds_gate.reporters.registry import JSON
from ds_gate.sources.memory import resolve_home

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument(
        "quests",
        nargs="*",
        metavar="QUEST",
        help="only these quests: a folder name under HOME/quests, or the path of one (default: every quest)",
    )
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument("--config", metavar="FILE", help=HELP["config"])
    p.add_argument("--no-cache", action="store_true", help=HELP["cache"])
    p.set_defaults(source=None, refs=None)  # each quest read as closure reads it (trusted source and refs)


def the_home(args: argparse.Namespace) -> Path:
    """``--home``, else as every command finds it: $DEEPSCIENTIST_HOME, $DS_HOME, the trusted
    configuration's ``home``, ~/DeepScientist."""
    configured = None if home_from_environment() else load(args.config).values.get("home")
    return resolve_home(args.home or configured)


def chosen(home: Path, names: list[str]) -> tuple[list[Path], list[HealthRow]]:
    """The quest folders of the home (every one, or those named), and a row for each name that is
    none of them. The home's quests are listed either way: a home that cannot be, stops (exit 2)."""
    folders = home_quests(home)
    if not names:
        return folders, []
    by_name = {path.name: path for path in folders}
    picked: list[Path] = []
    missing: list[HealthRow] = []
    for name in dict.fromkeys(names):
        given = Path(name)
        if os.sep in name or "/" in name:  # a path: its folder must be one of the home's quests
            given = given.resolve() if given.exists() else given
            key = given.name if given.parent == (home / "quests").resolve() else None
        else:
            key = name
        if key in by_name:
            picked.append(by_name[key])
        else:
            why = f"no quest folder {name} under {home / 'quests'}; `ds-gate report --home {shlex.quote(str(home))}` lists every quest"
            missing.append(unreadable_row(given, why))
    return picked, missing


def run(args: argparse.Namespace) -> int:
    home = the_home(args)
    args.home = str(home)  # every quest's cards are the home's
    quests, missing = chosen(home, list(args.quests))
    judge = judge_by(args, scope_of("closure"))
    progress = Progress(sys.stderr)
    try:
        rows = list(reduce_each(quests, judge, health_row, unreadable_row, progress))
    finally:
        progress.clear()
    fmt = str(args.format)
    text = RENDER[fmt](health(home, [*rows, *missing]))
    if args.output:
        write_file(args.output, text, "utf-8")
    elif sys.stdout is not None:
        write(sys.stdout, text, "utf-8" if fmt == JSON else None)
    return 0
