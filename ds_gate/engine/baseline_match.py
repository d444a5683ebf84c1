"""Which pending runs a baseline's commit baselines: a run its tree already held as a completed
run, whose record is still that one (``engine.baseline`` applies it).

A run is its ``artifact_id`` everywhere, but an id is not the run: a run ``running`` in the
commit may complete afterwards, and a new experiment may be recorded over an old id. So a
commit baselines a run only when

- its tree held the run completed, by the gate's completed-run rule (the plugins' answer, else
  PR #60's, as ``rules.coverage`` reads every record; a run the tree holds only as index lines
  by its line's status, as ``rules.coverage.is_completed`` counts such a run), and
- the run's winning copy now is the same: its record's blob id is the blob id of a completed
  record of the tree (byte for byte); counted from index lines only, every line naming it now
  was in the tree; where the tree held the run only as index lines and a record is there now,
  the record says what a completed line said (``status``, ``summary``, ``updated_at``: main
  writes the line from the record, and a rewrite through ``artifact.record`` stamps a new
  ``updated_at``).

- and every other copy the gate reads of it (every workspace folder, branch tip, the commit
  hook's staged copy) is one the tree held: a record blob of the run it held; where it held the
  run only as index lines, a record saying what a completed line said and, every index line
  naming it, a line its index held (where it held a record, the gate reads the run from its
  records, and an index line is only their pointer). A new experiment recorded over the id in a
  worktree, back-dated so the held copy still wins the ranking, must not hide behind it.

Anything else stays pending, with the reason (``Same.why_not``, naming the copy): the human sees why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ds_gate.engine.slim import SlimRun, make_slim
from ds_gate.kernel.errors import shown
from ds_gate.kernel.git import blob_id
from ds_gate.kernel.layout import INDEX_NAME
from ds_gate.kernel.triage import parse_record
from ds_gate.model.records import Run, Workspace
from ds_gate.sources.commit_runs import CommitUnreadable, commit_holds
from ds_gate.sources.current_copy import copies_again, index_again, record_copies
from ds_gate.sources.records import folders_for

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.model.records import Quest

Completed = Callable[[Run], bool]


@dataclass(slots=True)
class HeldRun:
    """What a baseline's commits held of one run."""

    done_blobs: set[str] = field(default_factory=set)  # blob ids of its completed record copies
    blobs: set[str] = field(default_factory=set)  # blob ids of all its record copies
    records: int = 0  # its record copies, completed or not
    lines: set[bytes] = field(default_factory=set)  # every index line naming it
    done_lines: list[dict[str, Any]] = field(default_factory=list)  # its completed index lines, parsed
    status: str | None = None  # a status it had there, for the note

    @property
    def done(self) -> bool:
        return bool(self.done_blobs) or (not self.records and bool(self.done_lines))


def commit_evidence(root: Path, commits: Iterable[str], completed: Completed) -> dict[str, HeldRun]:
    """What the commits' trees held of each run, by artifact id; ``CommitUnreadable((commit, problem))``."""
    held: dict[str, HeldRun] = {}
    for commit in commits:
        try:
            items = commit_holds(root, commit)
        except CommitUnreadable as exc:
            raise CommitUnreadable(commit, str(exc)) from None
        for item in items:
            if item.line:
                _line(held, item.data, item.name, completed)
                continue
            slim = make_slim(item.name, item.data, f"{commit[:12]}:{item.name}", ("run",), None)
            if not isinstance(slim, SlimRun):
                continue  # not a run the gate reads: no id to baseline (pending now, it stays pending)
            run = Run(slim.artifact_id, slim.run_id, slim.run_kind, slim.status, "", item.name)
            one = held.setdefault(slim.artifact_id, HeldRun())
            one.records += 1
            one.blobs.add(item.oid)
            if completed(run):
                one.done_blobs.add(item.oid)
            else:
                one.status = one.status or slim.status
    return held


def _line(held: dict[str, HeldRun], line: bytes, index: str, completed: Completed) -> None:
    data = parse_record(line)
    artifact_id = data.get("artifact_id") if data is not None else None
    if data is None or data.get("kind") != "run" or not isinstance(artifact_id, str) or not artifact_id:
        return
    status = data.get("status")
    one = held.setdefault(artifact_id, HeldRun())
    one.lines.add(line)
    run = Run(artifact_id, None, None, status if isinstance(status, str) else None, "", index, from_index=True)
    if completed(run):
        one.done_lines.append(data)
    else:
        one.status = one.status or run.status


def _says(data: dict[str, Any]) -> tuple[Any, ...]:
    """What main's index line says of a record (``_index_line``), bar the path and the quest."""
    return (data.get("status"), data.get("summary") or data.get("message"), data.get("updated_at"))


