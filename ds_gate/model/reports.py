"""What a command concludes, one type per kind of answer; reporters dispatch on the type.

A report is built once, by the engine, and never rewritten: the commit hook, the pre-push
hook, the CLI and the pytest plugin differ only in the ``Scope`` they ask for and in how
they present the answer. The JSON form (``as_dict``) is an API: ``schema_version`` is
bumped only when a key changes meaning or disappears.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.kernel.errors import QuestError, shown
from ds_gate.model.findings import SCHEMA_VERSION, Finding
from ds_gate.model.records import Card, Quest, Review, Run


@dataclass(frozen=True, slots=True)
class Scope:
    """What one gate run over a quest is for. The gate commands differ only in these."""

    command: str
    gates_pending: bool  # an enforced gate fails while a completed run is pending
    lists_pending: bool  # the text report lists the pending runs
    reads_cards: bool  # memory cards and the plugins' quest checks are part of it
    shows_cards: bool  # the report names the home and the cards it checked
    shows_quest: bool = True  # the text report opens with the quest and its workspaces
    finalizes: str | None = None  # "commit" or "push": the report says what finalizes the quest
    can_fail: bool = True


SCOPES = {
    "check": Scope("check", gates_pending=False, lists_pending=False, reads_cards=True, shows_cards=True),
    "closure": Scope("closure", gates_pending=True, lists_pending=True, reads_cards=True, shows_cards=True),
    "candidates": Scope(
        "candidates", gates_pending=False, lists_pending=True, reads_cards=False, shows_cards=False, can_fail=False
    ),
    "commit-check": Scope(
        "commit-check",
        gates_pending=True,
        lists_pending=True,
        reads_cards=True,
        shows_cards=False,
        shows_quest=False,
        finalizes="commit",
    ),
    "pre-push": Scope(
        "pre-push", gates_pending=True, lists_pending=True, reads_cards=True, shows_cards=False, finalizes="push"
    ),
}


class Lazy:
    """A report's long list, its items' dicts made as they are read: a 100,000-run report
    built whole as dicts was ~40 MB at the command's peak."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[Any]) -> None:
        self.items = items

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (item.as_dict() for item in self.items)


@dataclass(kw_only=True, eq=False, repr=False)
class Report:
    """The findings of one command; every report type has these."""

    command: str
    ok: bool
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        """Errors that fail the report (waived ones do not)."""
        return [f for f in self.findings if f.fails]

    def body(self, lazy: bool = False) -> dict[str, Any]:
        """The keys between ``ok`` and ``findings``, particular to each report type."""
        return {}

    def as_dict(self, *, lazy: bool = False) -> dict[str, Any]:
        """``lazy``: the long lists as ``Lazy`` (their items' dicts made as they are read), for
        a reporter that writes them a chunk at a time (``reporters.json``)."""
        out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "command": self.command, "ok": self.ok}
        out.update(self.body(lazy))
        out["findings"] = Lazy(self.findings) if lazy else [f.as_dict() for f in self.findings]
        out["notes"] = list(self.notes)
        return out


