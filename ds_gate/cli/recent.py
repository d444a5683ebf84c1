"""``recent``: the quest's artifacts from every workspace, newest first (a listing: never fails)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.cli._shared import EXIT_OK, PATH_HELP, emit, source_options
from ds_gate.cli.options import configured_source
from ds_gate.config.quest import read_quest_config
from ds_gate.engine.recent import list_recent
from ds_gate.kernel.layout import ARTIFACT_DIRS
from ds_gate.model import RecentReport
from ds_gate.sources.location import locate

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    p.add_argument(
        "--kind",
        help=f"only this artifact kind, singular: {', '.join(ARTIFACT_DIRS)} (recall --kind takes "
        "memory kinds, plural)",
    )
    p.add_argument("--limit", type=int, default=20, help="how many (1..200; default 20)")
    source_options(p)


def run(args: argparse.Namespace) -> int:
    location = locate(args.path)  # once: for the configuration, then for the records
    source, refs = configured_source(args, read_quest_config(location.root))  # --from-git/--refs win over the quest's
    results = list_recent(location, args.kind, args.limit, source=source, refs=refs)
    request = {"kind": args.kind, "limit": args.limit, "source": str(source)}
    emit(RecentReport(command="recent", ok=True, findings=[], results=results, request=request), args)
    return EXIT_OK
