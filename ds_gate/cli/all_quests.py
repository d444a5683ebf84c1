"""``ds-gate closure --all-quests --home DIR`` (and ``check``): every quest of a home, one process, one summary.

Each quest is judged as ``ds-gate closure QUEST --home DIR`` would judge it and reduced to a row
before the next is read (``engine.home_quests``); the exit code is the worst quest's (docs/ci-many-quests.md).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ds_gate.cli._shared import write, write_file
from ds_gate.cli.options import gate_options
from ds_gate.config.quest import read_quest_config
from ds_gate.config.settings import load
from ds_gate.engine.gate import Gate, scope_of
from ds_gate.engine.home_quests import home_quests, judge_each, judge_lineage, summary
from ds_gate.engine.lineage import evaluate_lineage
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.given_path import given_path
from ds_gate.reporters.escape import printable
from ds_gate.reporters.registry import JSON, MARKDOWN, TEXT
from ds_gate.reporters.summary import render_json, render_markdown, render_text
from ds_gate.sources.home_cards import SharedCards
from ds_gate.sources.location import locate

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from ds_gate.model.reports import GateReport, Scope

RENDER = {TEXT: render_text, JSON: render_json, MARKDOWN: render_markdown}  # the formats a summary is printed in
SUMMARY_FORMATS = f"{', '.join([*RENDER][:-1])} or {[*RENDER][-1]}"  # as --help and the refusal say them
DELAY = 1.0  # seconds before the progress line appears


class Progress:
    """One progress line on a terminal's stderr after ``DELAY`` seconds, rewritten in place, cleared at the end."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream if stream is not None and stream.isatty() else None
        self.start = time.monotonic()
        self.width = 0

    def __call__(self, done: int, total: int, name: str) -> None:
        if self.stream is None or time.monotonic() - self.start < DELAY:
            return
        line = f"ds-gate: {done}/{total} quests judged, now {printable(name)}"[:100]
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def clear(self) -> None:
        if self.stream is not None and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def the_home(args: argparse.Namespace) -> Path:
    """``--home DIR``, else the PATH given when it is a home; never a home guessed from the environment."""
    given = args.home or (args.path if args.path != "." or (Path(".") / "quests").is_dir() else None)
    if not given:
        raise QuestError(
            f"{args.command} --all-quests needs the home", "pass --home DIR (the folder that holds quests/)", ": "
        )
    return given_path(given, "home", must_exist=False)


def judge_by(args: argparse.Namespace, scope: Scope) -> Callable[[Path], GateReport]:
    """How each quest of a home is judged: as ``ds-gate <scope> QUEST --home HOME`` would, with the
    trusted settings read once and the home's global cards read once for every quest of the run
    (``ds-gate report`` judges the quests of a home here too)."""
    settings = load(args.config)  # trusted settings, read once for every quest
    shared = SharedCards()  # the home's global cards, read once for every quest of this run

    def judge(path: Path) -> GateReport:
        location = locate(path)
        config = read_quest_config(location.root)
        options, _ = gate_options(args, config)
        return Gate(location, scope, options, settings=settings, config=config, shared_cards=shared).run()

    return judge


def run(args: argparse.Namespace) -> int:
    fmt = str(args.format)
    if fmt not in RENDER:
        raise QuestError(f"{args.command} --all-quests prints a summary: --format {SUMMARY_FORMATS}, not {fmt}")
    home = the_home(args)
    args.home = str(home)  # every quest's cards are the home's
    judge = judge_by(args, scope_of(args.command))
    progress = Progress(sys.stderr)
    try:
        rows = list(judge_each(home_quests(home), judge, progress))
    finally:
        progress.clear()
    lineage = judge_lineage(lambda: evaluate_lineage(home))  # home::lineage, as pytest --ds-gate=HOME judges it
    data = summary(home, rows, args.command, lineage)
    text = RENDER[fmt](data)
    if args.output:
        write_file(args.output, text, "utf-8")
    elif sys.stdout is not None:
        write(sys.stdout, text, "utf-8" if fmt == JSON else None)
    return int(data["exit_code"])
