"""A run's winning copy read again, where the loader read it: what a baseline's commit is
compared with (``engine.baseline_match``).

A baseline takes a run out of the pending list only while its record is the one the baseline's
commit held, so the bytes compared must be the ones the gate judged: a branch tip's from its
commit, the committing workspace's from git's index (the commit hook), a folder's from the file,
never through a link out of the quest (as the loader reads them). Read only for the runs a
baseline's commit names, once per gate run; what cannot be read now is None (never "the same").

Not only the winning copy: a run a baseline's commit held is baselined only while every copy the
gate reads of it is one that commit held (a back-dated copy loses the ranking and would hide), so
``record_copies`` lists every record file of a workspace with its blob id, where the loader reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.git import GitError, blob_id
from ds_gate.kernel.gitpaths import read_paths, tree_entries
from ds_gate.kernel.layout import INDEX_NAME
from ds_gate.model.records import Workspace
from ds_gate.sources.folders import FolderReader
from ds_gate.sources.records import index_lines, index_rows
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


Copy = tuple[str, str, bytes | None]  # a record file: its name below artifacts/, its blob id, its bytes


def record_copies(
    root: Path, ws: Workspace, staged: bool, skip: Collection[str], algo: str, wanted: Callable[[str, str], bool]
) -> Iterator[Copy]:
    """Every record file ``artifacts/<folder>/<name>.json`` of ``ws`` outside the ``skip``
    folders, as the loader reads it (a branch tip from its commit, the committing workspace
    from git's index, a folder from its files), with its blob id (``algo``: the repository's
    object format) and its bytes: a folder's always, git's only where ``wanted(name, blob id)``
    (None past the size limit). A file that cannot be read now is left out: the loader reports it."""
    if ws.ref is not None or staged:
        entries = _tip_entries(root, ws, skip) if ws.ref is not None else _staged_entries(ws, skip)
        asked = sorted({oid for name, oid in entries.items() if wanted(name, oid)})
        try:
            blobs = cat_file(root if ws.ref is not None else ws.path, asked) if asked else {}
        except GitError:
            blobs = {}
        for name, oid in sorted(entries.items()):
            data = blobs.get(oid)
            yield name, oid, data if isinstance(data, bytes) else None
        return
    reader = FolderReader(ws, root)
    for name, raw in reader.read_many(reader.record_names(skip)):
        if isinstance(raw, bytes):
            yield name, blob_id(raw, algo), raw


def _tip_entries(root: Path, ws: Workspace, skip: Collection[str]) -> dict[str, str]:
    """A branch tip's record blobs, by name below ``artifacts/`` (links and folders left out)."""
    if not ws.commit:
        return {}
    try:
        listed = list(tree_entries(root, ws.commit, [":(top,literal)artifacts"]))
    except GitError:
        return {}
    entries: dict[str, str] = {}
    for mode, kind, oid, path in listed:
        name = path.removeprefix("artifacts/")
        if kind == "blob" and mode.startswith("100") and _record(name, skip):
            entries[name] = oid
    return entries


def _staged_entries(ws: Workspace, skip: Collection[str]) -> dict[str, str]:
    reader = _staged(ws)
    if reader is None:
        return {}
    return {name: oid for name in reader.record_names(skip) if (oid := reader.blob_of(name)) is not None}


def _record(name: str, skip: Collection[str]) -> bool:
    sub, sep, file = name.partition("/")
    return bool(sep) and "/" not in file and file.endswith(".json") and sub not in skip


def index_again(root: Path, ws: Workspace, staged: bool) -> list[bytes] | None:
    """The lines of ``ws``'s index, stripped, blank ones left out, as the loader read them; None
    when it cannot be read now (a line too long to hold makes the whole index unread)."""
    if ws.ref is not None:
        try:
            got = read_paths(root, ws.commit or ws.ref, [f"artifacts/{INDEX_NAME}"]) if ws.commit else {}
        except GitError:
            return None
        data = got.get(f"artifacts/{INDEX_NAME}")
        return index_rows(data.splitlines()) if isinstance(data, bytes) else None
    reader = _staged(ws) if staged else FolderReader(ws, root)
    if reader is None:
        return None
    try:
        raw = list(index_lines(reader))
    except OSError:
        return None
    if any(not isinstance(line, bytes) for line in raw):
        return None
    return index_rows([line for line in raw if isinstance(line, bytes)])
