"""``recent``: the quest's artifacts from every workspace, newest first (a listing: never fails)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from ds_gate.cli._shared import (
    EXIT_OK,
    PATH_HELP,
    emit,
    source_options,
)
from ds_gate.cli.options import configured_source
from ds_gate.engine.recent import list_recent
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import ARTIFACT_DIRS, KIND_OF_DIR, MEMORY_KINDS
from ds_gate.model import RecentReport
from ds_gate.sources.location import locate

if TYPE_CHECKING:
    import argparse

    from ds_gate.cli._shared import Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("recent", parents=[common], help="the quest's artifacts from every workspace, newest first")
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    p.add_argument("--kind", help=f"only this artifact kind, singular: {', '.join(ARTIFACT_DIRS)} (recall --kind takes "
                   "memory kinds, plural)")
    p.add_argument("--limit", type=int, default=20, help="how many (1..200; default 20)")
    source_options(p)
    p.set_defaults(handler=run)  # its formats: table.FORMATS_OF


def checked_kind(kind: str | None) -> str | None:
    """``--kind`` as DeepScientist spells an artifact kind (``run``), or a usage error (exit 2)
    that names that spelling. Refused, not translated: ``recall --kind`` takes the plural memory
    kinds (``papers``, ``ideas``), so ``recent --kind runs`` is most likely the other command's
    habit, and the JSON's ``request.kind`` then echoes what the records' ``kind`` holds; a
    silent translation would also hide a typo that matches nothing (an empty listing)."""
    if kind is None or kind in ARTIFACT_DIRS:
        return kind
    word = kind.strip().lower()
    guess = KIND_OF_DIR.get(word) or (word if word in ARTIFACT_DIRS else None) or next(
        iter(difflib.get_close_matches(word, list(ARTIFACT_DIRS), n=1, cutoff=0.75)), None)
    recall = (f"; {word} is a memory kind: ds-gate recall --kind {word} lists those cards" if word in MEMORY_KINDS
              else "")
    mean = f"did you mean --kind {guess}? " if guess else ""
    raise QuestError(f"recent --kind {kind!r} is not an artifact kind: {mean}recent takes one artifact kind, singular "
                     f"({', '.join(ARTIFACT_DIRS)}){recall}")


def run(args: argparse.Namespace) -> int:
    args.kind = checked_kind(args.kind)
    location = locate(args.path)  # once: for the configuration, then for the records
    source, refs = configured_source(args, location)  # --from-git/--refs win over the quest's configured ones
    results = list_recent(location, args.kind, args.limit, source=source, refs=refs)
    request = {"kind": args.kind, "limit": args.limit, "source": str(source)}
    emit(RecentReport(command="recent", ok=True, findings=[], results=results, request=request), args)
    return EXIT_OK
