"""``mcp``: the agent's read-only tools as a stdio MCP server (needs the ``mcp`` extra)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ds_gate.agent.mcp_server import MissingExtra, serve
from ds_gate.cli._shared import EXIT_OK, EXIT_USAGE, HOME_HELP

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument(
        "--quest",
        metavar="PATH",
        help="any path inside the quest (default: $DS_QUEST_ROOT, else the working directory); "
        "the quest is found again at each call",
    )
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)


def run(args: argparse.Namespace) -> int:
    """The path is made absolute at start and located at each call: an unreadable quest is that call's error."""
    start = args.quest or os.environ.get("DS_QUEST_ROOT", "").strip() or os.getcwd()
    try:
        serve(os.path.abspath(os.path.expanduser(start)), args.home, debug=args.debug)
    except MissingExtra as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
