"""The loader's collector: records from any readers, each checked while it is parsed, one
winning copy per artifact id; index lines whose record no reader had are followed (inside
the quest) or reported as missing.

Copies of one artifact (a worktree's checkout inherits its parent branch's records and
index lines) collapse to one, as ``engine.copies`` ranks them: a completed run copy first,
then DeepScientist's ranking (``updated_at``, ``created_at``, compared as text).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ds_gate.engine.copies import NO_FINDINGS, Copies
from ds_gate.engine.record_store import cached_index
from ds_gate.engine.slim import (
    BAD,
    REFUSED,
    RUN,
    SKIP,
    NotShareable,
    Slim,
    make_slim,
    unfields,
)
from ds_gate.io.record_cache import RecordCache, stat_key
from ds_gate.kernel import fs
from ds_gate.kernel.digest import content_key
from ds_gate.kernel.layout import ARTIFACT_DIRS, GATE_KINDS
from ds_gate.model.findings import Finding
from ds_gate.model.records import Decision, Document, Run, Workspace
from ds_gate.rules.coverage import completed_state
from ds_gate.sources.folders import FolderReader, Reader
from ds_gate.sources.location import is_inside
from ds_gate.sources.problems import (
    INDEX_MISSING_RECORD,
    INDEX_RECORD_OUTSIDE_QUEST,
    unreadable,
)
from ds_gate.sources.records import IndexEntry, folders_for, read_index

MISSING_SHOWN = 100  # index.missing-record warnings listed per index file before a summary


RecordCheck = Callable[[Document], list[Finding]]


def no_checks(doc: Document) -> list[Finding]:
    return []


class Collector:
    """Records from any readers, checked as they are read, one winning copy per artifact id;
    index lines whose record no reader had are followed (inside the quest) or reported."""

    def __init__(self, root: Path, workspaces: list[Workspace], kinds: tuple[str, ...] = GATE_KINDS,
                 check: RecordCheck = no_checks, *, share: bool = True, store: RecordCache | None = None) -> None:
        """``share``: copies with the same bytes share one parse and check (only when every
        record finding lies on the record's own path: no plugin rules). ``store``: the
        persistent cache of slims (``io.record_cache``), for folder readers; needs ``share``."""
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
        self.runs = Copies()
        self.decisions = Copies()
        self.findings: list[Finding] = []
        self.refused: set[str] = set()
        self.index_entries: list[tuple[Workspace, IndexEntry]] = []
        self.indexed_run_ids: set[str] = set()
        self.indexed_decision_ids: set[str] = set()  # PR #60 reaches a review through these only
        self.limit = fs.max_file_bytes()  # once: the environment asked per file cost ~1 ms per 2,000

    def read(self, reader: Reader) -> None:
        ws = reader.workspace
        names = reader.record_names(self.skip)
        cached = self.store is not None and isinstance(reader, FolderReader) and reader.folder is not None
        if cached:
            self._read_cached(reader, names)  # type: ignore[arg-type]  # a FolderReader, just asked
        else:
            self._read_all(reader, names)
        items = cached_index(self.store, reader, self.index_kinds) if cached else None  # type: ignore[arg-type]
        for item in read_index(reader, self.index_kinds) if items is None else items:
            if isinstance(item, Finding):
                self.findings.append(item)
            else:
                (self.indexed_run_ids if item.kind == "run" else self.indexed_decision_ids).add(item.artifact_id)
                # kept for resolve_index only when no record file answered it yet (the usual
                # line names a record just read): 150,000 kept lines were ~40 MB at 100,000 runs
                if item.artifact_id not in (self.runs if item.kind == "run" else self.decisions).best:
                    self.index_entries.append((ws, item))
        self.findings.extend(reader.findings)

    def _read_all(self, reader: Reader, names: list[str]) -> None:
        ws = reader.workspace
        for name, raw in reader.read_many(names):
            display = ws.display(f"artifacts/{name}")
            if isinstance(raw, OSError):
                self.findings.append(unreadable(display, raw))
            else:
                self.add(ws, name, display, raw)

    def _read_cached(self, reader: FolderReader, names: list[str]) -> None:
        """Names in order; a file whose stat the cache knows is not read (see ``io.record_cache``).
        What is read is kept under the ``fstat`` of the read itself (none first on an empty cache)."""
        ws = reader.workspace
        store = self.store
        assert store is not None and reader.folder is not None
        base = f"{reader.folder}{os.sep}"
        folder = fs.open_folder(base) if names else None
        try:
            self._read_each(ws, store, base, folder, names)
        finally:
            if folder is not None:
                os.close(folder)

    def _read_each(self, ws: Workspace, store: RecordCache, base: str, folder: int | None, names: list[str]) -> None:
        prefix = ws.display("artifacts/")  # + name: ws.display(f"artifacts/{name}"), one call per folder
        known, stat_of, get = bool(store.loaded), store.stat_key, store.get
        for name in names:
            path = base + name  # a link inside the quest is followed, as listed (FolderReader.read_many)
            display = prefix + name
            key = (stat_of(path) if folder is None else stat_of(name, folder)) if known else None
            slim = get(path, key) if key is not None else None
            if slim is not None and slim[0] != "index":
                self.place(ws, name, display, slim)
                continue
            try:
                raw, st = fs.read_with_stat(path if folder is None else name, limit=self.limit, dir_fd=folder)
            except FileNotFoundError:
                continue  # gone since it was listed: DeepScientist renamed or deleted it mid-read; not an error
            except OSError as exc:
                self.findings.append(unreadable(display, exc))
                continue
            slim = self.add(ws, name, display, raw)
            if slim is not None:
                store.put(path, stat_key(st), slim)

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
        tag = slim[0]
        if tag == BAD:
            self.findings.append(unfields(slim[1], display))
            return
        if tag == REFUSED:
            if display not in self.refused:  # once, though the index may lead to it again
                self.refused.add(display)
                self.findings.append(unfields(slim[1], display))
            return
        if tag == SKIP:
            return
        artifact_id, notes, home_rel = slim[1], slim[2], slim[3]
        self.findings.extend(unfields(note, display) for note in notes)
        home = home_rel == ws.rel
        order = self.order.get(ws.rel, len(self.order))
        if tag == RUN:
            if not extra and not slim[9] and self.runs.loses(artifact_id, slim[7], slim[8], home, order,
                                                             completed_state(slim[5], slim[6])):
                return  # a worktree's copy of a run another copy already wins: nothing to build
            run = Run(artifact_id, slim[4], slim[5], slim[6], ws.rel, display, slim[7], slim[8])
            checked = [unfields(f, display) for f in slim[9]] + list(extra) if slim[9] or extra else NO_FINDINGS
            self.runs.offer(artifact_id, run, home, order, checked)
            return
        decision = Decision(
            artifact_id=artifact_id,
            action=slim[4],
            workspace=ws.rel,
            path=display,
            updated_at=slim[5],
            created_at=slim[6],
            is_review=slim[7],
            findings=[unfields(f, display) for f in slim[8]] + list(extra),
            reviewed_run_ids=slim[9],
            raw=slim[10],
            cards_written=slim[11],
            neighbor_cards=frozenset(slim[12]),
            encoding=slim[13],
        )
        self.decisions.offer(artifact_id, decision, home, order, [])

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
