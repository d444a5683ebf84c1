"""Card rules on in-memory cards: each card's frontmatter, the discipline of the reviews
that write them, lineage chains back to their origin, and cross-quest patches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ds_gate.engine.quest_memory import quest_memory
from ds_gate.rules.cards import (
    CardIndex,
    card_findings,
    quest_scope_findings,
    review_findings,
)
from ds_gate.rules.coverage import coverage
from ds_gate.rules.lineage import QuestRuns, chain_findings
from ds_gate.rules.patch import validate_cross_quest_patch

from rulecases import RUN_ID, card, decision, fired, quest, review_data, run

FAILS = {
    "card.schema",
    "card.experience-schema",
    "card.quest-scope-lesson",
    "card.home-missing",
    "review.missing-card",
    "review.duplicate-card",
    "lineage.not-origin",
    "lineage.origin-unknown",
    "lineage.unknown-quest",
    "lineage.unknown-run",
    "lineage.repeated-entry",
    "patch.claim-changed",
    "patch.confidence-raised",
    "patch.lineage-rewritten",
}
PASSES = set(FAILS)
LESSON = {
    "id": "knowledge-1",
    "title": "Router temperature",
    "quest_id": "001",
    "claim": "Lower is steadier.",
    "confidence": 0.6,
    "lineage": [{"quest": "001", "run": RUN_ID}],
}


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"id": "knowledge-1", "title": "t"}, []),
        ({"title": "no id"}, ["card.schema"]),
        ({"id": "knowledge-1", "confidence": 3}, ["card.schema"]),
        (LESSON, []),
        (dict(LESSON, claim=""), ["card.experience-schema"]),
        (dict(LESSON, lineage=[{"run": RUN_ID}]), ["card.experience-schema"]),
    ],
    ids=[
        "a knowledge card",
        "no id",
        "confidence above 1",
        "a lesson",
        "an empty claim",
        "a lineage entry without quest",
    ],
)
def test_card_schemas(meta: dict[str, Any], expected: list[str]) -> None:
    assert fired(card_findings(card(meta))) == expected


def test_a_lesson_kept_in_quest_scope_unless_a_global_copy_exists() -> None:
    lesson = card(LESSON, scope="quest")
    assert fired(quest_scope_findings([lesson], set())) == ["card.quest-scope-lesson"]
    assert quest_scope_findings([lesson], {"knowledge-1"}) == []  # promoted already
    assert quest_scope_findings([card({"id": "knowledge-2", "title": "t"}, scope="quest")], set()) == []  # not a lesson


def test_the_quest_scope_warning_ends_with_the_promote_call_for_its_quest() -> None:
    [found] = quest_scope_findings([card(LESSON, scope="quest")], set(), quest_id="001")
    call = "promote it from quest 001: memory.promote_to_global(card_id='knowledge-1')"
    assert found.message.endswith(call) and found.hint.endswith(
        "from quest 001: memory.promote_to_global(card_id='knowledge-1')"
    )
    # an id main's read_card would not match as written: the card's absolute path instead
    spaced = card(dict(LESSON, id=" knowledge-1 "), scope="quest", display="memory/knowledge/l.md")
    [by_path] = quest_scope_findings([spaced], set(), quest_id="001")
    assert by_path.message.endswith("memory.promote_to_global(path='/nowhere/memory/knowledge/l.md')")
    # a global card promoted from its file (main's promoted_from.path) is its global copy
    assert quest_scope_findings([spaced], set(), frozenset({"/nowhere/memory/knowledge/l.md"})) == []


def _discipline(review: dict[str, Any], quest_cards: list[Any], global_cards: list[Any]) -> list[str]:
    out = review_findings([decision(review)], CardIndex(quest_cards), CardIndex(global_cards), "<home>/memory")
    return fired(out.findings)


def test_a_review_must_name_cards_that_exist_in_the_scope_it_claims() -> None:
    written = card({"id": "knowledge-1", "title": "t"})
    assert _discipline(review_data(), [], [written]) == []
    assert _discipline(review_data(), [], []) == ["review.missing-card"]
    assert _discipline(review_data(), [card({"id": "knowledge-1", "title": "t"}, scope="quest")], []) == [
        "review.missing-card"
    ]  # it is in the quest memory, not the global one


def test_a_new_card_repeating_another_needs_a_neighbour_decision() -> None:
    new = card({"id": "knowledge-1", "title": "Router  TEMPERATURE"}, body="Same words.")
    old = card(
        {"id": "knowledge-0", "title": "router temperature"}, body="Other words.", display="memory/knowledge/o.md"
    )
    assert _discipline(review_data(), [], [new, old]) == ["review.duplicate-card"]
    named = review_data(
        neighbor_decisions=[
            {
                "candidate_card_id": "knowledge-0",
                "decision": "neighbor_but_separate",
                "reason": "another mechanism",
                "target_run_id": RUN_ID,
            }
        ]
    )
    assert _discipline(named, [], [new, old]) == []


def test_without_a_home_global_cards_are_one_warning(tmp_path: Path) -> None:
    reviewed = quest([run()], [decision(review_data())])
    reviewed.root = tmp_path / "quest"
    found = quest_memory(reviewed, coverage(reviewed).reviews, tmp_path / "no-home").findings
    assert fired(found) == ["card.home-missing"]
    plain = quest([run()], [decision(review_data(cards_written=[], reason_if_empty="nothing"))])
    plain.root = tmp_path / "quest"
    assert quest_memory(plain, coverage(plain).reviews, tmp_path / "no-home").findings == []


RUNS = QuestRuns(quest([run(), run("run-2", "main-002")]))


def runs_of(quest_id: str) -> QuestRuns | str:
    return RUNS if quest_id.lstrip("0") == "1" else f"no quest {quest_id} in quests"


@pytest.mark.parametrize(
    ("lineage", "meta", "expected"),
    [
        ([{"quest": "001", "run": RUN_ID}, {"quest": "001", "run": "main-002"}], {}, []),
        ([{"quest": "002", "run": RUN_ID}], {}, ["lineage.not-origin", "lineage.unknown-quest"]),
        ([{"quest": "001", "run": RUN_ID}], {"quest_id": None}, ["lineage.origin-unknown"]),
        ([{"quest": "001", "run": RUN_ID}, {"quest": "404", "run": "run-x"}], {}, ["lineage.unknown-quest"]),
        ([{"quest": "001", "run": "run-51c9ad0"}], {}, ["lineage.unknown-run"]),
        ([{"quest": "001", "run": RUN_ID}, {"quest": "001", "run": "main-001"}], {}, ["lineage.repeated-entry"]),
    ],
    ids=[
        "a chain that resolves",
        "a first entry not the origin",
        "no origin to check",
        "an unknown quest",
        "an unknown run",
        "one run named twice",
    ],
)
def test_lineage_chains(lineage: list[dict[str, str]], meta: dict[str, Any], expected: list[str]) -> None:
    data = {k: v for k, v in {**LESSON, "lineage": lineage, **meta}.items() if v is not None}
    assert fired(chain_findings(card(data), runs_of)) == expected


def test_an_unknown_run_gets_a_did_you_mean() -> None:
    data = dict(LESSON, lineage=[{"quest": "001", "run": "run-51c9ad0"}])
    [finding] = chain_findings(card(data), runs_of)
    assert finding.hint == f"did you mean {RUN_ID}?" and finding.pointer == "/lineage/0/run"


@pytest.mark.parametrize(
    ("change", "patcher", "expected"),
    [
        ({"lineage": [*LESSON["lineage"], {"quest": "002", "run": "run-9"}]}, "002", []),
        ({"claim": "Higher is steadier."}, "002", ["patch.claim-changed"]),
        ({"claim": "Higher is steadier."}, "001", []),  # the owner may change anything
        ({"confidence": 0.9}, "002", ["patch.confidence-raised"]),
        ({"confidence": 0.3}, "002", []),
        ({"lineage": [{"quest": "002", "run": "run-9"}]}, "002", ["patch.lineage-rewritten"]),
        ({"lineage": []}, None, ["patch.lineage-rewritten"]),
    ],
    ids=[
        "appended evidence",
        "a changed claim",
        "the owner's edit",
        "a raised confidence",
        "a lowered confidence",
        "a rewritten entry",
        "dropped entries by an unknown quest",
    ],
)
def test_cross_quest_patches(change: dict[str, Any], patcher: str | None, expected: list[str]) -> None:
    after = {**LESSON, **change}
    assert fired(validate_cross_quest_patch(LESSON, after, patcher, path="k.md", validate_after=False)) == expected


def test_a_patch_is_checked_against_the_card_schemas_first() -> None:
    found = validate_cross_quest_patch(LESSON, {**LESSON, "lineage": []}, "002", path="k.md")
    assert fired(found) == ["card.experience-schema", "patch.lineage-rewritten"]


def test_a_card_written_after_the_review_does_not_fail_it_retroactively() -> None:
    """Issue 24: a review is judged against the cards that existed when it was recorded. A
    duplicate written afterwards (by this quest or another) does not fail it; one that was
    there before, or whose time cannot be read, still does."""
    review = review_data(created_at="2026-11-22T02:00:00+00:00", updated_at="2026-11-22T02:00:00+00:00")
    new = card(
        {
            "id": "knowledge-1",
            "title": "Router temperature",
            "created_at": "2026-11-22T01:59:00+00:00",
            "updated_at": "2026-11-23T09:00:00+00:00",
        }
    )  # patched later by another quest: its review time stays
    later = card(
        {
            "id": "knowledge-9",
            "title": "router temperature",
            "created_at": "2026-11-22T03:00:00+00:00",
            "updated_at": "2026-11-22T03:00:00+00:00",
        },
        display="memory/knowledge/l.md",
    )
    assert _discipline(review, [], [new, later]) == []
    for then in (
        {"created_at": "2026-11-22T01:00:00+00:00"},
        {},
        {"created_at": "not a time"},
        {"created_at": "2026-11-22T03:00:00+00:00", "updated_at": "2026-11-22T01:00:00+00:00"},
    ):
        earlier = card({"id": "knowledge-9", "title": "router temperature", **then}, display="memory/knowledge/l.md")
        assert _discipline(review, [], [new, earlier]) == ["review.duplicate-card"], then
    undated = review_data()  # a review without a time: every card counts
    assert _discipline(undated, [], [card({"id": "knowledge-1", "title": "Router temperature"}), later]) == [
        "review.duplicate-card"
    ]
    backdated = review_data(created_at="2000-01-01T00:00:00+00:00")  # the card it writes says when it was at least
    assert _discipline(
        backdated,
        [],
        [new, card({"id": "knowledge-9", "title": "router temperature", "created_at": "2026-11-22T01:30:00+00:00"})],
    ) == ["review.duplicate-card"]
