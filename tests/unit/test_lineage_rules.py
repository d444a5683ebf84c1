"""Lineage chains (``rules.lineage.chain_findings``) beyond the basic cases of
``test_card_rules``: the origin a promoted copy names, quests that cannot be checked here
(a clone of one quest), entries the schema owns, and a quest id that would lead a path out of
the home. A card's lineage is the only trail from a lesson back to its runs, so each of these
decides whether a broken trail is reported or passes unseen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ds_gate.model.findings import ERROR, WARNING
from ds_gate.model.records import Card
from ds_gate.rules.cards import card_findings
from ds_gate.rules.lineage import QuestRuns, chain_findings, runs_by_quest
from ds_gate.sources.home import Home

from rulecases import RUN_ID, card, fired, quest, run

FAILS = {
    "lineage.not-origin",
    "lineage.origin-unknown",
    "lineage.unknown-quest",
    "lineage.unknown-run",
    "lineage.repeated-entry",
}
PASSES = set(FAILS)
LESSON: dict[str, Any] = {
    "id": "knowledge-1",
    "title": "Router temperature",
    "quest_id": "001",
    "claim": "Lower is steadier.",
    "confidence": 0.6,
}
RUNS = QuestRuns(quest([run(), run("run-2", "main-002")]))


def known(quest_id: str) -> QuestRuns | str:
    """The home holds quest 001 only."""
    return RUNS if quest_id in ("001", "1") else f"no quest {quest_id} in <home>/quests"


def unverifiable(quest_id: str) -> None:
    """A clone of one quest: no other quest can be checked here (the caller says so once)."""


def lesson(lineage: list[Any], **meta: Any) -> Card:
    data = {k: v for k, v in {**LESSON, "lineage": lineage, **meta}.items() if v is not None}
    return card(data)


@pytest.mark.parametrize(
    ("meta", "first", "expected"),
    [
        ({"quest_id": None, "promoted_from": {"quest_root": "/home/ds/quests/001/"}}, "001", []),
        ({"quest_id": None, "promoted_from": {"quest_root": "/home/ds/quests/001/"}}, "002", ["lineage.not-origin"]),
        ({"quest_id": "002", "promoted_from": {"quest_root": "/home/ds/quests/001"}}, "001", []),
        ({"quest_id": None, "promoted_from": {"quest_root": "  "}}, "001", ["lineage.origin-unknown"]),
        ({"quest_id": 1}, "001", []),
    ],
    ids=[
        "promoted from the first quest",
        "promoted from another quest",
        "either origin may come first",
        "a blank quest_root",
        "quest_id: 1 is quest 001",
    ],
)
def test_the_first_entry_names_an_origin_of_the_card(meta: dict[str, Any], first: str, expected: list[str]) -> None:
    """A promoted copy has no quest_id of its own; the quest it was promoted from is its origin."""
    found = chain_findings(lesson([{"quest": first, "run": RUN_ID}], **meta), unverifiable)
    assert fired(found) == expected
    assert all(f.pointer == "/lineage/0/quest" for f in found)


def test_an_unknown_origin_is_a_warning_not_an_error() -> None:
    """Nothing is known to be wrong, only not checkable."""
    [finding] = chain_findings(lesson([{"quest": "001", "run": RUN_ID}], quest_id=None), known)
    assert (finding.rule, finding.severity, finding.subject) == ("lineage.origin-unknown", WARNING, "knowledge-1")


def test_quests_that_cannot_be_checked_here_still_catch_a_repeated_entry() -> None:
    """Without the home, runs are compared by name, and ``1`` and ``001`` are one quest."""
    twice = [{"quest": "001", "run": "run-x"}, {"quest": "1", "run": "run-x"}]
    assert fired(chain_findings(lesson(twice), unverifiable)) == ["lineage.repeated-entry"]
    other = [{"quest": "001", "run": "run-x"}, {"quest": "1", "run": "run-y"}]
    assert chain_findings(lesson(other), unverifiable) == []  # and no unknown-quest or unknown-run


def test_a_run_named_by_its_artifact_id_or_its_run_id_resolves() -> None:
    """Lineage may name a run either way; both are the same run, so naming both repeats it."""
    assert chain_findings(lesson([{"quest": "001", "run": RUN_ID}, {"quest": "001", "run": "main-002"}]), known) == []
    [finding] = chain_findings(lesson([{"quest": "001", "run": RUN_ID}, {"quest": "1", "run": "main-001"}]), known)
    assert (finding.rule, finding.pointer, finding.severity) == ("lineage.repeated-entry", "/lineage/1", ERROR)


def test_an_unknown_run_without_a_close_name_says_how_runs_are_named() -> None:
    """With no near miss to offer, the hint still says what a lineage run looks like."""
    [finding] = chain_findings(lesson([{"quest": "001", "run": "ablation-7"}]), known)
    assert finding.rule == "lineage.unknown-run" and "run-xxxxxxxx" in (finding.hint or "")


def test_entries_the_schema_reports_are_left_to_it() -> None:
    """A lineage entry that is not a mapping of text is the schema's error, not a second one here."""
    broken = lesson(["run-1", {"quest": "001"}, {"quest": 1, "run": RUN_ID}])
    assert chain_findings(broken, known) == []
    assert {f.rule for f in card_findings(broken)} == {"card.experience-schema"}


def test_a_card_without_a_lineage_has_no_chain_to_check() -> None:
    """Plain knowledge cards are not lessons; an empty lineage is the schema's to report."""
    assert chain_findings(card({"id": "knowledge-2", "title": "a note", "quest_id": "009"}), known) == []
    assert chain_findings(lesson([]), known) == []  # the schema asks for one entry at least


def test_a_quest_id_that_would_leave_the_home_is_an_unknown_quest(tmp_path: Path) -> None:
    """Lineage names folders of ``<home>/quests``; ``..`` or a slash must never lead a read out of it."""
    (tmp_path / "quests" / "001").mkdir(parents=True)
    home = Home(tmp_path, load=lambda folder: quest([run()]))
    runs_of = runs_by_quest(home.quest)
    assert chain_findings(lesson([{"quest": "001", "run": RUN_ID}]), runs_of) == []
    for bad in ("../001", "quests/001", ".."):
        [finding] = chain_findings(lesson([{"quest": "001", "run": RUN_ID}, {"quest": bad, "run": RUN_ID}]), runs_of)
        assert (finding.rule, finding.pointer) == ("lineage.unknown-quest", "/lineage/1/quest")
        assert "is not a quest id" in finding.message
