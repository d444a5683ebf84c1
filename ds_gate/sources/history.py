"""Every committed change of some paths, in the history of every ref, read with one ``git log``.

The history scans share this reader and its bounds: ``sources.toggle_seen`` (the toggle in any
committed ``quest.yaml``) and ``engine.patch_history`` (the cross-quest patch rules between
consecutive committed versions of each card). One ``git log --all --raw`` lists, for each
commit that touches the paths, each path's blob before and after it (a merge against each
parent, whatever the quest's ``log.diffMerges`` says), NUL-separated so a quest's path is
never quoted or split; ``--topo-order`` puts a parent before its children once reversed. At
most ``MAX_CHANGES`` changes are kept: the oldest and the newest halves of a longer history.
The blobs are then read in batches (``batches``) that hold at most the file limit's bytes
between them, however many large versions a history keeps (they compress to nothing).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ds_gate.kernel import fs
from ds_gate.kernel.catfile import blob_sizes
from ds_gate.kernel.git import git

MAX_CHANGES = 10000
Item = TypeVar("Item", bound=tuple[str, str])


@dataclass(frozen=True, slots=True)
class Change:
    """One path changed by one commit: its blob before (None: added) and after (None: deleted)."""

    commit: str
    path: str
    old: str | None
    new: str | None


def _blob(oid: str) -> str | None:
    return oid if oid.strip("0") else None


def changes(root: Path, pathspec: Sequence[str]) -> list[Change]:
    """Each change of ``pathspec`` in the history of every ref, oldest first (at most ``MAX_CHANGES``).
    Raises ``GitError`` where git refuses the repository."""
    out = git(["log", "--all", "--topo-order", "--diff-merges=separate", "--root", "--no-renames", "--raw",
               "--no-abbrev", "-z", "--format=%H", "--", *pathspec], root)
    found: list[Change] = []
    commit, meta = "", ""
    for token in out.decode("utf-8", "surrogateescape").split("\0"):
        token = token.lstrip("\n")
        if meta:  # the path that follows a raw line
            fields = meta.split()
            found.append(Change(commit, token, _blob(fields[2]), _blob(fields[3])))
            meta = ""
        elif token.startswith(":"):
            meta = token
        elif token:
            commit = token
    found.reverse()
    half = MAX_CHANGES // 2
    return found if len(found) <= MAX_CHANGES else found[:half] + found[-half:]


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
