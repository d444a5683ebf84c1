"""Bytes of artifact records and index lines from a workspace's folder on disk.

A reader knows one workspace and how to list and read ``artifacts/<dir>/<id>.json`` and
``artifacts/_index.jsonl``; it knows nothing of what a valid record is. Every reader
(folders, git's index, branch tips) gives the same answers from a different place, so
the loader and every check work on any of them. Nothing is followed out of the quest.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Protocol

from ds_gate.kernel import fs
from ds_gate.kernel.fs import TooLarge, is_inside
from ds_gate.kernel.git import GitError, git, split_z
from ds_gate.kernel.layout import INDEX_NAME, KIND_OF_DIR
from ds_gate.model.findings import ERROR, WARNING, Finding
from ds_gate.model.records import Workspace
from ds_gate.sources.gittrees import GITLINK, linked
from ds_gate.sources.problems import symlink_outside, unreadable
from ds_gate.sources.staged import record_place


def gitlinks(workspace: Workspace, paths: list[str]) -> list[Finding]:
    """The record places among ``paths`` (empty folders, or folders where a record belongs)
    that the workspace's checkout holds as gitlinks: a clone checks a committed nested
    repository out as an empty folder, so the runs in it are unseen. One git process, and
    only when such a folder exists; a folder git does not know (or no git) is nothing."""
    try:
        out = git(["ls-files", "-s", "-z", "--", *paths], workspace.path)
    except GitError:
        return []
    found = []
    for item in split_z(out):
        meta, _, path = item.partition("\t")
        expected = record_place(path)
        if meta.startswith(GITLINK + " ") and path in paths and expected is not None:
            found.append(linked("", path, expected, GITLINK, display=workspace.display(path)))
    return found


class Reader(Protocol):
    workspace: Workspace
    findings: list[Finding]

    def index_bytes(self) -> bytes | None: ...  # a reader may stream it instead: ``index_stream()``

    def record_names(self, skip: Collection[str]) -> list[str]: ...

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]: ...


class FolderReader:
    def __init__(self, workspace: Workspace, quest_root: Path) -> None:
        self.workspace = workspace
        self.root = quest_root
        self.findings: list[Finding] = []
        self._dir = self._checked(workspace.path / "artifacts", "artifacts")

    @property
    def folder(self) -> Path | None:
        """The ``artifacts`` folder read (a link inside the quest resolved), or None."""
        return self._dir

    def _checked(self, path: Path, rel: str) -> Path | None:
        """``path`` if it may be read: missing is quiet, a link out of the quest is reported,
        and so is a path the user may not look at (an unreadable folder is never "empty")."""
        try:
            if not path.is_symlink():
                return path if path.exists() else None
            real = Path(os.path.realpath(path))
            if not is_inside(self.root, real):
                self.findings.append(symlink_outside(self.workspace.display(rel), str(real)))
                return None
            return real if real.exists() else None
        except OSError as exc:
            self.findings.append(unreadable(self.workspace.display(rel), exc, severity=ERROR))
            return None

    def index_path(self) -> Path | None:
        """The index file to read (a link inside the quest resolved), or None; a link out of
        the quest or a folder that cannot be looked at is reported in ``findings``."""
        return self._index_path()

    def _index_path(self) -> Path | None:
        if self._dir is None:
            return None
        return self._checked(self._dir / INDEX_NAME, f"artifacts/{INDEX_NAME}")

    def index_bytes(self) -> bytes | None:
        return b"".join(line for line in self.index_stream() if isinstance(line, bytes))

    def index_stream(self) -> Iterator[bytes | TooLarge]:
        """The index a line at a time: streamed, so it may be larger than a record (see
        ``kernel.fs.stream_lines``); a line too long to hold comes as a ``TooLarge``. Not a
        regular file (a FIFO would block): nothing to read. Larger still: a warning."""
        path = self._index_path()
        if path is None:
            return
        try:
            # _checked resolved any link: a link swapped in since is refused, not followed
            yield from fs.stream_lines(path, follow=False)
        except (FileNotFoundError, fs.NotRegular):
            return  # gone, or not an index DeepScientist wrote (a FIFO, a folder): nothing to read
        except OSError as exc:
            self.findings.append(unreadable(self.workspace.display(f"artifacts/{INDEX_NAME}"), exc, severity=WARNING))

    def record_names(self, skip: Collection[str]) -> list[str]:
        if self._dir is None:
            return []
        names: list[str] = []
        hollow: list[str] = []  # record places holding an empty folder (or a folder): gitlinks, perhaps
        try:
            subdirs = sorted(e.name for e in os.scandir(self._dir) if e.is_dir() and e.name not in skip)
        except OSError as exc:
            self.findings.append(unreadable(self.workspace.display("artifacts"), exc, severity=ERROR))
            return []
        if not subdirs and self._dir == self.workspace.path / "artifacts":
            hollow.append("artifacts")
        for sub in subdirs:
            folder = self._checked(self._dir / sub, f"artifacts/{sub}")
            if folder is None:
                continue
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                self.findings.append(unreadable(self.workspace.display(f"artifacts/{sub}"), exc, severity=ERROR))
                continue
            if not entries and sub in KIND_OF_DIR:
                hollow.append(f"artifacts/{sub}")
            for entry in entries:
                if not entry.name.endswith(".json"):
                    continue
                rel = f"{sub}/{entry.name}"
                if entry.is_symlink() and self._checked(Path(entry.path), f"artifacts/{rel}") is None:
                    continue
                if entry.is_file():
                    names.append(rel)
                elif entry.is_dir(follow_symlinks=False):
                    hollow.append(f"artifacts/{rel}")
        if hollow:
            self.findings.extend(gitlinks(self.workspace, hollow))
        return names

    def read_many(self, names: list[str]) -> Iterator[tuple[str, bytes | OSError]]:
        base = f"{self._dir}{os.sep}"  # plain strings: a Path per file costs more than the read
        limit = fs.max_file_bytes()
        folder = fs.open_folder(base) if names else None
        try:
            for name in names:
                data: bytes | OSError
                try:  # a link inside the quest is followed, as listed
                    data = fs.read_file(base + name if folder is None else name, limit=limit, dir_fd=folder)
                except FileNotFoundError:
                    continue  # gone since it was listed: DeepScientist renamed or deleted it mid-read; not an error
                except OSError as exc:
                    data = exc
                yield name, data
        finally:
            if folder is not None:
                os.close(folder)
