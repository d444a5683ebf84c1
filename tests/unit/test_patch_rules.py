"""Cross-quest patches (``rules.patch``) beyond the basic cases of ``test_card_rules``: who
owns a card (the quests of its lineage before the patch, compared as text), what a
missing confidence counts as, and which patches are not checked at all. PR #60's
MemoryService refuses the patches these rules report, so a wrong answer here either blocks a
legitimate edit or lets a quest rewrite another quest's lesson."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ds_gate.model.findings import ERROR
from ds_gate.model.records import Card
from ds_gate.rules.patch import check_patch, owners, validate_cross_quest_patch
from ds_gate.sources.memory import parse_card

from rulecases import fired

FAILS = {"patch.claim-changed", "patch.confidence-raised", "patch.lineage-rewritten"}
PASSES = set(FAILS)
FIRST = {"quest": "001", "run": "run-1"}
SECOND = {"quest": "002", "run": "run-9"}
ONE_OWNER: dict[str, Any] = {
    "id": "knowledge-1",
    "title": "t",
    "quest_id": "001",
    "claim": "Lower is steadier.",
    "confidence": 0.5,
    "lineage": [FIRST],
}
TWO_OWNERS = dict(ONE_OWNER, lineage=[FIRST, SECOND])


def patched(before: dict[str, Any] | None, patcher: str | None, **after: Any) -> list[str]:
    merged = {k: v for k, v in {**(before or ONE_OWNER), **after}.items() if v is not None}
    return fired(validate_cross_quest_patch(before, merged, patcher, validate_after=False))


@pytest.mark.parametrize(
    ("before", "patcher", "after", "expected"),
    [
        (ONE_OWNER, "001", {"claim": "Higher is steadier.", "confidence": 0.9, "lineage": []}, []),
        (ONE_OWNER, " 001 ", {"claim": "Higher is steadier."}, []),
        (TWO_OWNERS, "001", {"claim": "Higher is steadier."}, ["patch.claim-changed"]),
        (TWO_OWNERS, "001", {"lineage": [FIRST, SECOND, {"quest": "001", "run": "run-2"}]}, []),
        (ONE_OWNER, "1", {"claim": "Higher is steadier."}, ["patch.claim-changed"]),
        (dict(ONE_OWNER, lineage=[{"quest": 1, "run": "run-1"}]), "1", {"claim": "Higher is steadier."}, []),
        (dict(ONE_OWNER, lineage=[]), "002", {"claim": "Higher is steadier.", "confidence": 1.0}, []),
        (ONE_OWNER, None, {"confidence": 0.9}, ["patch.confidence-raised"]),
        (ONE_OWNER, "  ", {"confidence": 0.9}, ["patch.confidence-raised"]),
    ],
    ids=[
        "the sole owner edits freely",
        "the owner's id padded",
        "a first owner once a second appended",
        "a first owner appending evidence",
        "quest 1 is not quest '001'",
        "an owner written as a number",
        "no lineage, no owner",
        "an unknown patcher",
        "a blank patcher",
    ],
)
def test_only_the_sole_owner_edits_freely(
    before: dict[str, Any], patcher: str | None, after: dict[str, Any], expected: list[str]
) -> None:
    """PR #60: an edit is free only when the lineage's quests are exactly the patcher (or none)."""
    assert patched(before, patcher, **after) == expected


def test_quest_ids_that_differ_only_in_padding_are_explained() -> None:
    """DeepScientist compares quest ids as text; the message says so where it would surprise."""
    [finding] = validate_cross_quest_patch(ONE_OWNER, dict(ONE_OWNER, claim="Higher."), "1", validate_after=False)
    assert "compare as text" in finding.message and "'1' is not one of them" in finding.message


