"""Issue 37 §3: neighbour decisions must mean something, on real git quests in a real home.

Each rule fails and passes through ``ds-gate check`` (a warning, exit 0) and ``closure`` (an
error, exit 1); main's ``sharedmemory::<quest>::<path>`` ids under both values of the home's
``memory.read_visibility_mode``; the installed hook lets an ordinary checkpoint through and
refuses a finalization; ``validate_distill_review`` (CLI and ``ds-gate mcp``) shows the findings
before the review is recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_mcp import connect, drive, payload

from ds_gate.cli.main import main

from helpers import commit, head_subject

CLAIM = "lower router temperature stabilises training of the sparse mixture model on long runs"
ONE_WORD = "smaller router temperature stabilises training of the sparse mixture model on long runs"
SHARED = "memory:\n  read_visibility_mode: shared_across_quests\n"
NEIGHBOUR_RULES = ("review.neighbor-missing-card", "review.neighbor-patch-unwritten", "review.near-duplicate-card")


@pytest.fixture
def quest(quest_with_run):
    return quest_with_run


def decided(candidate: str, run: str, decision: str = "neighbor_but_separate") -> dict[str, Any]:
    return {"candidate_card_id": candidate, "decision": decision, "target_run_id": run, "reason": "weighed"}


def ours(out: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["rule"], f["severity"], f["pointer"]) for f in out["findings"] if f["rule"] in NEIGHBOUR_RULES]


def verdicts(gate_json, root: Path) -> tuple[int, list[Any], int, list[Any], dict[str, Any]]:
    """``check`` then ``closure``: their exit codes and neighbour findings, and closure's output."""
    checked, check_out = gate_json("check", str(root))
    closed, closure_out = gate_json("closure", str(root))
    return checked, ours(check_out), closed, ours(closure_out), closure_out


def replace_review(q, review: str, run: str, **fields: Any) -> str:
    (q.root / "artifacts" / "decisions" / f"{review}.json").unlink()
    return q.review(q.root, [run], **fields)


def test_a_neighbour_naming_no_card_warns_in_check_and_fails_closure(quest, gate_json) -> None:
    q, run = quest
    existing = q.card("global", "Router temperature", tags=["topic:router"])
    review = q.review(q.root, [run], neighbor_decisions=[decided("knowledge-deadbeef", run)])
    checked, in_check, closed, in_closure, out = verdicts(gate_json, q.root)
    where = "/neighbor_decisions/0/candidate_card_id"
    assert (checked, in_check) == (0, [("review.neighbor-missing-card", "warning", where)])
    assert (closed, in_closure) == (1, [("review.neighbor-missing-card", "error", where)])
    [finding] = [f for f in out["findings"] if f["rule"] == "review.neighbor-missing-card"]
    assert finding["path"] == f"artifacts/decisions/{review}.json" and finding["line"] is not None
    assert "'knowledge-deadbeef'" in finding["message"] and f"'artifact_id': '{review}'" in finding["hint"]

    replace_review(q, review, run, neighbor_decisions=[decided(existing, run)])
    assert verdicts(gate_json, q.root)[:4] == (0, [], 0, [])


def test_a_patch_decision_needs_its_patch_entry(quest, gate_json) -> None:
    q, run = quest
    existing = q.card("global", "Router temperature", claim="c", lineage=[{"quest": "001", "run": run}])
    review = q.review(q.root, [run], neighbor_decisions=[decided(existing, run, "patch")])
    checked, in_check, closed, in_closure, _ = verdicts(gate_json, q.root)
    where = "/neighbor_decisions/0/decision"
    assert (checked, in_check, closed, in_closure) == (
        0,
        [("review.neighbor-patch-unwritten", "warning", where)],
        1,
        [("review.neighbor-patch-unwritten", "error", where)],
    )
    patched = {"card_id": existing, "scope": "global", "action": "patch", "target_run_id": run}
    replace_review(q, review, run, cards=[patched], neighbor_decisions=[decided(existing, run, "patch")])
    assert verdicts(gate_json, q.root)[:4] == (0, [], 0, [])


def _lesson(q, title: str, tags: list[str], claim: str, run: str) -> str:
    return q.card(
        "global", title, tags=tags, claim=claim, lineage=[{"quest": "001", "run": run}], body=f"Context: {title}."
    )


def test_a_near_duplicate_new_card_needs_a_neighbour_decision(quest, gate_json) -> None:
    q, run = quest
    old = _lesson(q, "Router temperature", ["Topic: Router", "stage:experiment"], CLAIM, run)
    new = _lesson(q, "Cooler routers", ["topic:router", " Stage:Experiment "], ONE_WORD, run)
    entry = {"card_id": new, "scope": "global", "action": "new", "target_run_id": run}
    review = q.review(q.root, [run], cards=[entry])
    checked, in_check, closed, in_closure, out = verdicts(gate_json, q.root)
    assert (checked, in_check) == (0, [("review.near-duplicate-card", "warning", "/cards_written/0")])
    assert (closed, in_closure) == (1, [("review.near-duplicate-card", "error", "/cards_written/0")])
    [finding] = [f for f in out["findings"] if f["rule"] == "review.near-duplicate-card"]
    assert old in finding["message"] and "topic:router" in finding["message"]
    assert f"'candidate_card_id': '{old}'" in finding["hint"]

    review = replace_review(q, review, run, cards=[entry], neighbor_decisions=[decided(old, run)])
    assert verdicts(gate_json, q.root)[:4] == (0, [], 0, [])
    # other tags: no twin, though the claim is the same
    (q.root / "artifacts" / "decisions" / f"{review}.json").unlink()
    other = _lesson(q, "Cooler routers elsewhere", ["topic:router", "stage:analysis"], ONE_WORD, run)
    q.review(q.root, [run], cards=[{**entry, "card_id": other}])
    assert verdicts(gate_json, q.root)[:4] == (0, [], 0, [])


