"""The loader's collector: records from any readers, each checked while it is parsed, one
winning copy per artifact id; index lines whose record no reader had are followed (inside
the quest) or reported as missing.

Copies of one artifact (a worktree's checkout inherits its parent branch's records and
index lines) collapse to one: the newest ``updated_at`` wins, then ``created_at``, then
the copy in the workspace the record says it was written in, then the earlier workspace.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ds_gate.io import fs
from ds_gate.io.jsondoc import place
from ds_gate.model.findings import Finding
from ds_gate.model.records import (
    DECISION_ENCODING,
    REVIEW_ACTION,
    Decision,
    Document,
    Run,
    Workspace,
    review_encoding,
    review_fields,
    text_of,
    timestamp,
)
from ds_gate.rules.reading import INDEX_MISSING_RECORD, unreadable
from ds_gate.rules.records import ARTIFACT_ID_MISMATCH
from ds_gate.rules.vocabulary import kind_finding
from ds_gate.sources.folders import Reader
from ds_gate.sources.location import is_inside
from ds_gate.sources.paths import ARTIFACT_DIRS, GATE_KINDS, record_kind
from ds_gate.sources.records import (
    IndexEntry,
    folders_for,
    parse_json_object,
    read_index,
    read_records,
)

MISSING_SHOWN = 100  # index.missing-record warnings listed per index file before a summary


class _Copies:
    """The winning copy per artifact id (timestamps are parsed only when copies collide)."""

    def __init__(self) -> None:
        self.best: dict[str, tuple[Any, bool, int, list[Finding]]] = {}

    @staticmethod
    def _rank(item: Run | Decision, home: bool, order: int) -> tuple[float, float, bool, int]:
        return (timestamp(item.updated_at), timestamp(item.created_at), home, -order)

    def offer(self, artifact_id: str, item: Run | Decision, home: bool, order: int, findings: list[Finding]) -> None:
        current = self.best.get(artifact_id)
        if current is None or self._rank(item, home, order) > self._rank(*current[:3]):
            self.best[artifact_id] = (item, home, order, findings)


RecordCheck = Callable[[Document], list[Finding]]


def no_checks(doc: Document) -> list[Finding]:
    return []


class Collector:
    """Records from any readers, checked as they are read, one winning copy per artifact id;
    index lines whose record no reader had are followed (inside the quest) or reported."""

    def __init__(self, root: Path, workspaces: list[Workspace], kinds: tuple[str, ...] = GATE_KINDS,
                 check: RecordCheck = no_checks) -> None:
        self.root = root
        self.check = check
        self.kinds = kinds
        self.skip = folders_for(kinds)
        # reports are read for the reviews among them; an index line cannot say which those are
        self.index_kinds = tuple(kind for kind in kinds if kind != "report")
        self.workspaces = workspaces
        self.order = {ws.rel: i for i, ws in enumerate(workspaces)}
        self.runs = _Copies()
        self.decisions = _Copies()
        self.findings: list[Finding] = []
        self.refused: set[str] = set()
        self.index_entries: list[tuple[Workspace, IndexEntry]] = []

    def read(self, reader: Reader) -> None:
        ws = reader.workspace
        for rec in read_records(reader, self.skip):
            if rec.problem is not None:
                self.findings.append(rec.problem)
            elif rec.data is not None:
                self.add(ws, rec.name, rec.display, rec.data, rec.raw)
        for item in read_index(reader, self.index_kinds):
            if isinstance(item, Finding):
                self.findings.append(item)
            else:
                self.index_entries.append((ws, item))
        self.findings.extend(reader.findings)

    def add(self, ws: Workspace, name: str, display: str, data: dict[str, Any], raw: bytes) -> None:
        folder, _, filename = name.partition("/")
        stem = filename.removesuffix(".json")
        unknown = kind_finding(data.get("kind"), raw, display)
        if unknown is not None:  # DeepScientist refuses such a record: the gate reads nothing of it
            if display not in self.refused:  # once, though the index may lead to it again
                self.refused.add(display)
                self.findings.append(unknown)
            return
        kind = record_kind(data, folder)
        if kind not in self.kinds or (kind == "report" and review_encoding(data, kind) is None):
            return  # a report that is no review: DeepScientist's own business
        artifact_id = data.get("artifact_id") or data.get("id")
        if not isinstance(artifact_id, str) or not artifact_id.strip():
            artifact_id = stem
        elif artifact_id != stem:
            self.findings.append(
                ARTIFACT_ID_MISMATCH.at(
                    display,
                    f"artifact_id {artifact_id!r} differs from the file name '{filename}'; using {artifact_id!r}",
                    hint=f"DeepScientist names each record <artifact_id>.json; rename the file to {artifact_id}.json",
                    pointer="/artifact_id",
                    line=place(raw, ("artifact_id",)),
                )
            )
        home = data.get("workspace_rel_path") == ws.rel
        order = self.order.get(ws.rel, len(self.order))
        if kind == "run":
            run = Run(
                artifact_id=artifact_id,
                run_id=text_of(data.get("run_id")),
                run_kind=text_of(data.get("run_kind")),
                status=text_of(data.get("status")),
                workspace=ws.rel,
                path=display,
                updated_at=text_of(data.get("updated_at")),
                created_at=text_of(data.get("created_at")),
            )
            checked = self.check(Document(kind, data, raw, display)) if self.check is not no_checks else []
            self.runs.offer(artifact_id, run, home, order, checked)
        else:  # a decision, or a review recorded as a report
            review = review_fields(data, kind)
            decision = Decision(
                artifact_id=artifact_id,
                action=text_of(data.get("action")) if kind == "decision" else REVIEW_ACTION,
                workspace=ws.rel,
                path=display,
                updated_at=text_of(data.get("updated_at")),
                created_at=text_of(data.get("created_at")),
                is_review=review.is_review,
                findings=self.check(Document(kind, data, raw, display)),
                reviewed_run_ids=review.reviewed_run_ids,
                raw=raw if review.is_review else None,
                cards_written=review.cards_written,
                neighbor_cards=review.neighbor_cards,
                encoding=review_encoding(data, kind) or DECISION_ENCODING,
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
        data, problem = parse_json_object(raw, display)
        if problem is not None:
            self.findings.append(problem)
            return True
        assert data is not None
        self.add(owner, f"{ARTIFACT_DIRS[entry.kind]}/{full.name}", display, data, raw)
        return entry.artifact_id in (self.runs if entry.kind == "run" else self.decisions).best


