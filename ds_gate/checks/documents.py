"""Rules about one artifact record on its own: its schema, and what must agree inside it.

Pure functions of (document, raw bytes, display path); rules that need the rest of the
quest (does a reviewed run exist?) live in ``coverage``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ds_gate import schemas
from ds_gate.jsonpos import line_of, pointer
from ds_gate.model import ERROR, WARNING, Finding

REVIEW_ACTION = "distill_review"
RULE_FOR_SCHEMA = {"distill_review": "review.schema", "decision": "decision.schema", "run": "run.schema"}


def place(raw: bytes | None, path: tuple[str | int, ...]) -> int | None:
    """Line of ``path`` in the record's text (the nearest existing parent for a missing key)."""
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    for cut in range(len(path), -1, -1):
        line = line_of(text, path[:cut])
        if line is not None:
            return line
    return None


def schema_name(data: dict[str, Any], kind: str) -> str | None:
    if kind == "run":
        return "run"
    if kind == "decision":
        return "distill_review" if data.get("action") == REVIEW_ACTION else "decision"
    return None


def findings_for(
    name: str,
    instance: Any,
    display: str | None,
    line: Callable[[tuple[str | int, ...]], int | None] | None,
    rule: str | Callable[[schemas.SchemaError], str],
    *,
    subject: str | None = None,
    document: str = "the record",
) -> list[Finding]:
    """Every error of schema ``name`` as a finding: placed, with the schema's fix hint.

    The one conversion for records, cards and waivers; ``rule`` may depend on the error
    (a card's base rules and its experience rules), ``document`` names the whole document.
    """
    return [
        Finding(
            rule=rule if isinstance(rule, str) else rule(err),
            severity=ERROR,
            path=display,
            pointer=pointer(err.path),
            line=line(err.anchor) if line is not None else None,
            message=err.message.replace("the record", document),
            hint=err.hint,
            subject=subject,
        )
        for err in schemas.errors(name, instance)
    ]


def schema_findings(name: str, data: dict[str, Any], raw: bytes | None, display: str) -> list[Finding]:
    return findings_for(name, data, display, lambda anchor: place(raw, anchor), RULE_FOR_SCHEMA[name])


@dataclass(slots=True)
class DecisionCheck:
    is_review: bool
    findings: list[Finding] = field(default_factory=list)
    reviewed_run_ids: tuple[str, ...] = ()
    cards_written: tuple[dict[str, Any], ...] = ()
    neighbor_cards: frozenset[str] = frozenset()


def inspect_decision(data: dict[str, Any], raw: bytes | None, display: str) -> DecisionCheck:
    action = data.get("action")
    is_review = action == REVIEW_ACTION
    out = DecisionCheck(is_review=is_review)
    out.findings = schema_findings("distill_review" if is_review else "decision", data, raw, display)
    if not is_review:
        if isinstance(action, str) and action.strip().casefold() == REVIEW_ACTION:
            out.findings.append(
                Finding(
                    rule="review.action-spelling",
                    severity=WARNING,
                    path=display,
                    pointer="/action",
                    line=place(raw, ("action",)),
                    message=f"action is {action!r}; only the exact `distill_review` marks a review, so it covers no run",
                    hint="write `action: distill_review`",
                )
            )
        return out
    reviewed = data.get("reviewed_run_ids")
    if isinstance(reviewed, list):
        out.reviewed_run_ids = tuple(r for r in reviewed if isinstance(r, str))
    cards = data.get("cards_written")
    if isinstance(cards, list):
        out.cards_written = tuple(c if isinstance(c, dict) else {} for c in cards)  # keep indexes for pointers
    neighbours = data.get("neighbor_decisions")
    if isinstance(neighbours, list):
        out.neighbor_cards = frozenset(
            n["candidate_card_id"] for n in neighbours if isinstance(n, dict) and isinstance(n.get("candidate_card_id"), str)
        )
    out.findings.extend(_targets_reviewed(data, set(out.reviewed_run_ids), raw, display))
    return out


def _targets_reviewed(data: dict[str, Any], reviewed: set[str], raw: bytes | None, display: str) -> list[Finding]:
    """Every card and neighbour decision must point at a run this review covers."""
    found = []
    for list_key in ("cards_written", "neighbor_decisions"):
        entries = data.get(list_key)
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            target = entry.get("target_run_id") if isinstance(entry, dict) else None
            if not isinstance(target, str) or not target.strip() or target in reviewed:
                continue
            path = (list_key, i, "target_run_id")
            found.append(
                Finding(
                    rule="review.target-not-reviewed",
                    severity=ERROR,
                    path=display,
                    pointer=pointer(path),
                    line=place(raw, path),
                    message=f"{schemas.label(path)} is {target!r}, which is not in reviewed_run_ids",
                    hint=f"add {target!r} to reviewed_run_ids, or point target_run_id at a reviewed run",
                )
            )
    return found


def inspect_run(data: dict[str, Any], raw: bytes | None, display: str) -> list[Finding]:
    return schema_findings("run", data, raw, display)
