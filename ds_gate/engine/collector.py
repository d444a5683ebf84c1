"""The loader's collector: records from any readers, each checked while it is parsed, one
winning copy per artifact id; index lines whose record no reader had are followed (inside
the quest) or reported as missing.

Copies of one artifact (a worktree's checkout inherits its parent branch's records and
index lines) collapse to one, as ``engine.copies`` ranks them: a completed run copy first,
then DeepScientist's ranking (``updated_at``, ``created_at``, compared as text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from operator import attrgetter
from pathlib import Path
from sys import intern

from ds_gate.engine.copies import NO_FINDINGS, Copies
from ds_gate.engine.folder_rows import INDEX_DISPLAY, FolderRows, Row
from ds_gate.engine.index_follow import MISSING_SHOWN, IndexFollower
from ds_gate.engine.record_store import RecordStore
from ds_gate.engine.slim import (
    Bad,
    NotShareable,
    Refused,
    Slim,
    SlimDecision,
    SlimRun,
    at,
    make_slim,
    unplaced,
)
from ds_gate.engine.slim_rows import finding_row
from ds_gate.kernel import fs
from ds_gate.kernel.digest import content_key
from ds_gate.kernel.layout import GATE_KINDS
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Document, Run, Workspace
from ds_gate.sources.folders import FolderReader, Reader
from ds_gate.sources.problems import unreadable
from ds_gate.sources.records import IndexEntry, folders_for, read_index

__all__ = ["MISSING_SHOWN", "Collector", "RecordCheck", "no_checks"]

RecordCheck = Callable[[Document], list[Finding]]
_ENTRY = attrgetter(*(f.name for f in fields(IndexEntry)))  # an index line as its row's tuple, read in C


def no_checks(doc: Document) -> list[Finding]:
    return []


class Collector(IndexFollower, FolderRows):
    """Records from any readers, checked as they are read, one winning copy per artifact id;
    index lines whose record no reader had are followed (inside the quest) or reported."""

    def __init__(
        self,
        root: Path,
        workspaces: list[Workspace],
        kinds: tuple[str, ...] = GATE_KINDS,
        check: RecordCheck = no_checks,
        *,
        share: bool = True,
        store: RecordStore | None = None,
    ) -> None:
        """``share``: copies with the same bytes share one parse and check (only when every
        record finding lies on the record's own path: no plugin rules). ``store``: the
        gate's cache of each folder's verdict inputs (``engine.record_store``), for folder readers; needs ``share``."""
        self.root = root
        self.check = check
        self.share = share
        self.store = store if share else None
        self.memo: dict[bytes, Slim] = {}
        self.kinds = kinds
        self.skip = folders_for(kinds)
        # reports are read for the reviews among them; an index line cannot say which those are
        self.index_kinds = tuple(kind for kind in kinds if kind != "report")
        self.workspaces = workspaces
        self.order = {ws.rel: i for i, ws in enumerate(workspaces)}
        self.runs: Copies[Run] = Copies(self.order)
        self.decisions: Copies[Decision] = Copies(self.order)
        self.findings: list[Finding] = []
        self.refused: set[str] = set()  # the paths of records that do not parse or are refused: reported once
        self.index_entries: list[tuple[Workspace, IndexEntry]] = []
        self.indexed_run_ids: set[str] = set()
        self.indexed_decision_ids: set[str] = set()  # PR #60 reaches a review through these only
        self.limit = fs.max_file_bytes()  # once: the environment asked per file cost ~1 ms per 2,000

    def read(self, reader: Reader) -> None:
        names = reader.record_names(self.skip)
        folder = reader.folder if isinstance(reader, FolderReader) else None
        if (
            self.store is None
            or not self.store.admitted
            or not isinstance(reader, FolderReader)
            or folder is None
            or not self._read_folder(reader, str(folder), names)
        ):
            self._read_all(reader, names)
            self._index(reader.workspace, read_index(reader, self.index_kinds))
        self.findings.extend(reader.findings)

    def _index(self, ws: Workspace, items: Iterable[IndexEntry | Finding], lines: list[Row] | None = None) -> None:
        """A folder's index lines, each kept for ``resolve_index`` only when no record file
        answered it yet (the usual line names a record just read: 150,000 kept lines were ~40 MB
        at 100,000 runs). ``lines``: each line as the folder's cache row keeps it, when it is kept."""
        for item in items:
            if isinstance(item, Finding):
                self.findings.append(item)
                if lines is not None:
                    lines.append(
                        finding_row(unplaced(item)) if item.path == ws.display(INDEX_DISPLAY) else ("elsewhere",)
                    )
                continue
            if item.kind == "run":  # interned: the run record's own id, one string for both
                self.indexed_run_ids.add(intern(item.artifact_id))
                if item.artifact_id not in self.runs.best:
                    self.index_entries.append((ws, item))
            else:
                self.indexed_decision_ids.add(item.artifact_id)
                if item.artifact_id not in self.decisions.best:
                    self.index_entries.append((ws, item))
            if lines is not None:
                lines.append(_ENTRY(item))

    def _read_all(self, reader: Reader, names: list[str]) -> None:
        ws = reader.workspace
        for name, raw in reader.read_many(names):
            display = ws.display(f"artifacts/{name}")
            if isinstance(raw, OSError):
                self.findings.append(unreadable(display, raw))
            else:
                self.add(ws, name, display, raw)

    def add(self, ws: Workspace, name: str, display: str, raw: bytes) -> Slim | None:
        """Read one copy of a record: parsed and checked once per content (a worktree's copy
        of its parent's record costs a hash, not a parse); the slim, when it may be shared."""
        # the file name and the bytes, as one 16-byte digest (a tuple of three objects per
        # record was ~100 bytes more at every run of a 100,000-run quest)
        memo_key = content_key(name, raw) if self.share else None
        slim = self.memo.get(memo_key) if memo_key is not None else None
        if slim is None:
            try:
                slim = make_slim(name, raw, display, self.kinds, None if self.check is no_checks else self.check)
            except NotShareable:
                self._add_unshared(ws, name, display, raw)
                return None
            if memo_key is not None:
                self.memo[memo_key] = slim
        self.place(ws, name, display, slim)
        return slim if self.share else None

    def _add_unshared(self, ws: Workspace, name: str, display: str, raw: bytes) -> None:
        """A record whose check puts a finding on another path: checked as this copy, alone."""
        found: list[Finding] = []

        def check(doc: Document) -> list[Finding]:
            found.extend(self.check(doc))
            return []

        slim = make_slim(name, raw, display, self.kinds, check)
        self.place(ws, name, display, slim, found)

    def place(self, ws: Workspace, name: str, display: str, slim: Slim, extra: Sequence[Finding] = ()) -> None:
        """A slim as this copy's ``Run`` or ``Decision``, its findings on this copy's path."""
        if isinstance(slim, SlimRun):
            self._place_run(ws, display, slim, extra)
        elif isinstance(slim, SlimDecision):
            self._place_decision(ws, display, slim, extra)
        elif (
            isinstance(slim, (Bad, Refused)) and display not in self.refused
        ):  # once, though the index leads to it again
            self.refused.add(display)
            self.findings.append(at(slim.finding, display))

    def _place_run(self, ws: Workspace, display: str, slim: SlimRun, extra: Sequence[Finding]) -> None:
        if slim.notes:
            self.findings.extend(at(note, display) for note in slim.notes)
        found = [at(f, display) for f in slim.found] + list(extra) if slim.found or extra else NO_FINDINGS
        self._offer_run(
            ws.rel,
            self.order.get(ws.rel, len(self.order)),
            display,
            slim.artifact_id,
            slim.run_id,
            slim.run_kind,
            slim.status,
            slim.updated_at,
            slim.created_at,
            slim.home_rel == ws.rel,
            slim.done,
            found,
        )

    def _offer_run(
        self,
        rel: str,
        order: int,
        display: str,
        artifact_id: str,
        run_id: str | None,
        run_kind: str | None,
        status: str | None,
        updated: str | None,
        created: str | None,
        home: bool,
        done: bool,
        found: Sequence[Finding] = NO_FINDINGS,
    ) -> None:
        if not found and self.runs.loses(artifact_id, updated, created, home, order, done):
            return  # a worktree's copy of a run another copy already wins: nothing to build
        self.runs.offer(
            artifact_id,
            Run(artifact_id, run_id, run_kind, status, rel, display, updated, created),
            home,
            order,
            found,
            done,
        )

    def _place_decision(self, ws: Workspace, display: str, slim: SlimDecision, extra: Sequence[Finding]) -> None:
        self.findings.extend(at(note, display) for note in slim.notes)
        decision = Decision(
            artifact_id=slim.artifact_id,
            action=slim.action,
            workspace=ws.rel,
            path=display,
            updated_at=slim.updated_at,
            created_at=slim.created_at,
            is_review=slim.is_review,
            findings=[at(f, display) for f in slim.found] + list(extra),
            reviewed_run_ids=slim.reviewed_run_ids,
            raw=slim.raw,
            cards_written=slim.cards_written,
            neighbor_decisions=slim.neighbor_decisions,
            encoding=slim.encoding,
        )
        self.decisions.offer(
            slim.artifact_id, decision, slim.home_rel == ws.rel, self.order.get(ws.rel, len(self.order)), []
        )
