"""Index lines whose record no reader had: followed when they lead inside the quest, else
reported as missing (or, for a run record outside the quest where a file is, as unseen).

A part of the loader's ``Collector`` (its base class), kept apart because it is the one
place the collector reads a file by a path the quest wrote, not by a reader.
"""

from __future__ import annotations

import os
from pathlib import Path

from ds_gate.engine.copies import Copies
from ds_gate.kernel import fs
from ds_gate.kernel.layout import ARTIFACT_DIRS
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Run, Workspace
from ds_gate.sources.location import is_inside
from ds_gate.sources.problems import (
    INDEX_MISSING_RECORD,
    INDEX_RECORD_OUTSIDE_QUEST,
    unreadable,
)
from ds_gate.sources.records import IndexEntry

MISSING_SHOWN = 100  # index.missing-record warnings listed per index file before a summary


class IndexFollower:
    """What the collector does with the index lines no record file answered."""

    root: Path
    workspaces: list[Workspace]
    runs: Copies[Run]
    decisions: Copies[Decision]
    findings: list[Finding]
    index_entries: list[tuple[Workspace, IndexEntry]]

    def add(self, ws: Workspace, name: str, display: str, raw: bytes) -> object:
        raise NotImplementedError

    def resolve_index(self) -> None:
        """Index lines whose record was not among the record files: follow ``path`` if it
        stays inside the quest, else say the record is missing (once per artifact)."""
        reported: set[str] = set()
        per_index: dict[str, int] = {}
        for ws, entry in self.index_entries:
            table = self.runs if entry.kind == "run" else self.decisions
            if entry.artifact_id in table.best or entry.artifact_id in reported:
                continue
            if self._follow(ws, entry):
                continue
            reported.add(entry.artifact_id)
            if entry.kind == "run" and ws.ref is None and entry.path is not None and not self._inside(entry.path, ws) \
                    and os.path.isfile(entry.path):
                self.findings.append(_outside(ws, entry))  # a run PR #60 reads there, unseen here
                continue
            where = ws.display("artifacts/_index.jsonl")
            per_index[where] = per_index.get(where, 0) + 1
            if per_index[where] > MISSING_SHOWN:
                continue  # counted, and summed up below
            folder = ARTIFACT_DIRS[entry.kind]
            expected = ws.display(f"artifacts/{folder}/{entry.artifact_id}.json")
            outside = entry.path is not None and not self._inside(entry.path, ws)
            where = f"{entry.path} (outside the quest, not read) or " if outside else ""
            self.findings.append(
                INDEX_MISSING_RECORD.at(
                    ws.display("artifacts/_index.jsonl"),
                    f"the index lists {entry.kind} {entry.artifact_id} but no record file exists at {where}{expected}",
                    hint="restore the record file from git (or the worktree that wrote it); without it the gate cannot see this "
                    + entry.kind,
                    line=entry.line,
                )
            )

        for where, count in per_index.items():
            if count > MISSING_SHOWN:
                self.findings.append(
                    INDEX_MISSING_RECORD.at(
                        where,
                        f"... and {count - MISSING_SHOWN} more indexed runs or decisions of this index have no "
                        f"record file ({count} in all; the first {MISSING_SHOWN} are listed)",
                        hint="the index is stale (or not DeepScientist's); the gate counts only records it can read",
                    )
                )

    def _inside(self, path: str, ws: Workspace) -> bool:
        full = Path(os.path.normpath(path if os.path.isabs(path) else ws.path / path))
        return is_inside(self.root, full) and is_inside(self.root, Path(os.path.realpath(full)))

    def _follow(self, ws: Workspace, entry: IndexEntry) -> bool:
        if ws.ref is not None:  # a branch tip: its index paths name files of another machine
            return False
        if entry.path is None or not self._inside(entry.path, ws):
            return False
        full = Path(os.path.realpath(entry.path if os.path.isabs(entry.path) else ws.path / entry.path))
        if not os.path.isfile(full):  # only regular files (a FIFO would block); an unreadable folder says False
            return False
        display = full.relative_to(self.root).as_posix()
        try:
            raw = fs.read_file(full, follow=False)  # resolved above: a link swapped in since is not followed
        except OSError as exc:  # it exists but cannot be read (or is over the size limit): say that, not "missing"
            refused = unreadable(display, exc)
            if not any(f.rule == refused.rule and f.path == display for f in self.findings):
                self.findings.append(refused)
            return True
        owner = max((w for w in self.workspaces if is_inside(w.path, full)), key=lambda w: len(w.path.parts))
        self.add(owner, f"{ARTIFACT_DIRS[entry.kind]}/{full.name}", display, raw)
        return entry.artifact_id in (self.runs if entry.kind == "run" else self.decisions).best

def _outside(ws: Workspace, entry: IndexEntry) -> Finding:
    """A folder's index line naming a run record outside the quest, where a file is: PR #60
    counts that run; ds-gate never follows a pointer out, so the gate stops (``engine.unseen``)."""
    return INDEX_RECORD_OUTSIDE_QUEST.at(
        ws.display("artifacts/_index.jsonl"),
        f"the index lists run {entry.artifact_id} at {entry.path}, outside the quest, where a file is (not read)",
        hint=f"move the record into the quest ({ws.display(f'artifacts/runs/{entry.artifact_id}.json')}) and commit it, or, if that run is not this quest's, "
             "remove its line from the index",
        line=entry.line,
    )