def test_a_number_as_the_patching_quest_is_its_text() -> None:
    """Issue 39: an int raised AttributeError; it is compared as text, as a lineage's quest number is."""
    edit = dict(ONE_OWNER, claim="Higher is steadier.")
    assert fired(validate_cross_quest_patch(dict(ONE_OWNER, quest_id="1", lineage=[{"quest": "1"}]), edit, 1)) == []
    [finding] = validate_cross_quest_patch(ONE_OWNER, edit, 1, validate_after=False)  # 1 is not '001'
    assert finding.rule == "patch.claim-changed" and "'1' is not one of them" in finding.message
    with pytest.raises(TypeError, match="patching_quest must be a quest id"):
        validate_cross_quest_patch(ONE_OWNER, edit, 1.0, validate_after=False)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (None, 0.1, ["patch.confidence-raised"]),
        (0.5, None, []),
        (0.5, 0.5, []),
        (0.5, "high", []),
        ("high", 0.9, []),
        (True, 0.9, []),
    ],
    ids=[
        "a first confidence counts as raised from 0",
        "a dropped confidence is 0",
        "unchanged",
        "a word for the schema to report",
        "a word before",
        "a boolean is not a number",
    ],
)
def test_a_missing_confidence_counts_as_zero(before: Any, after: Any, expected: list[str]) -> None:
    """Only two numbers are compared; a value that is not one is the schema's to report."""
    start = {k: v for k, v in dict(ONE_OWNER, confidence=before).items() if v is not None}
    assert patched(start, "002", confidence=after) == expected


def test_a_claim_compares_without_surrounding_whitespace() -> None:
    """As DeepScientist compares it: a re-serialised claim is the same claim, a recased one is not."""
    assert patched(ONE_OWNER, "002", claim="  Lower is steadier.\n") == []
    assert patched(ONE_OWNER, "002", claim="lower is steadier.") == ["patch.claim-changed"]


def test_a_rewritten_lineage_is_reported_once_at_its_first_change() -> None:
    """One finding, at the first entry that differs, however many follow."""
    found = validate_cross_quest_patch(
        TWO_OWNERS,
        dict(TWO_OWNERS, lineage=[{"quest": "003", "run": "a"}, {"quest": "003", "run": "b"}]),
        "003",
        validate_after=False,
    )
    assert [(f.rule, f.pointer, f.severity) for f in found] == [("patch.lineage-rewritten", "/lineage/0", ERROR)]
    annotated = dict(TWO_OWNERS, lineage=[FIRST, dict(SECOND, note="added later")])
    assert patched(TWO_OWNERS, "003", lineage=annotated["lineage"]) == ["patch.lineage-rewritten"]


def test_owners_are_the_distinct_quests_of_the_lineage_before() -> None:
    """Entries that name no quest own nothing; a quest appearing twice is one owner."""
    assert owners(dict(ONE_OWNER, lineage=[FIRST, SECOND, FIRST, {"quest": " "}, "x", {"quest": True}])) == [
        "001",
        "002",
    ]


def _card(text: str) -> Card:
    card = parse_card(
        text.encode(), path=Path("/nowhere/k.md"), display="memory/knowledge/k.md", scope="global", kind="knowledge"
    )
    assert card is not None
    return card


def test_the_commit_hook_checks_only_patches_of_readable_cards() -> None:
    """A new card patches nothing, and a card whose frontmatter is broken is reported as such, not as a patch."""
    before = _card("---\nid: knowledge-1\nclaim: Lower.\nlineage:\n  - {quest: '001', run: run-1}\n---\n")
    after = _card("---\nid: knowledge-1\nclaim: Higher.\nlineage:\n  - {quest: '001', run: run-1}\n---\n")
    broken = _card("---\nid: knowledge-1\nclaim: [Higher.\n---\n")
    assert fired(check_patch(before, after, "002")) == ["patch.claim-changed"]
    assert check_patch(before, after, "001") == []
    assert check_patch(None, after, "002") == []
    assert check_patch(before, broken, "002") == [] and broken.broken


def test_pr_60_card_metadata_without_an_id_is_not_refused() -> None:
    """Issue 24: PR #60's ``validate_cross_quest_patch`` validates ``after`` as experience
    metadata (``claim``, ``lineage``): the frontmatter before ``memory.write`` assigns an id.
    An allowed append is allowed without one; a wrong id, or a real breach, is still reported."""
    before = {k: v for k, v in ONE_OWNER.items() if k not in ("id", "title", "quest_id")}
    after = dict(before, confidence=0.4, lineage=[FIRST, SECOND])
    assert validate_cross_quest_patch(before, after, "002") == []
    assert fired(validate_cross_quest_patch(before, dict(after, claim="Higher is steadier."), "002")) == [
        "patch.claim-changed"
    ]
    assert fired(validate_cross_quest_patch(before, dict(after, id="  "), "002")) == ["card.schema"]
    assert "card.experience-schema" in fired(validate_cross_quest_patch(before, dict(after, claim=" "), "002"))