@dataclass(slots=True)
class Same:
    """Whether a pending run is still the run a commit held completed, and if not, why."""

    quest: Quest
    staged: str | None  # the workspace read from git's index (the commit hook), as the loader read it
    copies: dict[str, bytes | None] = field(default_factory=dict)  # a run's path -> its bytes now
    indexes: dict[str, dict[str, list[bytes]] | None] = field(default_factory=dict)  # a workspace -> its run lines now
    wanted: set[str] = field(default_factory=set)  # the runs ``read`` was asked for
    every: dict[str, list[tuple[str, str, bytes | None]]] = field(default_factory=dict)  # run -> its record copies
    lines_now: dict[str, list[tuple[str, bytes]]] = field(default_factory=dict)  # run -> (its index, a line naming it)

    def read(self, runs: Iterable[Run]) -> None:
        """The current copy of each of ``runs``, read once, a workspace at a time."""
        by_ws: dict[str, list[str]] = {}
        for run in runs:
            self.wanted.add(run.artifact_id)
            if run.from_index:
                ws = self._workspace(run.workspace)
                if ws is not None and run.workspace not in self.indexes:
                    self.indexes[run.workspace] = _by_run(index_again(self.quest.root, ws, ws.rel == self.staged))
            elif run.path not in self.copies:
                by_ws.setdefault(run.workspace, []).append(run.path)
        for rel, displays in by_ws.items():
            ws = self._workspace(rel)
            if ws is not None:
                self.copies.update(copies_again(self.quest.root, ws, displays, rel == self.staged))

    def read_every(self, held: Iterable[dict[str, HeldRun]], algo: str) -> None:
        """Every copy the gate reads of each pending run a commit held completed (those ``read``
        was asked for): each workspace's record files
        of it (with their blob ids) and index lines naming it. A blob a commit held as the record
        of the run its file is named for is not read again, unless that run is one of these."""
        ids = {aid for run_ids in held for aid, one in run_ids.items() if one.done}
        ids &= set(self.wanted)
        known = {oid: aid for run_ids in held for aid, one in run_ids.items() for oid in one.blobs}
        if not ids:
            return

        def settled(name: str, oid: str) -> str | None:  # the run a held blob is, told by its name
            aid = known.get(oid)
            return aid if aid is not None and aid == _stem(name) else None

        def wanted(name: str, oid: str) -> bool:  # its bytes are needed: a run asked for, or one to parse
            aid = settled(name, oid)
            return aid is None or aid in ids

        skip = folders_for(("run",))
        for ws in self.quest.workspaces:
            staged = ws.rel == self.staged
            for name, oid, data in record_copies(self.quest.root, ws, staged, skip, algo, wanted):
                aid = settled(name, oid)
                display = ws.display(f"artifacts/{name}")
                if aid is None and data is not None:
                    slim = make_slim(name, data, display, ("run",), None)
                    aid = slim.artifact_id if isinstance(slim, SlimRun) else None
                if aid in ids:
                    self.every.setdefault(aid, []).append((display, oid, data))
            lines = _by_run(index_again(self.quest.root, ws, staged)) or {}
            where = ws.display(f"artifacts/{INDEX_NAME}")
            for aid in ids.intersection(lines):
                self.lines_now.setdefault(aid, []).extend((where, line) for line in lines[aid])

    def _workspace(self, rel: str) -> Workspace | None:
        return next((ws for ws in self.quest.workspaces if ws.rel == rel), None)

    def why_not(self, held: HeldRun, run: Run) -> str | None:
        """None when ``run`` is the run ``held`` says its commit held completed, in every copy
        the gate reads of it; else why it is pending all the same."""
        why = self._winner(held, run)
        if why is not None:
            return why
        for display, oid, data in self.every.get(run.artifact_id, ()):
            if not (oid in held.blobs if held.records else _says_held(data, held)):
                return (
                    f"its copy {display} is not a record that commit held: it was recorded again after the baseline "
                    "(every copy of a baselined run must be one its commit held)"
                )
        for where, line in self.lines_now.get(run.artifact_id, ()) if not held.records else ():
            if line not in held.lines:
                return (
                    f"{where} has an index line naming it that the commit's index did not hold: it was recorded "
                    "again after the baseline"
                )
        return None

    def _winner(self, held: HeldRun, run: Run) -> str | None:
        """Why the winning copy of ``run`` is not the run ``held`` says its commit held completed."""
        if not held.done:
            status = f" (status {shown(held.status, 40)} there)" if held.status is not None else ""
            return f"it was not a completed run in that commit{status}: it completed after the baseline"
        if run.from_index:
            lines = self.indexes.get(run.workspace)
            mine = lines.get(run.artifact_id) if lines is not None else None
            if not mine:
                return "its index line cannot be read again, to compare with that commit's"
            if all(line in held.lines for line in mine):
                return None
            return "its index lines changed since that commit: it was recorded again after the baseline"
        data = self.copies.get(run.path)
        if data is None:
            return "its record cannot be read again, to compare with that commit's"
        oid = next(iter(held.done_blobs), "")
        if held.done_blobs and blob_id(data, "sha256" if len(oid) == 64 else "sha1") in held.done_blobs:
            return None
        if not held.records:
            if _says_held(data, held):
                return None
            return (
                "its record says other than its index line in that commit (status, summary or updated_at): it was "
                "recorded again after the baseline"
            )
        return "its record changed since that commit: it was rewritten after the baseline"


def _says_held(data: bytes | None, held: HeldRun) -> bool:
    """A record (where the commit held the run only as index lines) saying what a completed line said."""
    record = parse_record(data) if data is not None else None
    return record is not None and any(_says(record) == _says(line) for line in held.done_lines)


def _stem(name: str) -> str:
    return name.rpartition("/")[2].removesuffix(".json")


def _by_run(lines: list[bytes] | None) -> dict[str, list[bytes]] | None:
    """An index's ``kind: run`` lines, by the artifact id each names."""
    if lines is None:
        return None
    out: dict[str, list[bytes]] = {}
    for line in lines:
        data = parse_record(line)
        artifact_id = data.get("artifact_id") if data is not None else None
        if data is not None and data.get("kind") == "run" and isinstance(artifact_id, str):
            out.setdefault(artifact_id, []).append(line)
    return out
