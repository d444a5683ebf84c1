"""``demo``: build an example quest and show the gate reject it, then pass (``ds_gate.demo.run`` does the work)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.demo.run import run_demo

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("--dir", metavar="DIR", help="build the example here and keep it (default: a temporary folder)")


def run(args: argparse.Namespace) -> int:
    return run_demo(args.dir, fmt=args.format)
