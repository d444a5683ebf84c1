"""A home's distillation health (``ds-gate report``): for the human who turned the discipline on,
what each quest's reviews did with its runs and where its lessons went.

Each quest is judged as ``ds-gate closure QUEST --home HOME`` judges it, a quest at a time
(``engine.home_quests.reduce_each``), and its report reduced to a ``HealthRow`` before the next
is read. ``health`` is the JSON form; the text and Markdown forms are rendered from it
(``reporters.health``), so the three cannot disagree. Counts (docs/ci-many-quests.md):

- ``runs``: completed runs; ``reviewed``: those a valid review covers; ``pending``: the others
  but ``baselined``, the ones a trusted baseline took out of review (docs/configuration.md).
- ``cards_global`` / ``cards_quest``: the distinct cards the valid reviews' ``cards_written``
  name, by the scope each entry claims (a card a review wrote and a later one patched counts
  once); the RFC's motivating quest wrote nine quest-scope cards to one global.
- ``unpromoted``: the quest's lessons ``card.quest-scope-lesson`` finds (in quest scope, no
  global copy), each with the call that promotes it.
- ``empty_reviews``: valid reviews whose ``cards_written`` is ``[]``, each with its ``reason_if_empty``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ds_gate.kernel.jsonout import dumps
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.model.records import Card
from ds_gate.model.reports import GateReport
from ds_gate.rules.cards import CARD_QUEST_SCOPE_LESSON, promote_call
from ds_gate.sources.records import parse_json_object

COMMAND = "report"
SCOPES = ("global", "quest")  # the scopes a cards_written entry may claim (distill_review.schema.json)


@dataclass(frozen=True, slots=True)
class Unpromoted:
    """A lesson kept in quest scope with no global copy, and the call that promotes it."""

    card_id: str | None
    path: str  # as the quest's report names it
    call: str


@dataclass(frozen=True, slots=True)
class EmptyReview:
    """A valid review that wrote no card, and why it says none was worth writing."""

    review_id: str
    path: str
    reason: str | None  # its reason_if_empty as DeepScientist reads it (str(value).strip()), or None


@dataclass(frozen=True, slots=True)
class HealthRow:
    """One quest's line of the report; ``problem`` (and no counts) for a quest that cannot be read."""

    quest: str  # the folder's name under quests/
    quest_id: str | None
    path: str
    enforced: bool | None = None
    runs: int | None = None
    reviewed: int | None = None
    pending: int | None = None
    baselined: int | None = None
    cards_global: int | None = None
    cards_quest: int | None = None
    unpromoted: tuple[Unpromoted, ...] = ()
    empty_reviews: tuple[EmptyReview, ...] = ()
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        readable = self.problem is None
        return {
            "quest": self.quest,
            "quest_id": self.quest_id,
            "path": self.path,
            "enforced": self.enforced,
            "runs": self.runs,
            "reviewed": self.reviewed,
            "pending": self.pending,
            "baselined": self.baselined,
            "cards_global": self.cards_global,
            "cards_quest": self.cards_quest,
            "unpromoted": len(self.unpromoted) if readable else None,
            "unpromoted_lessons": [{"card_id": u.card_id, "path": u.path, "call": u.call} for u in self.unpromoted],
            "empty_reviews": len(self.empty_reviews) if readable else None,
            "empty_review_reasons": [
                {"review_id": e.review_id, "path": e.path, "reason": e.reason} for e in self.empty_reviews
            ],
            "problem": self.problem,
        }


def health_row(name: str, report: GateReport) -> HealthRow:
    """What ``report`` (a closure report of the quest in folder ``name``) says of its distillation."""
    quest = report.quest
    valid = [quest.decisions[r.artifact_id] for r in report.reviews if r.valid and r.artifact_id in quest.decisions]
    completed = {run.artifact_id for run in report.completed_runs}
    covered = completed & {rid for review in valid for rid in review.reviewed_run_ids}
    written: dict[str, set[str]] = {scope: set() for scope in SCOPES}
    empty: list[EmptyReview] = []
    for review in valid:
        for n, entry in enumerate(review.cards_written):
            card_id, scope = entry.get("card_id"), entry.get("scope")
            if scope in written:  # an entry without an id is a card all the same (review.card-id-missing says so)
                written[scope].add(card_id if isinstance(card_id, str) else f"{review.artifact_id}#{n}")
        if not review.cards_written and review.raw is not None:
            data, _ = parse_json_object(review.raw, review.path)
            if data is not None and data.get("cards_written") == []:
                empty.append(EmptyReview(review.artifact_id, review.path, _reason(data.get("reason_if_empty"))))
    return HealthRow(
        name,
        quest.quest_id,
        str(quest.root),
        report.enforced,
        len(completed),
        len(covered),
        len(report.pending),
        len(report.baselined),
        len(written["global"]),
        len(written["quest"]),
        _unpromoted(report),
        tuple(sorted(empty, key=lambda e: e.review_id)),
    )


def unreadable_row(path: Path, problem: str) -> HealthRow:
    return HealthRow(path.name, None, str(path), problem=problem)


def _reason(value: Any) -> str | None:
    """``reason_if_empty`` as DeepScientist reads it (``str(value).strip()``); a non-text one as JSON."""
    if value is None:
        return None
    text = value if isinstance(value, str) else dumps(value, ensure_ascii=False)
    return text.strip() or None


def _unpromoted(report: GateReport) -> tuple[Unpromoted, ...]:
    """The quest-scope lessons the gate warned about (waived or not: a waiver promotes nothing)."""
    cards: dict[str, Card] = {card.display: card for card in report.cards if card.scope == "quest"}
    out = []
    for finding in report.findings:
        if finding.rule != CARD_QUEST_SCOPE_LESSON.id or finding.path is None:
            continue
        card = cards.get(finding.path)
        call = (
            promote_call(card.meta.get("id"), card.path)
            if card is not None
            else promote_call(finding.subject, Path(finding.path))
        )
        out.append(Unpromoted(finding.subject, finding.path, call))
    return tuple(out)


def _total(rows: list[HealthRow], key: str) -> int:
    return sum(value for row in rows if isinstance(value := getattr(row, key), int))


def health(home: Path, rows: list[HealthRow]) -> dict[str, Any]:
    """The report as data: the JSON form, and what the text and Markdown forms show. ``ok`` says
    the report was made (it is no gate: ``closure --all-quests`` is)."""
    readable = [row for row in rows if row.problem is None]
    cards_global, cards_quest = _total(readable, "cards_global"), _total(readable, "cards_quest")
    written = cards_global + cards_quest
    return {
        "schema_version": SCHEMA_VERSION,
        "command": COMMAND,
        "ok": True,
        "home": str(home),
        "totals": {
            "quests": len(rows),
            "readable": len(readable),
            "unreadable": len(rows) - len(readable),
            "runs": _total(readable, "runs"),
            "reviewed": _total(readable, "reviewed"),
            "pending": _total(readable, "pending"),
            "baselined": _total(readable, "baselined"),
            "cards_global": cards_global,
            "cards_quest": cards_quest,
            "global_quest_ratio": f"{cards_global}:{cards_quest}",
            "global_share": round(cards_global / written, 3) if written else None,
            "unpromoted": sum(len(row.unpromoted) for row in readable),
            "empty_reviews": sum(len(row.empty_reviews) for row in readable),
        },
        "quests": [row.as_dict() for row in rows],
    }
