"""ds-gate's own rules, as a plugin: the same hooks a lab's plugin implements, as plain functions
(calling them needs no pluggy; ``manager()`` marks them ``hookimpl`` when it registers this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.kernel.layout import MANIFEST
from ds_gate.rules.cards import card_findings
from ds_gate.rules.coverage import is_completed
from ds_gate.rules.patch import check_patch
from ds_gate.rules.records import check_record
from ds_gate.rules.vocabulary import MAIN_DECISION_ACTIONS

if TYPE_CHECKING:
    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Card, Document, Run


def ds_gate_run_is_completed(run: Run) -> bool:
    return is_completed(run)


def ds_gate_finalization_patterns() -> list[str]:
    return [MANIFEST]


def ds_gate_decision_actions() -> list[str]:
    """Main's actions: so a plugin offering ``distill_review`` says its DeepScientist has it."""
    return sorted(MAIN_DECISION_ACTIONS)


def ds_gate_check_record(record: Document) -> list[Finding]:
    return check_record(record)


def ds_gate_check_card(card: Card) -> list[Finding]:
    return card_findings(card)


def ds_gate_check_patch(before: Card | None, after: Card, patching_quest: str | None) -> list[Finding]:
    return check_patch(before, after, patching_quest)
