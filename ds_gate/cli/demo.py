"""``demo``: build an example quest and show the gate reject it, then pass (``ds_gate.demo.run`` does the work)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.demo.run import run_demo

if TYPE_CHECKING:
    import argparse

    from ds_gate.cli._shared import Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("demo", parents=[common], help="build an example quest and show the gate reject, then pass")
    p.add_argument("--dir", metavar="DIR", help="build the example here and keep it (default: a temporary folder)")
    p.set_defaults(handler=run)  # its formats: table.FORMATS_OF


def run(args: argparse.Namespace) -> int:
    return run_demo(args.dir, fmt=args.format)
