"""``demo``: build an example quest and show the gate reject it, then pass (``ds_gate.demo.run`` does the work)."""

from __future__ import annotations

import contextlib
import io
import sys
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
    """``-q``: the verdict lines only (``ds-gate demo: …`` and where the quest is kept); the whole
    story still when the demo fails, since it is what says why."""
    if not args.quiet:
        return run_demo(args.dir, fmt=args.format, pending=args.pending)
    story = io.StringIO()
    with contextlib.redirect_stdout(story):
        code = run_demo(args.dir, fmt=args.format, pending=args.pending)
    lines = story.getvalue().splitlines()
    kept = lines if code else [line for line in lines if line.startswith(("ds-gate demo:", "the example quest"))]
    sys.stdout.write("".join(line + "\n" for line in kept))
    return code
