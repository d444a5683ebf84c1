"""Index lines whose record no reader had: followed when they lead inside the quest (a
folder's or a branch tip's tree alike, at any depth), else reported as missing; a run line
whose record is found nowhere is counted from the line itself (or, for a run record outside
the quest where a file is, reported as unseen).

A part of the loader's ``Collector`` (its base class), kept apart because it is the one
place the collector reads a file by a path the quest wrote, not by a reader.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from ds_gate.engine.copies import Copies
from ds_gate.kernel import fs
from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.errors import shown
from ds_gate.kernel.fs import TooLarge, is_inside
from ds_gate.kernel.git import GitError
from ds_gate.kernel.gitpaths import path_entries
from ds_gate.kernel.layout import ARTIFACT_DIRS, INDEX_NAME
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Run, Workspace
from ds_gate.rules.coverage import COMPLETED_STATUSES, is_completed
from ds_gate.sources.gittrees import OPAQUE, linked, missing
from ds_gate.sources.problems import (
    INDEX_MISSING_RECORD,
    INDEX_RECORD_OUTSIDE_QUEST,
    too_large,
    unreadable,
)
from ds_gate.sources.records import IndexEntry

MISSING_SHOWN = 100  # index.missing-record warnings listed per index file before a summary
Held = tuple[str, bytes | TooLarge | None]  # a tree entry's mode and its blob


def layout_path(entry: IndexEntry) -> str | None:
    """Where DeepScientist main writes the record of ``entry``, relative to its workspace:
    ``artifacts/<dir>/<artifact_id>.json`` joined as main joins it (an id may hold ``/`` or
    ``..``: folders are made), or None when that leaves the workspace."""
    joined = posixpath.normpath(posixpath.join("artifacts", ARTIFACT_DIRS[entry.kind], f"{entry.artifact_id}.json"))
    return None if joined.startswith(("/", "../")) or joined == ".." else joined


class IndexFollower:
    """What the collector does with the index lines no record file answered."""

    root: Path
    workspaces: list[Workspace]
    order: dict[str, int]
    runs: Copies[Run]
    decisions: Copies[Decision]
    findings: list[Finding]
    refused: set[str]
    index_entries: list[tuple[Workspace, IndexEntry]]

    def add(self, ws: Workspace, name: str, display: str, raw: bytes) -> object:
        raise NotImplementedError

    def _answered(self, entry: IndexEntry) -> bool:
        if entry.kind != "run":
            return entry.artifact_id in self.decisions.best
        held = self.runs.best.get(entry.artifact_id)
        return held is not None and not held.from_index

    def resolve_index(self) -> None:
        """Index lines whose record was not among the record files: follow ``path`` (or, where
        it leads nowhere, the place main writes the record) if it stays inside the quest; a
        run line still unanswered is counted from the line, and the record reported missing."""
        held = self._tree_entries()
        self.broken: set[str] = set()  # ids whose record file is there but unparseable: said as that, not missing
        unanswered: list[tuple[Workspace, IndexEntry]] = []
        for ws, entry in self.index_entries:
            if not self._answered(entry) and not self._follow(ws, entry, held):
                unanswered.append((ws, entry))
        reported: set[str] = set()
        per_index: dict[str, int] = {}
        for ws, entry in unanswered:
            if self._answered(entry):  # a later line led to the record
                continue
            if (
                entry.kind == "run"
                and ws.ref is None
                and entry.path is not None
                and not self._inside(entry.path, ws)
                and os.path.isfile(entry.path)
            ):
                if entry.artifact_id not in reported:
                    self.findings.append(_outside(ws, entry))  # a run PR #60 reads there, unseen here: the gate stops
                reported.add(entry.artifact_id)
                continue
            if entry.kind == "run":  # a completed line wins, as a completed copy does (engine.copies)
                run = Run(
                    entry.artifact_id,
                    None,
                    None,
                    entry.status,
                    ws.rel,
                    ws.display(f"artifacts/{INDEX_NAME}"),
                    from_index=True,
                )
                self.runs.offer(
                    entry.artifact_id, run, True, self.order.get(ws.rel, len(self.order)), [], is_completed(run)
                )
            if entry.artifact_id in reported or entry.artifact_id in self.broken:
                continue
            reported.add(entry.artifact_id)
            where = ws.display(f"artifacts/{INDEX_NAME}")
            per_index[where] = per_index.get(where, 0) + 1
            if per_index[where] <= MISSING_SHOWN:
                self.findings.append(_missing(ws, entry, self._inside(entry.path, ws) if entry.path else True))
        for where, count in per_index.items():
            if count > MISSING_SHOWN:
                self.findings.append(
                    INDEX_MISSING_RECORD.at(
                        where,
                        f"... and {count - MISSING_SHOWN} more indexed runs or decisions of this index have no "
                        f"record file ({count} in all; the first {MISSING_SHOWN} are listed; each run among them "
                        "is counted from its line)",
                        hint="the index is stale (or not DeepScientist's); restore the records from git, or cover "
                        "the runs with a distill_review",
                    )
                )

    def _inside(self, path: str, ws: Workspace) -> bool:
        full = Path(os.path.normpath(path if os.path.isabs(path) else ws.path / path))
        return is_inside(self.root, full) and is_inside(self.root, Path(os.path.realpath(full)))

    def _tree_paths(self, ws: Workspace, entry: IndexEntry) -> list[str]:
        """The paths in a branch tip's tree an index line may lead to, as a folder's line is
        followed: its ``path`` (relative, or inside this quest), then where main writes it."""
        paths = []
        if entry.path is not None:
            rel = entry.path
            if os.path.isabs(rel):
                rel = os.path.relpath(os.path.normpath(rel), self.root) if is_inside(self.root, Path(rel)) else ""
            rel = posixpath.normpath(rel.replace(os.sep, "/")) if rel else ""
            if rel and not rel.startswith(("/", "../")) and rel not in (".", ".."):
                paths.append(rel)
        layout = layout_path(entry)
        return [*paths, layout] if layout is not None and layout not in paths else paths

    def _tree_entries(self) -> dict[tuple[str, str], Held]:
        """(commit, path) -> (mode, blob) for every path an unanswered branch-tip line may lead
        to: one ``ls-tree`` per tip and one ``cat-file`` in all, only when such a line is."""
        wanted: dict[str, set[str]] = {}
        for ws, entry in self.index_entries:
            if ws.commit is not None and not self._answered(entry):
                wanted.setdefault(ws.commit, set()).update(self._tree_paths(ws, entry))
        found: dict[tuple[str, str], tuple[str, str]] = {}
        for commit, paths in wanted.items():
            try:
                listed = path_entries(self.root, commit, paths)
            except GitError:
                continue  # the tip's own problems are the ref reader's findings
            found.update(((commit, path), (mode, oid)) for path, (mode, _, oid) in listed.items())
        blobs = cat_file(self.root, sorted({oid for mode, oid in found.values() if mode.startswith("100")}))
        return {key: (mode, blobs.get(oid) if mode.startswith("100") else None) for key, (mode, oid) in found.items()}

    def _follow(self, ws: Workspace, entry: IndexEntry, held: dict[tuple[str, str], Held]) -> bool:
        if ws.ref is not None:  # a branch tip: its commit's tree, never a folder
            return self._follow_tree(ws, entry, held)
        fulls = [entry.path] if entry.path is not None else []
        layout = layout_path(entry)
        fulls += [str(ws.path / layout)] if layout is not None else []
        for path in fulls:
            if not self._inside(path, ws):
                continue
            full = Path(os.path.realpath(path if os.path.isabs(path) else ws.path / path))
            if os.path.isfile(full):  # only regular files (a FIFO would block); an unreadable folder says False
                return self._read_file(entry, full)
        return False

    def _read_file(self, entry: IndexEntry, full: Path) -> bool:
        display = full.relative_to(self.root).as_posix()
        try:
            raw = fs.read_file(full, follow=False)  # resolved above: a link swapped in since is not followed
        except OSError as exc:  # it exists but cannot be read (or is over the size limit): say that, not "missing"
            refused = unreadable(display, exc)
            if not any(f.rule == refused.rule and f.path == display for f in self.findings):
                self.findings.append(refused)
            return True
        owner = max((w for w in self.workspaces if is_inside(w.path, full)), key=lambda w: len(w.path.parts))
        folder = ARTIFACT_DIRS[entry.kind]
        self.add(owner, _name(folder, os.path.relpath(full, owner.path / "artifacts" / folder)), display, raw)
        return self._found(entry, display)

    def _found(self, entry: IndexEntry, display: str) -> bool:
        """Whether the record the line led to answered it; one that is there but does not
        parse is remembered, so the line's run is counted from it without a false "missing"."""
        if display in self.refused:
            self.broken.add(entry.artifact_id)
        return self._answered(entry)

    def _follow_tree(self, ws: Workspace, entry: IndexEntry, held: dict[tuple[str, str], Held]) -> bool:
        """A branch tip's line, followed in its commit's tree as a folder's is on disk; a link
        or a blob the clone lacks is said (fail closed), never taken as "no record"."""
        ref = ws.ref or ws.rel
        for path in self._tree_paths(ws, entry):
            got = held.get((str(ws.commit), path))
            if got is None:
                continue
            mode, raw = got
            display = ws.display(path)
            if mode in OPAQUE:
                problem = linked(ref, path, "the record", mode)
            elif not mode.startswith("100"):
                continue
            elif isinstance(raw, bytes):
                folder = ARTIFACT_DIRS[entry.kind]
                self.add(ws, _name(folder, posixpath.relpath(path, f"artifacts/{folder}")), display, raw)
                return self._found(entry, display)
            else:
                problem = too_large(display, raw) if isinstance(raw, TooLarge) else missing(ref, path)
            if not any(f.rule == problem.rule and f.path == problem.path for f in self.findings):
                self.findings.append(problem)
            return True
        return False


