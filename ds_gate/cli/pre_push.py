"""``pre-push``: the push hook; gates a push only when it sends a finalization commit."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_OK, emit, verdict
from ds_gate.engine.options import HELP
from ds_gate.engine.push import push_check
from ds_gate.kernel.push import pushed_tips, read_stdin, remote_holds

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("remote", nargs="?", help="the remote's name (git passes it; unused)")
    p.add_argument("url", nargs="?", help="the remote's URL (git passes it; unused)")
    p.add_argument("--require", action="store_true", help=HELP["require"])
    p.add_argument("--refs", action="append", metavar="PATTERN", help="the refs to read besides the pushed commits")


def run(args: argparse.Namespace) -> int:
    env = os.environ
    pushes = pushed_tips(".", env, read_stdin())  # under pre-commit: every tip the remote lacks
    report = push_check(".", pushes, require=args.require, refs=args.refs, holds=remote_holds(env))
    if report is None:  # the push finalizes nothing
        return EXIT_OK
    emit(report, args)
    return verdict(report)
