"""Every committed change of some paths, in the history of every ref, read with one ``git log``.

Shared by ``sources.toggle_seen`` (the toggle in any committed ``quest.yaml``) and
``engine.patch_history`` (the cross-quest patch rules between versions of each card). One
``git log --all --raw -z --topo-order`` lists each touched path's blob before and after each
commit (a merge against each parent); paths the caller does not want (``wanted``) and the same
change reached through several commits are dropped *before* anything is bounded.

At most ``MAX_VERSIONS`` distinct versions are read and parsed (measured on 2 loaded cores:
20,000 ``quest.yaml`` versions naming the toggle ~4.5 s, 20,000 card versions ~14 s).
Beyond it nothing is dropped: ``HistoryTooLong`` stops closure, finalization commits and the
pre-push gate (exit 2) with the fix, as a version git cannot read does (``None``): a version
the gate did not read may be the one that matters. Blobs are read in ``batches`` holding at
most the file limit's bytes, however many large versions a history keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ds_gate.kernel import fs
from ds_gate.kernel.catfile import blob_sizes, cat_file
from ds_gate.kernel.git import git

MAX_VERSIONS = 20000
Item = TypeVar("Item", bound=tuple[str, str])


class HistoryTooLong(Exception):
    """More distinct versions than the scan reads: the gate cannot see them all."""

    def __init__(self, count: int, limit: int) -> None:
        super().__init__(f"{count} distinct versions, over the {limit} the gate reads")
        self.count, self.limit = count, limit


@dataclass(frozen=True, slots=True)
class Change:
    """One path changed by one commit: its blob before (None: added) and after (None: deleted)."""

    commit: str
    path: str
    old: str | None
    new: str | None


def _blob(oid: str) -> str | None:
    return oid if oid.strip("0") else None


def changes(
    root: Path, pathspec: Sequence[str], wanted: Callable[[str], bool] | None = None, revs: Sequence[str] = ("--all",)
) -> list[Change]:
    """Each change of ``pathspec`` whose path ``wanted`` accepts, in the history of every ref
    (``revs``: of these commits instead, full ids only), oldest first; a change (path, before,
    after) that several commits make (a cherry-pick, a merge against each parent) once, at its
    oldest. Raises ``GitError`` where git refuses the repository."""
    out = git(
        [
            "log",
            *revs,
            "--topo-order",
            "--diff-merges=separate",
            "--root",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            "-z",
            "--format=%H",
            "--",
            *pathspec,
        ],
        root,
    )
    found: list[Change] = []
    commit, meta = "", ""
    for token in out.decode("utf-8", "surrogateescape").split("\0"):
        token = token.lstrip("\n")
        if meta:  # the path that follows a raw line
            fields = meta.split()
            if wanted is None or wanted(token):
                found.append(Change(commit, token, _blob(fields[2]), _blob(fields[3])))
            meta = ""
        elif token.startswith(":"):
            meta = token
        elif token:
            commit = token
    found.reverse()
    seen: set[tuple[str, str | None, str | None]] = set()
    once: list[Change] = []
    for change in found:
        key = (change.path, change.old, change.new)
        if key not in seen:
            seen.add(key)
            once.append(change)
    return once


def versions(
    root: Path, items: list[Item], limit: int | None = None
) -> Iterator[tuple[Item, bytes | fs.TooLarge | None]]:
    """Each item (anything, blob id) with its blob as ``cat_file`` reads it (None: git cannot
    read it; the caller must not pass on it), in order and in ``batches``. Raises
    ``HistoryTooLong`` before reading anything when the items hold more than ``limit``
    (``MAX_VERSIONS``) distinct blobs."""
    limit = MAX_VERSIONS if limit is None else limit
    count = len({blob for _, blob in items})
    if count > limit:
        raise HistoryTooLong(count, limit)
    for batch in batches(root, items):
        contents = cat_file(root, [blob for _, blob in batch])
        for item in batch:
            yield item, contents.get(item[1])


def batches(root: Path, items: list[Item]) -> Iterator[list[Item]]:
    """``items`` (anything, blob id) in order, in batches holding at most the file limit's bytes
    between them (a blob over it alone): each blob is bounded by ``cat_file``, and what is held
    at once is bounded too."""
    if not items:
        return
    sizes = blob_sizes(root, [blob for _, blob in items])
    limit = fs.max_file_bytes()
    batch: list[Item] = []
    held = 0
    for item in items:
        size = sizes.get(item[1]) or 0
        if batch and held + size > limit:
            yield batch
            batch, held = [], 0
        batch.append(item)
        held += size
    yield batch
