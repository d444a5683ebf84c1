"""Card discipline of reviews: the cards they name exist, new cards are not silent duplicates,
and lessons do not stay locked in quest scope."""

from __future__ import annotations

import pytest


@pytest.fixture
def quest(quest_with_run):
    return quest_with_run


def found(out: dict) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["pointer"]) for f in out["findings"])


def test_the_default_review_writes_its_cards_and_passes(quest, home, gate_json) -> None:
    q, run = quest
    q.review(q.root, [run])
    code, out = gate_json("closure", str(q.root))
    assert code == 0 and out["findings"] == []
    assert [c["scope"] for c in out["cards"]] == ["global"] and out["home"] == str(home)


def test_a_review_naming_a_card_that_does_not_exist_fails(quest, gate_json) -> None:
    q, run = quest
    review = q.review(
        q.root,
        [run],
        cards=[
            {"card_id": "knowledge-deadbeef", "scope": "global", "action": "new", "target_run_id": run},
        ],
    )
    code, out = gate_json("check", str(q.root))
    assert code == 1
    assert found(out) == [("review.missing-card", "/cards_written/0/card_id")]
    finding = out["findings"][0]
    assert finding["path"] == f"artifacts/decisions/{review}.json" and finding["line"] is not None
    assert "knowledge-deadbeef" in finding["message"]


def test_a_card_in_the_other_scope_gets_a_scope_hint(quest, gate_json) -> None:
    q, run = quest
    card = q.card("quest", "Quest-internal note", tags=["stage:experiment"])
    wrong = q.review(q.root, [run], cards=[{"card_id": card, "scope": "global", "action": "new", "target_run_id": run}])
    code, out = gate_json("check", str(q.root))
    assert code == 1
    [missing] = [f for f in out["findings"] if f["rule"] == "review.missing-card"]
    assert "(it is in the quest memory)" in missing["message"] and missing["hint"].startswith("set scope: quest; ")
    assert f"'artifact_id': '{wrong}'" in missing["hint"]  # issue 25: the call that records the fix
    # the same entry with the right scope passes
    (q.root / "artifacts" / "decisions" / f"{wrong}.json").unlink()
    q.review(q.root, [run], cards=[{"card_id": card, "scope": "quest", "action": "new", "target_run_id": run}])
    code, out = gate_json("check", str(q.root))
    assert code == 0 and [f["rule"] for f in out["findings"]] == [
        "index.missing-record"
    ]  # the removed review's index line


def test_a_stale_index_line_does_not_make_a_deleted_card_exist(quest, home, gate_json) -> None:
    q, run = quest
    card = q.card("global", "Deleted later", claim="c", lineage=[{"quest": "001", "run": run}])
    q.card_path("global", "Deleted later").unlink()  # its line stays in memory/knowledge/_index.jsonl
    assert card in (home / "memory" / "knowledge" / "_index.jsonl").read_text()
    q.review(q.root, [run], cards=[{"card_id": card, "scope": "global", "action": "new", "target_run_id": run}])
    code, out = gate_json("check", str(q.root))
    assert code == 1 and found(out) == [("review.missing-card", "/cards_written/0/card_id")]


def test_a_new_card_duplicating_an_existing_one_needs_a_neighbour_decision(quest, home, gate_json) -> None:
    q, run = quest
    existing = q.card(
        "global",
        "Router temperature matters",
        claim="Lower router temperature stabilises training.",
        lineage=[{"quest": "001", "run": run}],
        body="Context: sweep.\n\nObservation: T=0.5   beats T=1.0.",
    )
    # the same text, differing only in case and spacing, under another title
    new = q.card(
        "global",
        "A fresh lesson",
        claim="Temperature matters.",
        lineage=[{"quest": "001", "run": run}],
        body="CONTEXT:  Sweep.\nObservation:\tt=0.5 BEATS t=1.0. ",
    )
    entry = {"card_id": new, "scope": "global", "action": "new", "target_run_id": run}
    review = q.review(q.root, [run], cards=[entry])
    code, out = gate_json("check", str(q.root))
    assert code == 1
    assert found(out) == [("review.duplicate-card", "/cards_written/0")]
    message = out["findings"][0]["message"]
    assert existing in message and "same body" in message and existing in out["findings"][0]["hint"]

    # the neighbour decision names the existing card: now it passes
    (q.root / "artifacts" / "decisions" / f"{review}.json").unlink()
    q.review(
        q.root,
        [run],
        cards=[entry],
        neighbor_decisions=[
            {
                "candidate_card_id": existing,
                "decision": "neighbor_but_separate",
                "target_run_id": run,
                "reason": "same observation, different claim",
            },
        ],
    )
    code, out = gate_json("check", str(q.root))
    assert code == 0, out["findings"]


def test_same_title_counts_as_a_duplicate_but_a_patch_does_not_need_a_decision(quest, gate_json) -> None:
    q, run = quest
    existing = q.card("quest", "Router  Temperature matters", body="one")
    new = q.card("global", "router temperature MATTERS", body="two", claim="c", lineage=[{"quest": "001", "run": run}])
    assert q.card_path("quest", "Router  Temperature matters") != q.card_path("global", "router temperature MATTERS")
    review = q.review(q.root, [run], cards=[{"card_id": new, "scope": "global", "action": "new", "target_run_id": run}])
    code, out = gate_json("check", str(q.root))
    assert [(f["rule"], "same title" in f["message"]) for f in out["findings"]] == [("review.duplicate-card", True)]
    assert existing in out["findings"][0]["message"]
    (q.root / "artifacts" / "decisions" / f"{review}.json").unlink()
    q.review(q.root, [run], cards=[{"card_id": new, "scope": "global", "action": "patch", "target_run_id": run}])
    code, out = gate_json("check", str(q.root))
    assert code == 0, out["findings"]


def test_without_a_home_global_cards_are_one_warning_not_an_error(quest, tmp_path, gate_json, monkeypatch) -> None:
    q, run = quest
    q.review(q.root, [run])
    code, out = gate_json("closure", str(q.root), "--home", str(tmp_path / "no-home"))
    assert code == 0  # a CI clone of one quest: nothing to compare with
    assert [(f["rule"], f["severity"]) for f in out["findings"]] == [("card.home-missing", "warning")]
    assert "--home" in out["findings"][0]["hint"]


def test_lessons_in_quest_scope_are_a_warning_that_never_fails(quest, gate_json) -> None:
    q, run = quest
    q.card("quest", "Lesson kept locally", claim="c", lineage=[{"quest": "001", "run": run}])
    q.card("quest", "Plain task note")  # not a lesson: no claim, no lineage
    q.review(q.root, [run])
    code, out = gate_json("closure", str(q.root))
    assert code == 0
    assert [(f["rule"], f["severity"], f["path"]) for f in out["findings"]] == [
        ("card.quest-scope-lesson", "warning", "memory/knowledge/lesson-kept-locally.md")
    ]
