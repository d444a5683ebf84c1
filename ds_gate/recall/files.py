"""Recall's file sources: a file read whole into entries (a JSONL lesson file, a home's quirks
file), beside the memory cards the index reads one by one. A strict source stops recall when it
cannot be read (a ``--jsonl`` the user named); a lenient one becomes a problem said (the trusted
configuration's ``recall_jsonl``, which may have moved)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from ds_gate.recall.entries import Budget, Entry
from ds_gate.recall.jsonl import SourceProblem, Unreadable

__all__ = ["Source", "SourceProblem", "read_sources"]


class Source(NamedTuple):
    """A file read whole into entries (a JSONL file, a quirks file), with what its reading skipped;
    its stat is part of the index's stamp. ``lenient``: one that cannot be read is a problem said,
    not an error (the trusted configuration's ``recall_jsonl``, the home's quirks files)."""

    path: Path
    read: Callable[[Path, Budget], tuple[list[Entry], list[SourceProblem]]]
    lenient: bool = False


def read_sources(sources: Sequence[Source], budget: Budget) -> tuple[list[Entry], list[SourceProblem]]:
    """Every source's entries and problems: a strict source (``--jsonl``) that cannot be read is an
    error (exit 2), a lenient one a problem said, so recall never stops on a configured file that moved."""
    entries: list[Entry] = []
    problems: list[SourceProblem] = []
    for source in sources:
        try:
            records, skipped = source.read(source.path, budget)
        except Unreadable as exc:
            if not source.lenient:
                raise
            records, skipped = [], [exc.problem]
        entries.extend(records)
        problems.extend(skipped)
    return entries, problems