def _sibling(make_quest) -> tuple[Any, str]:
    """Quest 002 of the same home, with a quest-scope card at knowledge/b-lesson.md."""
    b = make_quest("002")
    b.card("quest", "B lesson", claim="b", lineage=[{"quest": "002", "run": "run-b"}])
    return b, "sharedmemory::002::knowledge/b-lesson.md"


def test_another_quests_card_counts_only_in_a_shared_home(quest, make_quest, home, gate_json) -> None:
    q, run = quest
    _, shared_id = _sibling(make_quest)
    review = q.review(q.root, [run], neighbor_decisions=[decided(shared_id, run)])
    code, out = gate_json("closure", str(q.root))
    [there] = [f for f in out["findings"] if f["rule"] == "review.neighbor-missing-card"]
    assert code == 1 and "memory.read_visibility_mode 'independent' does not show to this quest" in there["message"]
    # a card that does not exist: the same words, so the finding tells nothing of another quest's memory
    absent = shared_id.replace("b-lesson", "no-such-card")
    again = replace_review(q, review, run, neighbor_decisions=[decided(absent, run)])
    code, out = gate_json("closure", str(q.root))
    [missing] = [f for f in out["findings"] if f["rule"] == "review.neighbor-missing-card"]
    assert code == 1 and missing["message"].replace("no-such-card", "b-lesson") == there["message"]
    assert missing["hint"].replace(again, review) == there["hint"]  # the same but for the call's artifact_id

    (home / "config").mkdir()
    (home / "config" / "config.yaml").write_text(SHARED.replace("shared_across_quests", "' Shared_Across_Quests '"))
    code, out = gate_json("closure", str(q.root))
    [gone] = [f for f in out["findings"] if f["rule"] == "review.neighbor-missing-card"]
    assert code == 1 and "there is no" in gone["message"] and "no-such-card.md" in gone["message"]
    replace_review(q, again, run, neighbor_decisions=[decided(shared_id, run)])
    code, out = gate_json("closure", str(q.root))
    assert code == 0 and ours(out) == []


@pytest.mark.slow
def test_the_hook_lets_an_ordinary_checkpoint_through_and_refuses_a_finalization(quest, gate_json) -> None:
    q, run = quest
    assert main(["install", str(q.root)]) == 0
    q.review(q.root, [run], neighbor_decisions=[decided("knowledge-deadbeef", run)])
    done = commit(q.root, "artifact: record the review")
    assert done.returncode == 0 and head_subject(q.root) == "artifact: record the review", done.stderr
    (q.root / "paper").mkdir()
    (q.root / "paper" / "paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
    refused = commit(q.root, "paper: bundle")
    assert refused.returncode != 0 and head_subject(q.root) != "paper: bundle"
    assert "review.neighbor-missing-card" in refused.stdout + refused.stderr


def _payload(run: str, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "report",
        "report_type": "distill_review",
        "summary": "one run distilled",
        "reviewed_run_ids": [run],
        "cards_written": [],
        "reason_if_empty": "nothing reusable",
        "suppress_if_semantically_equivalent": False,
        **extra,
    }


def test_validate_review_shows_the_findings_before_recording(quest, tmp_path, capsys) -> None:
    q, run = quest
    file = tmp_path / "review.json"
    file.write_text(json.dumps(_payload(run, neighbor_decisions=[decided("knowledge-deadbeef", run)])))
    capsys.readouterr()
    assert main(["validate-review", str(file), "--quest", str(q.root), "--format", "json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["ok"] is False and answer["covers"] == [run]  # valid: it covers, and closure still fails
    assert [f["rule"] for f in answer["findings"]] == ["review.neighbor-missing-card"]
    assert answer["findings"][0]["severity"] == "error" and not (q.root / "artifacts" / "reports").exists()


@pytest.mark.slow
def test_the_mcp_validate_distill_review_shows_them_too(quest, tmp_path) -> None:
    q, run = quest
    existing = q.card("global", "Router temperature", claim="c", lineage=[{"quest": "001", "run": run}])
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(q.root, errlog) as session:
            patch = _payload(run, neighbor_decisions=[decided(existing, run, "patch")])
            checked = payload(await session.call_tool("validate_distill_review", {"payload": patch}))
            assert not checked["ok"] and [f["rule"] for f in checked["findings"]] == ["review.neighbor-patch-unwritten"]
            patch["cards_written"] = [{"card_id": existing, "scope": "global", "action": "patch", "target_run_id": run}]
            checked = payload(await session.call_tool("validate_distill_review", {"payload": patch}))
            assert checked["ok"] and checked["findings"] == [], checked

    drive(scenario, errlog)


def test_a_lesson_without_an_id_is_promoted_by_path_and_its_copy_clears_the_warning(quest, gate_json) -> None:
    q, run = quest
    path = q.root / "memory" / "knowledge" / "no-id.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntitle: No id\nclaim: c\nlineage:\n- quest: '001'\n  run: {run}\n---\nbody\n")
    _, out = gate_json("check", str(q.root))
    [lesson] = [f for f in out["findings"] if f["rule"] == "card.quest-scope-lesson"]
    assert lesson["message"].endswith(f"promote it from quest 001: memory.promote_to_global(path='{path}')")
    # what main's promote_to_global(path=...) writes: a global copy under a fresh id, with promoted_from
    q.card("global", "No id", claim="c", promoted_from={"quest_root": str(q.root), "path": str(path)})
    _, out = gate_json("check", str(q.root))
    assert [f for f in out["findings"] if f["rule"] == "card.quest-scope-lesson"] == []