def _name(folder: str, below: str) -> str:
    """The record's name as the collector takes it, ``<folder>/<path below artifacts/<folder>/>``:
    a nested id's file (``runs/sub/run-a.json``) is named as main named it, so its id matches."""
    return f"{folder}/{below.replace(os.sep, '/')}"


def _missing(ws: Workspace, entry: IndexEntry, inside: bool) -> Finding:
    """The record of an index line found nowhere the gate reads; a run is counted from the line."""
    rel = layout_path(entry) or f"artifacts/{ARTIFACT_DIRS[entry.kind]}/{entry.artifact_id}.json"
    where = "" if inside or entry.path is None else f"{entry.path} (outside the quest, not read) or "
    message = f"the index lists {entry.kind} {entry.artifact_id} but no record file exists at {where}{ws.display(rel)}"
    if entry.kind != "run":
        return INDEX_MISSING_RECORD.at(
            ws.display(f"artifacts/{INDEX_NAME}"),
            message,
            line=entry.line,
            hint="restore the record file from git (or the worktree that wrote it); without it the gate cannot see "
            "this decision",
        )
    return INDEX_MISSING_RECORD.at(
        ws.display(f"artifacts/{INDEX_NAME}"),
        f"{message}; the run is counted from this line (status {shown(entry.status)}): "
        + (
            "completed, it stays pending until a distill_review covers it"
            if (entry.status or "").strip().casefold() in COMPLETED_STATUSES
            else "not completed, so not pending"
        ),
        hint="restore the record (<path>: the record path above, in the workspace of this index): "
        "`git log --all -- <path>` names the commits that touched it; `git checkout <rev> -- <path>` with the "
        "last one that held it (the deleting commit's parent, `<commit>^`), then commit it; or cover the run "
        "with a distill_review",
        line=entry.line,
    )


def _outside(ws: Workspace, entry: IndexEntry) -> Finding:
    """A folder's index line naming a run record outside the quest, where a file is: PR #60
    counts that run; ds-gate never follows a pointer out, so the gate stops (``engine.unseen``)."""
    return INDEX_RECORD_OUTSIDE_QUEST.at(
        ws.display(f"artifacts/{INDEX_NAME}"),
        f"the index lists run {entry.artifact_id} at {entry.path}, outside the quest, where a file is (not read)",
        hint=f"move the record into the quest ({ws.display(f'artifacts/runs/{entry.artifact_id}.json')}) and commit it, or, if that run is not this quest's, "
        "remove its line from the index",
        line=entry.line,
    )
