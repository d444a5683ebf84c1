"""Issue 16.1: a review DeepScientist main can record.

Main's ``artifact.record`` refuses ``kind: decision, action: distill_review`` (its
``DECISION_ACTIONS`` lack the action) but stores a ``kind: report`` unchanged and requires
nothing of it. ds-gate reads a ``report_type: distill_review`` report as a review: the same
schema for the review fields, the same coverage, the same rule ids, each finding saying
which encoding it read; both encodings may live in one quest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_reviews import INVALID, fill, review_payload

from ds_gate import evaluate
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import CheckpointRejected
from ds_gate.model.review_call import draft_payload

from helpers import git

REVIEW_ONLY = ("verdict", "reason", "action")  # the decision's own fields: a report has none of them


def as_report(payload: dict) -> dict:
    """The review fields of a decision-encoded review, recorded as main accepts them."""
    body = {k: v for k, v in payload.items() if k not in REVIEW_ONLY}
    return {"kind": "report", "report_type": "distill_review", "suppress_if_semantically_equivalent": False, **body}


def test_main_refuses_the_rfc_call_and_records_the_report_unchanged(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    refused = quest.artifact_record(quest.root, {"kind": "decision", **review_payload(run)})
    assert refused == {"ok": False, "errors": ["Unknown decision action: distill_review"], "warnings": []}
    assert evaluate(quest.root, "closure").pending_run_ids == [run]

    recorded = quest.artifact_record(
        quest.root,
        as_report(review_payload(run, cards_written=[], neighbor_decisions=None, reason_if_empty="a smoke run")),
    )
    assert recorded["ok"]
    path = quest.root / "artifacts" / "reports" / f"{recorded['artifact_id']}.json"
    on_disk = json.loads(path.read_text())
    assert on_disk["report_type"] == "distill_review" and on_disk["reviewed_run_ids"] == [run]
    index = [json.loads(line) for line in (quest.root / "artifacts" / "_index.jsonl").read_text().splitlines()]
    assert {"artifact_id": recorded["artifact_id"], "kind": "report"}.items() <= index[-1].items()

    report = evaluate(quest.root, "closure")
    assert report.ok and report.pending == []
    assert [(r.artifact_id, r.valid, r.reviewed_run_ids) for r in report.reviews] == [
        (recorded["artifact_id"], True, (run,))
    ]


@pytest.mark.parametrize("case", [c for c in INVALID if not set(INVALID[c][0]) & set(REVIEW_ONLY)])
def test_an_invalid_report_review_gives_the_same_rule_and_place_and_names_its_encoding(make_quest, case) -> None:
    changes, rule, pointer = INVALID[case]
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    record = quest.record(quest.root, "report", as_report(review_payload(run, **fill(changes, run))))
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == [run] and [r.valid for r in report.reviews] == [False]
    [finding] = [f for f in report.findings if f.rule == rule and f.pointer == pointer]
    assert finding.path == f"artifacts/reports/{record['artifact_id']}.json" and finding.line and finding.hint
    assert "report_type: distill_review" in finding.message


def test_a_report_needs_no_verdict_action_or_reason_and_other_reports_are_left_alone(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.record(quest.root, "report", {"report_type": "summary_refresh"})  # main's own reports: not reviews
    quest.record(quest.root, "report", {"report_type": "git_operation", "reviewed_run_ids": "not a list"})
    assert evaluate(quest.root, "check").findings == []
    quest.record(
        quest.root,
        "report",
        as_report(review_payload(run, cards_written=[], reason_if_empty="noise only", neighbor_decisions=None)),
    )
    report = evaluate(quest.root, "closure")
    assert report.ok and report.findings == [] and len(report.reviews) == 1


def test_both_encodings_live_in_one_quest_and_cover_their_runs(make_quest, home) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    first, second, third = (quest.run(wt, f"main-00{i}") for i in (1, 2, 3))
    quest.review(wt, [first])
    quest.review(wt, [second], encoding="report")
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == [third] and all(r.valid for r in report.reviews) and len(report.reviews) == 2
    quest.review(quest.root, [third], encoding="report", cards=[], reason_if_empty="a smoke run")
    assert evaluate(quest.root, "closure").ok


def test_validate_and_the_commit_hook_check_a_staged_report_review(make_quest, gate_json, tmp_path) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    good = tmp_path / "report-good.json"
    good.write_text(json.dumps(as_report(review_payload(run))))
    bad = tmp_path / "report-bad.json"
    bad.write_text(
        json.dumps(
            as_report(
                review_payload(
                    run, cards_written=[{"card_id": "k", "scope": "team", "action": "new", "target_run_id": run}]
                )
            )
        )
    )
    code, out = gate_json("validate", str(good), str(bad))
    assert code == 1 and {(f["path"], f["rule"]) for f in out["findings"]} >= {(str(bad), "review.schema")}
    assert all(f["path"] != str(good) or f["severity"] != "error" for f in out["findings"])

    assert main(["install", str(quest.root)]) == 0
    quest.record(quest.root, "report", as_report(review_payload(run, reviewed_run_ids=[])))
    # issue 25: main stores any report, so a review of no run is ds-gate's discipline there, not main's
    # contract: the checkpoint commits with the finding as a warning (PR #60's validator is no part of main)
    said = quest.checkpoint(quest.root, "artifact: report")
    assert git(quest.root, "log", "-1", "--format=%s").stdout.strip() == "artifact: report", said


def test_the_draft_payload_is_what_main_accepts_and_what_the_gate_reads(make_quest) -> None:
    """The payload the closure's next line and the MCP server hand out, completed as the skill
    says, recorded through main's validator: it covers the run."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    payload = draft_payload([run])
    payload["reason_if_empty"] = "a smoke run, nothing to learn"
    recorded = quest.artifact_record(quest.root, payload)
    assert recorded["ok"], recorded
    assert evaluate(quest.root, "closure").ok

    rfc = draft_payload([run], "decision")
    assert rfc["kind"] == "decision" and rfc["action"] == "distill_review"
    assert quest.artifact_record(quest.root, {**rfc, "reason": "r"})["errors"] == [
        "Unknown decision action: distill_review"
    ]


