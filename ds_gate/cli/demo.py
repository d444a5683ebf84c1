"""``demo``: build an example quest and show the gate reject it, then pass (``ds_gate.demo.run`` does the work)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.demo.run import run_demo

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("--dir", metavar="DIR", help="build the example here and keep it (default: a temporary folder)")
    p.add_argument(
        "--pending",
        action="store_true",
        help="stop once the paper bundle is rejected and keep the quest with its runs pending, to practise the "
        "hooks, closure, validate-review and the MCP tools on (needs --dir)",
    )


def run(args: argparse.Namespace) -> int:
    return run_demo(args.dir, fmt=args.format, pending=args.pending)
