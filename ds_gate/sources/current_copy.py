"""A run's winning copy read again, where the loader read it: what a baseline's commit is
compared with (``engine.baseline_match``).

A baseline takes a run out of the pending list only while its record is the one the baseline's
commit held, so the bytes compared must be the ones the gate judged: a branch tip's from its
commit, the committing workspace's from git's index (the commit hook), a folder's from the file,
never through a link out of the quest (as the loader reads them). Read only for the runs a
baseline's commit names, once per gate run; what cannot be read now is None (never "the same").
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.git import GitError
from ds_gate.kernel.gitpaths import read_paths
from ds_gate.kernel.layout import INDEX_NAME
from ds_gate.model.records import Workspace
from ds_gate.sources.folders import FolderReader
from ds_gate.sources.records import index_lines
from ds_gate.sources.staged import StagedReader


def _staged(ws: Workspace) -> StagedReader | None:
    try:
        return StagedReader(ws)
    except GitError:
        return None


def copies_again(root: Path, ws: Workspace, displays: Iterable[str], staged: bool) -> dict[str, bytes | None]:
    """The bytes of each record copy (its ``display``, as the loader named it) of workspace
    ``ws``; ``staged``: ``ws`` was read from git's index. None: it cannot be read now."""
    wanted = sorted(set(displays))
    out: dict[str, bytes | None] = dict.fromkeys(wanted)
    prefix = ws.display("artifacts/")
    if ws.ref is not None:
        paths = {d: d.removeprefix(f"{ws.ref}:") for d in wanted if d.startswith(f"{ws.ref}:")}
        try:
            got = read_paths(root, ws.commit or ws.ref, paths.values()) if paths and ws.commit else {}
        except GitError:
            got = {}
        for display, path in paths.items():
            held = got.get(path)
            out[display] = held if isinstance(held, bytes) else None
        return out
    below: dict[str, str] = {}
    if staged:
        reader = _staged(ws)
        below = {d: d[len(prefix) :] for d in wanted if d.startswith(prefix)}
        names = [n for n in below.values() if reader is not None and reader.blob_of(n) is not None]
        read = dict(reader.read_many(names)) if reader is not None and names else {}
        for display, name in below.items():
            data = read.get(name)
            out[display] = data if isinstance(data, bytes) else None
    for display in wanted:
        if display not in below:  # a folder's file, or an index line's record the loader followed there
            out[display] = _file(root, display)
    return out


def _file(root: Path, display: str) -> bytes | None:
    """A quest-relative file, through a link only when it stays inside the quest."""
    full = root / display
    try:
        real = Path(os.path.realpath(full))
        if not is_inside(root, real):
            return None
        return fs.read_file(real, follow=False)
    except OSError:
        return None


def index_again(root: Path, ws: Workspace, staged: bool) -> list[bytes] | None:
    """The lines of ``ws``'s index, stripped, blank ones left out, as the loader read them; None
    when it cannot be read now (a line too long to hold makes the whole index unread)."""
    if ws.ref is not None:
        try:
            got = read_paths(root, ws.commit or ws.ref, [f"artifacts/{INDEX_NAME}"]) if ws.commit else {}
        except GitError:
            return None
        data = got.get(f"artifacts/{INDEX_NAME}")
        return _lines(data.splitlines()) if isinstance(data, bytes) else None
    reader = _staged(ws) if staged else FolderReader(ws, root)
    if reader is None:
        return None
    try:
        raw = list(index_lines(reader))
    except OSError:
        return None
    if any(not isinstance(line, bytes) for line in raw):
        return None
    return _lines([line for line in raw if isinstance(line, bytes)])


def _lines(raw: list[bytes]) -> list[bytes]:
    if raw and raw[0].startswith(b"\xef\xbb\xbf"):
        raw[0] = raw[0][3:]
    return [line.strip() for line in raw if line.strip()]
