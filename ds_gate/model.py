"""Plain data shared by every layer: what a quest holds and what the gate concludes.

Records are kept *slim*: a run is a handful of strings, not the whole JSON document,
because real run records carry metric tables and a quest can hold tens of thousands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.errors import QuestError

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
    subject: str | None = None  # the artifact, run or card id it is about, when not the file's stem
    waived: str | None = None  # the reason of the waiver that covers it; a waived finding never fails

    @property
    def fails(self) -> bool:
        return self.severity == ERROR and self.waived is None

    def sort_key(self) -> tuple[str, int, str, str]:
        """Reports list findings by file, then line: the order a reader fixes them in."""
        return (self.path or "", self.line or 0, self.rule, self.pointer)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "pointer": self.pointer,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
            "subject": self.subject,
            "waived": self.waived,
        }


@dataclass(frozen=True, slots=True)
class Workspace:
    """A folder whose ``artifacts/`` DeepScientist may have written: the root or a worktree."""

    path: Path  # resolved, absolute
    rel: str  # posix path relative to the quest root; "." for the root; the ref name for a branch tip
    branch: str | None = None
    ref: str | None = None  # set when read from git objects at a ref's tip, not from a folder

    def display(self, rel_inside: str) -> str:
        if self.ref is not None:
            return f"{self.ref}:{rel_inside}"  # git's own <rev>:<path> spelling
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
    cards_written: tuple[dict[str, Any], ...] = ()  # a review's entries, for card discipline
    neighbor_cards: frozenset[str] = frozenset()  # candidate_card_id of its neighbor_decisions

    @property
    def schema_valid(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def timestamp(value: str | None) -> float:
    """An ISO 8601 time as seconds since the epoch (naive = UTC); missing or unparseable
    sorts oldest. One reading for deduplication, recall and recent."""
    if not value:
        return float("-inf")
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return float("-inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def same_quest(a: str, b: str) -> bool:
    """Quest ids compare as text, except that YAML turns an unquoted ``001`` into 1."""
    return a == b or (a.isdigit() and b.isdigit() and int(a) == int(b))


def text_of(value: Any) -> str | None:
    """A scalar as text (YAML gives ints for ``quest_id: 1``); None for missing or containers."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


@dataclass(slots=True)
class Card:
    """A memory card: its frontmatter (as JSON values) and body.

    ``blocks`` are the frontmatter blocks' YAML text and first line, kept to put a line
    number on a finding; keys in ``legacy_keys`` came from the second (legacy) block.
    """

    path: Path  # absolute
    display: str  # how findings name it
    scope: str  # "global" (a home's memory) or "quest" (a quest's memory), by where it lies
    kind: str  # the memory folder: knowledge, papers, ...
    meta: dict[str, Any]
    body: str
    blocks: tuple[tuple[str, int], ...] = ()
    legacy_keys: frozenset[str] = frozenset()
    findings: list[Finding] = field(default_factory=list)
    broken: bool = False  # the frontmatter could not be read; meta is empty

    @property
    def card_id(self) -> str | None:
        value = text_of(self.meta.get("id"))
        return value.strip() if value and value.strip() else None

    @property
    def title(self) -> str | None:
        return text_of(self.meta.get("title"))

    @property
    def quest_id(self) -> str | None:
        return text_of(self.meta.get("quest_id"))

    @property
    def is_experience(self) -> bool:
        """The RFC's experience card: one that carries a ``claim`` or a ``lineage``."""
        return "claim" in self.meta or "lineage" in self.meta

    @property
    def lineage(self) -> list[Any]:
        value = self.meta.get("lineage")
        return value if isinstance(value, list) else []

    def origin_quests(self) -> list[str]:
        """The quest the card came from: its ``quest_id``, or the quest it was promoted from."""
        out = []
        if self.quest_id and self.quest_id.strip():
            out.append(self.quest_id.strip())
        promoted = self.meta.get("promoted_from")
        root = promoted.get("quest_root") if isinstance(promoted, dict) else None
        if isinstance(root, str) and root.strip():
            name = Path(root.strip().rstrip("/\\")).name
            if name and name not in out:
                out.append(name)
        return out

    def line(self, parts: tuple[str | int, ...]) -> int | None:
        if not self.blocks:
            return None
        from ds_gate.yamlpos import line_of

        text, first = self.blocks[1] if parts and parts[0] in self.legacy_keys and len(self.blocks) > 1 else self.blocks[0]
        return line_of(text, parts, first)

    def as_dict(self) -> dict[str, Any]:
        return {
            "card_id": self.card_id,
            "kind": self.kind,
            "scope": self.scope,
            "path": self.display,
            "experience": self.is_experience,
        }


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
    cards: list[Card] | None = None  # the quest's own memory cards, read when a check needs them


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
    home: Path | None = None  # the DeepScientist home whose memory was read, if any
    cards: list[Card] = field(default_factory=list)  # the memory cards checked
    results: list[dict[str, Any]] | None = None  # what `recall` and `recent` list, in order
    request: dict[str, Any] | None = None  # what was asked for (recall's tags, kind, limit, ...)

    @property
    def errors(self) -> list[Finding]:
        """Errors that fail the report (waived ones do not)."""
        return [f for f in self.findings if f.fails]

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
        if self.command in ("commit-check", "pre-push"):
            out["finalization"] = list(self.finalization_reasons)
        if self.command in ("check", "closure", "lineage"):
            out["home"] = str(self.home) if self.home is not None else None
            out["cards"] = [card.as_dict() for card in self.cards]
        if self.request is not None:
            out["request"] = dict(self.request)
        if self.results is not None:
            out["results"] = list(self.results)
        out["findings"] = [f.as_dict() for f in self.findings]
        out["notes"] = list(self.notes)
        return out

