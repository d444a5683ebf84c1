"""Plain data shared by every layer: what a quest holds and what the gate concludes.

Records are kept *slim*: a run is a handful of strings, not the whole JSON document,
because real run records carry metric tables and a quest can hold tens of thousands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import QuestError

__all__ = ["QuestError"]  # re-exported: the model is where users look for it

# Bumped only when a key of the JSON output changes meaning or disappears.
SCHEMA_VERSION = 1

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the user should know, placed precisely enough to fix without searching.

    ``rule`` is a stable id (part of the JSON API); ``path`` is relative to the quest
    root (or as given on the command line for ``validate``); ``pointer`` is an RFC 6901
    JSON pointer into that file; ``line`` is 1-based and may be unknown.
    """

    rule: str
    severity: str
    path: str | None
    message: str
    hint: str | None = None
    pointer: str = ""
    line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "pointer": self.pointer,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
        }


@dataclass(frozen=True, slots=True)
class Workspace:
    """A folder whose ``artifacts/`` DeepScientist may have written: the root or a worktree."""

    path: Path  # resolved, absolute
    rel: str  # posix path relative to the quest root; "." for the root
    branch: str | None = None

    def display(self, rel_inside: str) -> str:
        return rel_inside if self.rel == "." else f"{self.rel}/{rel_inside}"


@dataclass(frozen=True, slots=True)
class Run:
    """A ``kind: run`` record, whatever its status: identity is ``artifact_id``."""

    artifact_id: str
    run_id: str | None  # the experiment id (main-001, campaign:slice), for humans
    run_kind: str | None
    status: str | None
    workspace: str  # Workspace.rel where the winning copy was found
    path: str  # quest-relative path of that copy
    updated_at: str | None = None
    created_at: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "artifact_id": self.artifact_id,
            "run_id": self.run_id,
            "run_kind": self.run_kind,
            "status": self.status,
            "workspace": self.workspace,
            "path": self.path,
        }


@dataclass(slots=True)
class Decision:
    """A ``kind: decision`` record with its validation result already attached.

    Validation happens when the file is parsed, so the full document can be dropped;
    only a review keeps its raw bytes, to place later cross-record findings on a line.
    """

    artifact_id: str
    action: str | None
    workspace: str
    path: str
    updated_at: str | None
    created_at: str | None
    is_review: bool
    findings: list[Finding] = field(default_factory=list)
    reviewed_run_ids: tuple[str, ...] = ()
    raw: bytes | None = None

    @property
    def schema_valid(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


@dataclass(slots=True)
class Quest:
    """Everything the checks need, read once per process."""

    root: Path
    quest_id: str
    status: str | None
    experience_distill: bool
    recall_priors: bool
    workspaces: list[Workspace]
    runs: dict[str, Run]
    decisions: dict[str, Decision]
    findings: list[Finding]  # found while reading (unreadable files, stale paths, ...)
    is_git: bool = True


@dataclass(slots=True)
class Review:
    """A distill_review as the coverage rule sees it, after every check."""

    artifact_id: str
    path: str
    workspace: str
    valid: bool
    reviewed_run_ids: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "artifact_id": self.artifact_id,
            "path": self.path,
            "workspace": self.workspace,
            "valid": self.valid,
            "reviewed_run_ids": list(self.reviewed_run_ids),
        }


@dataclass(slots=True)
class Report:
    """The outcome of one command; reporters render it, adapters turn it into an exit code."""

    command: str
    ok: bool
    findings: list[Finding]
    quest: Quest | None = None
    enforced: bool = False
    completed_runs: list[Run] = field(default_factory=list)
    pending: list[Run] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    listed_by_invalid: dict[str, list[str]] = field(default_factory=dict)  # pending run -> invalid reviews naming it
    finalization_reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def pending_run_ids(self) -> list[str]:
        return sorted(run.artifact_id for run in self.pending)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "command": self.command, "ok": self.ok}
        quest = self.quest
        if quest is not None:
            out.update(
                quest_root=str(quest.root),
                quest_id=quest.quest_id,
                experience_distill=quest.experience_distill,
                recall_priors=quest.recall_priors,
                enforced=self.enforced,
                workspaces=[ws.rel for ws in quest.workspaces],
                completed_runs=[run.as_dict() for run in self.completed_runs],
                pending_run_ids=self.pending_run_ids,
                reviews=[review.as_dict() for review in self.reviews],
            )
        if self.command == "commit-check":
            out["finalization"] = list(self.finalization_reasons)
        out["findings"] = [f.as_dict() for f in self.findings]
        out["notes"] = list(self.notes)
        return out