@dataclass(kw_only=True, eq=False, repr=False)
class DocumentsReport(Report):
    """Documents checked on their own (``validate``, a checkpoint, ``install``)."""

    finalization_reasons: list[str] | None = None  # set by the commit hook: what the commit finalizes
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # install --deepscientist: runner entries

    def body(self, lazy: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = (
            {} if self.finalization_reasons is None else {"finalization": list(self.finalization_reasons)}
        )
        if self.mcp_servers:  # printed for the user's runner configuration, never written
            out["mcp_servers"] = {name: dict(entry) for name, entry in self.mcp_servers.items()}
        return out


@dataclass(kw_only=True, eq=False, repr=False)
class AgentInstallReport(Report):
    """``install --agent``: the skill files written into a quest, and the MCP entries the user adds
    (printed, never written: they belong to the user's runner configuration, not to the quest)."""

    quest: Path
    skill: str
    written: list[Path] = field(default_factory=list)  # created, or replaced with ds-gate's bytes
    unchanged: list[Path] = field(default_factory=list)  # already held these exact bytes
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # runner -> {file, entry, snippet}

    def body(self, lazy: bool = False) -> dict[str, Any]:
        return {
            "quest_root": str(self.quest),
            "skill": self.skill,
            "written": [str(p) for p in self.written],
            "unchanged": [str(p) for p in self.unchanged],
            "mcp_servers": {name: dict(entry) for name, entry in self.mcp_servers.items()},
        }


@dataclass(kw_only=True, eq=False, repr=False)
class GateReport(Report):
    """One quest judged: coverage of its completed runs, and every finding about it."""

    scope: Scope
    quest: Quest
    enforced: bool = False
    completed_runs: list[Run] = field(default_factory=list)
    pending: list[Run] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    listed_by_invalid: dict[str, list[str]] = field(default_factory=dict)  # pending run -> invalid reviews naming it
    finalization_reasons: list[str] = field(default_factory=list)
    home: Path | None = None  # the DeepScientist home whose memory was read, if any
    cards: list[Card] = field(default_factory=list)  # the memory cards checked
    review_encoding: str = "report"  # how this quest's DeepScientist records a review (model.review_call)
    waived_by: list[str] = field(default_factory=list)  # what lowered the verdict: the sources of waived errors
    baselined: list[Run] = field(default_factory=list)  # completed runs a baseline took out of pending
    baselines: list[dict[str, Any]] = field(default_factory=list)  # the baselines that apply (config.baselines)

    @property
    def pending_run_ids(self) -> list[str]:
        return sorted(run.artifact_id for run in self.pending)

    def body(self, lazy: bool = False) -> dict[str, Any]:
        quest = self.quest
        out: dict[str, Any] = {
            "quest_root": str(quest.root),
            "quest_id": quest.quest_id,
            "experience_distill": quest.experience_distill,
            "recall_priors": quest.recall_priors,
            "enforced": self.enforced,
            "workspaces": [ws.rel for ws in quest.workspaces],
            "completed_runs": Lazy(self.completed_runs) if lazy else [run.as_dict() for run in self.completed_runs],
            "pending_run_ids": self.pending_run_ids,
            "reviews": Lazy(self.reviews) if lazy else [review.as_dict() for review in self.reviews],
        }
        if self.waived_by:  # only when a waiver lowered the verdict: the key's presence says so
            out["waived_by"] = list(self.waived_by)
        if self.baselines:  # only where a baseline applies to the quest: the keys' presence says so
            out["baselined_run_ids"] = sorted(run.artifact_id for run in self.baselined)
            out["baseline"] = [dict(entry) for entry in self.baselines]
        if self.scope.finalizes:
            out["finalization"] = list(self.finalization_reasons)
        if self.scope.shows_cards:
            out["home"] = str(self.home) if self.home is not None else None
            out["cards"] = [card.as_dict() for card in self.cards]
        return out


@dataclass(kw_only=True, eq=False, repr=False)
class LineageReport(Report):
    """The experience cards of a home (and of given quests), and their lineage chains."""

    home: Path | None = None
    cards: list[Card] = field(default_factory=list)

    def body(self, lazy: bool = False) -> dict[str, Any]:
        return {
            "home": str(self.home) if self.home is not None else None,
            "cards": [card.as_dict() for card in self.cards],
        }


MAX_LIMIT = 200  # the most a listing (recall, recent) returns: enough to read, bounded for an agent's context


def check_limit(limit: object) -> int:
    """A listing's ``limit`` (1..MAX_LIMIT), or the error a caller sees (exit 2)."""
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise QuestError(f"limit must be an integer from 1 to {MAX_LIMIT}, not {shown(limit)}")
    return limit


@dataclass(kw_only=True, eq=False, repr=False)
class ListingReport(Report):
    """An ordered listing (``recall``, ``recent``): what was asked for, and what was found."""

    results: list[dict[str, Any]] = field(default_factory=list)
    request: dict[str, Any] | None = None

    def body(self, lazy: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.request is not None:
            out["request"] = dict(self.request)
        out["results"] = list(self.results)
        return out


@dataclass(kw_only=True, eq=False, repr=False)
class RecallReport(ListingReport):
    """Memory cards ranked for recall, with how they were ranked (``recall``: rank_by,
    unmatched_tags, collapsed, home, home_exists; absent when nothing was ranked)."""

    recall: dict[str, Any] | None = None

    def body(self, lazy: bool = False) -> dict[str, Any]:
        out = ListingReport.body(self, lazy)
        if self.recall is not None:
            out["recall"] = dict(self.recall)
        return out


@dataclass(kw_only=True, eq=False, repr=False)
class RecentReport(ListingReport):
    """A quest's artifacts, newest first."""


OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True, slots=True)
class Check:
    """One line of ``doctor``: ok / warn / fail, what it saw, and the fix."""

    name: str
    status: str
    message: str
    fix: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "status": self.status, "message": self.message, "fix": self.fix}


@dataclass(kw_only=True, eq=False, repr=False)
class DoctorReport(Report):
    """``doctor``: whether a quest is guarded, as checks (ok / warn / fail, each with its fix)."""

    quest: Path
    checks: list[Check] = field(default_factory=list)

    def body(self, lazy: bool = False) -> dict[str, Any]:
        return {"quest_root": str(self.quest), "checks": [check.as_dict() for check in self.checks]}
