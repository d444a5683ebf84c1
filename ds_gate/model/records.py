"""What a quest holds, as plain data shared by every layer.

Records are kept *slim*: a run is a handful of strings, not the whole JSON document,
because real run records carry metric tables and a quest can hold tens of thousands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ds_gate.io.yamldoc import line_of
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.words import REVIEW_ACTION
from ds_gate.model.findings import Finding

__all__ = ["REVIEW_ACTION", "QuestError"]  # re-exported: the model is where users look for them


@dataclass(frozen=True, slots=True)
class Workspace:
    """A folder whose ``artifacts/`` DeepScientist may have written: the root or a worktree."""

    path: Path  # resolved, absolute
    rel: str  # posix path relative to the quest root; "." for the root; the ref name for a branch tip
    branch: str | None = None
    ref: str | None = None  # set when read from git objects at a ref's tip, not from a folder
    commit: str | None = None  # that tip's commit id, as read (an index line is followed in its tree)

    def display(self, rel_inside: str) -> str:
        if self.ref is not None:
            return f"{self.ref}:{rel_inside}"  # git's own <rev>:<path> spelling
        return rel_inside if self.rel == "." else f"{self.rel}/{rel_inside}"


@dataclass(slots=True)
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
    # counted from its index line: its record file is found nowhere the gate reads (deleted,
    # or never committed); the line carries no run_kind, so a completed-like status counts
    from_index: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "artifact_id": self.artifact_id,
            "run_id": self.run_id,
            "run_kind": self.run_kind,
            "status": self.status,
            "workspace": self.workspace,
            "path": self.path,
        }


# How a review is recorded. The RFC's ``kind: decision, action: distill_review`` needs PR #60
# (DeepScientist main refuses the action); main's ``artifact.record`` stores a
# ``kind: report`` with ``report_type: distill_review`` unchanged and requires nothing of it.
DECISION_ENCODING, REPORT_ENCODING = "decision", "report"
REVIEW_REPORT_TYPE = REVIEW_ACTION


def encoding_note(encoding: str | None) -> str:
    """What a finding about a review adds so the reader knows which encoding was read."""
    return " (a review recorded as a `report_type: distill_review` report)" if encoding == REPORT_ENCODING else ""


def review_encoding(data: dict[str, Any], kind: str | None) -> str | None:
    """Which encoding of a review ``data`` is, or None when it is no review."""
    if kind == "decision" and data.get("action") == REVIEW_ACTION:
        return DECISION_ENCODING
    if kind == "report" and data.get("report_type") == REVIEW_REPORT_TYPE:
        return REPORT_ENCODING
    return None


@dataclass(slots=True, eq=False)
class Document:
    """One parsed record as the record checks see it, alive only while it is checked.

    Checks (built-in and plugins') get the whole document, never only its bytes: nothing
    parses a record twice.
    """

    kind: str | None  # the record's kind, or its folder's for a record without one
    data: dict[str, Any]
    raw: bytes  # for placing a finding on a line
    display: str  # how findings name the file


# a neighbor_decisions entry: (candidate_card_id, decision, scope), None where not text; one per entry, in order
Neighbour = tuple[str | None, str | None, str | None]


@dataclass(slots=True, eq=False)
class ReviewFields:
    """What the model keeps of a review: the runs it covers and the cards it names."""

    is_review: bool
    reviewed_run_ids: tuple[str, ...] = ()
    cards_written: tuple[dict[str, Any], ...] = ()
    neighbor_decisions: tuple[Neighbour, ...] = ()


def _neighbour(entry: Any) -> Neighbour:
    a, b, c = (entry.get(k) if isinstance(entry, dict) else None for k in ("candidate_card_id", "decision", "scope"))
    return (a if isinstance(a, str) else None, b if isinstance(b, str) else None, c if isinstance(c, str) else None)


def review_fields(data: dict[str, Any], kind: str | None = "decision") -> ReviewFields:
    """The review fields of a review in either encoding, read leniently (its schema says what is wrong)."""
    if review_encoding(data, kind) is None:
        return ReviewFields(is_review=False)
    reviewed = data.get("reviewed_run_ids")
    cards = data.get("cards_written")
    neighbours = data.get("neighbor_decisions")
    return ReviewFields(
        is_review=True,
        reviewed_run_ids=tuple(r for r in reviewed if isinstance(r, str)) if isinstance(reviewed, list) else (),
        cards_written=tuple(c if isinstance(c, dict) else {} for c in cards)
        if isinstance(cards, list)
        else (),  # keep indexes
        neighbor_decisions=tuple(map(_neighbour, neighbours)) if isinstance(neighbours, list) else (),
    )


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
    neighbor_decisions: tuple[Neighbour, ...] = ()  # its neighbor_decisions entries, for the neighbour rules
    encoding: str = DECISION_ENCODING  # a review recorded as a report is kept here too

    @property
    def neighbor_cards(self) -> frozenset[str]:  # the candidate_card_id of each neighbour decision, as written
        return frozenset(candidate for candidate, _, _ in self.neighbor_decisions if candidate is not None)


def timestamp(value: str | None) -> float:
    """An ISO 8601 time as seconds since the epoch (naive = UTC); missing or unparseable
    sorts oldest. One reading for deduplication, recall and recent."""
    if not value or not isinstance(value, str):  # `updated_at: 5` in an index line sorts oldest too
        return float("-inf")
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return float("-inf")
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)).timestamp()


def same_quest(a: str, b: str) -> bool:
    """Quest ids compare as text, except that YAML turns an unquoted ``001`` into 1."""
    return a == b or (a.isascii() and a.isdigit() and b.isascii() and b.isdigit() and int(a) == int(b))


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
        text, first = (
            self.blocks[1] if parts and parts[0] in self.legacy_keys and len(self.blocks) > 1 else self.blocks[0]
        )
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
    status: str | None  # as main reads it (runtime_state.json, then quest.yaml: sources.quest_yaml.main_status)
    experience_distill: bool
    recall_priors: bool
    workspaces: list[Workspace]
    runs: dict[str, Run]
    decisions: dict[str, Decision]
    findings: list[Finding]  # found while reading (unreadable files, stale paths, ...)
    is_git: bool = True
    indexed_run_ids: frozenset[str] = frozenset()  # runs an index line names, their record file gone or not
    indexed_decision_ids: frozenset[str] | None = None  # decisions an index line names (None: not known)
    notes: list[str] = field(default_factory=list)  # what the reader did that a reader of the report should know
    root_branch: str | None = None  # the branch the root has checked out: a branch tip's files are there too
    staged_workspace: str | None = None  # the workspace read from git's index (the commit hook), by its rel


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