@pytest.mark.slow
def test_a_finalization_commit_passes_once_a_report_review_covers_the_runs(make_quest) -> None:
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "run")
    assert main(["install", str(quest.root)]) == 0
    paper = quest.worktree("paper", "paper/main-001", "idea/001-a")
    (paper / "paper").mkdir()
    (paper / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    with pytest.raises(CheckpointRejected) as rejected:
        quest.checkpoint(paper, "paper: bundle")
    first = rejected.value.output.strip().splitlines()[0]
    assert first.startswith("ds-gate commit-check: REJECTED - 1 of 1 completed run pending"), first
    assert f"'{run}',  # main-001" in rejected.value.output and "over this run," in rejected.value.output
    assert "'report_type': 'distill_review'" in rejected.value.output and "no-verify" not in rejected.value.output
    quest.review(paper, [run], encoding="report")
    quest.checkpoint(paper, "paper: bundle")
    assert git(paper, "log", "-1", "--format=%s").stdout.strip() == "paper: bundle"


def test_the_call_follows_what_the_quests_deepscientist_accepts(make_quest, capsys) -> None:
    quest = make_quest()
    quest.run(quest.root, "main-001")
    assert main(["closure", str(quest.root)]) == 1
    assert "artifact.record(payload={'kind': 'report', 'report_type': 'distill_review'," in capsys.readouterr().out
    (Path(quest.root) / ".ds-gate.yaml").write_text("decision_actions: [distill_review]\n")
    assert main(["closure", str(quest.root)]) == 1
    assert "'kind': 'decision', 'action': 'distill_review'" in capsys.readouterr().out
