"""distill_review validation: invalid reviews cover nothing, and every finding is placed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ds_gate import evaluate
from ds_gate.cli.main import main


def review_payload(run: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "action": "distill_review",
        "verdict": "covered",
        "reason": "one run distilled into one global card",
        "reviewed_run_ids": [run],
        "cards_written": [{"card_id": "knowledge-14ff84d4", "scope": "global", "action": "new", "target_run_id": run}],
        "neighbor_decisions": [
            {
                "candidate_card_id": "knowledge-0000aaaa",
                "decision": "neighbor_but_separate",
                "target_run_id": run,
                "reason": "different mechanism",
            }
        ],
    }
    for key, value in changes.items():
        if value is None:
            payload.pop(key, None)
        else:
            payload[key] = value
    return payload


INVALID = {
    "reviewed_run_ids empty": ({"reviewed_run_ids": []}, "review.schema", "/reviewed_run_ids"),
    "reviewed_run_ids not a list": ({"reviewed_run_ids": "RUN"}, "review.schema", "/reviewed_run_ids"),
    "no verdict": ({"verdict": None}, "review.schema", "/verdict"),
    "blank reason": ({"reason": "   "}, "review.schema", "/reason"),
    "no cards_written": ({"cards_written": None}, "review.schema", "/cards_written"),
    "empty cards without reason_if_empty": ({"cards_written": []}, "review.schema", "/reason_if_empty"),
    "card scope": (
        {"cards_written": [{"card_id": "k", "scope": "team", "action": "new", "target_run_id": "RUN"}]},
        "review.schema",
        "/cards_written/0/scope",
    ),
    "card action": (
        {"cards_written": [{"card_id": "k", "scope": "quest", "action": "rewrite", "target_run_id": "RUN"}]},
        "review.schema",
        "/cards_written/0/action",
    ),
    "card without id": (
        {"cards_written": [{"scope": "quest", "action": "new", "target_run_id": "RUN"}]},
        "review.card-id-missing",
        "/cards_written/0/card_id",
    ),
    "card target not reviewed": (
        {"cards_written": [{"card_id": "k", "scope": "global", "action": "new", "target_run_id": "run-ffffffff"}]},
        "review.target-not-reviewed",
        "/cards_written/0/target_run_id",
    ),
    "neighbour decision value": (
        {
            "neighbor_decisions": [
                {"candidate_card_id": "k", "decision": "merge", "target_run_id": "RUN", "reason": "r"}
            ]
        },
        "review.schema",
        "/neighbor_decisions/0/decision",
    ),
    "neighbour target not reviewed": (
        {
            "neighbor_decisions": [
                {"candidate_card_id": "k", "decision": "new", "target_run_id": "run-eeeeeeee", "reason": "r"}
            ]
        },
        "review.target-not-reviewed",
        "/neighbor_decisions/0/target_run_id",
    ),
    "unknown run": ({"reviewed_run_ids": ["RUN", "run-12345678"]}, "review.unknown-run", "/reviewed_run_ids/1"),
}


def fill(value: Any, run: str) -> Any:
    return json.loads(json.dumps(value).replace('"RUN"', json.dumps(run)))


@pytest.mark.parametrize("case", list(INVALID), ids=list(INVALID))
def test_an_invalid_review_covers_nothing_and_says_why(make_quest, case) -> None:
    changes, rule, pointer = INVALID[case]
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(wt, "main-001")
    payload = review_payload(run, **fill(changes, run))
    review = quest.record(wt, "decision", payload)

    report = evaluate(quest.root, "closure")

    assert report.pending_run_ids == [run]
    assert [r.valid for r in report.reviews] == [False]
    matching = [f for f in report.findings if f.rule == rule and f.pointer == pointer]
    assert matching, [(f.rule, f.pointer) for f in report.findings]
    finding = matching[0]
    assert finding.path == f".ds/worktrees/idea-a/artifacts/decisions/{review['artifact_id']}.json"
    assert finding.line is not None and finding.hint
    names_the_run = isinstance(payload["reviewed_run_ids"], list) and run in payload["reviewed_run_ids"]
    assert report.listed_by_invalid == ({run: [review["artifact_id"]]} if names_the_run else {})
    # `check` fails on the invalid review too, but not because runs are pending
    assert main(["check", str(quest.root)]) == 1


def test_a_valid_review_with_no_cards_needs_a_reason(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.record(
        quest.root,
        "decision",
        review_payload(run, cards_written=[], neighbor_decisions=None, reason_if_empty="only noise"),
    )
    report = evaluate(quest.root, "closure")
    assert report.ok and report.pending == [] and [r.valid for r in report.reviews] == [True]


def test_reviewing_an_experiment_run_id_asks_did_you_mean_with_the_artifact_id(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    review = quest.record(quest.root, "decision", review_payload("main-001"))
    text = (quest.root / "artifacts" / "decisions" / f"{review['artifact_id']}.json").read_text().splitlines()

    report = evaluate(quest.root, "closure")

    (finding,) = [f for f in report.findings if f.rule == "review.unknown-run"]
    assert finding.pointer == "/reviewed_run_ids/0"
    assert f"did you mean {run}?" in finding.hint
    assert "experiment run_id" in finding.message
    assert '"main-001"' in text[finding.line - 1]  # the line really holds the bad id
    assert report.pending_run_ids == [run]


def test_a_near_miss_artifact_id_gets_a_did_you_mean_too(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    typo = run[:-1] + ("0" if run[-1] != "0" else "1")
    quest.record(
        quest.root,
        "decision",
        review_payload(run, reviewed_run_ids=[typo], cards_written=[], reason_if_empty="x", neighbor_decisions=None),
    )
    (finding,) = [f for f in evaluate(quest.root, "check").findings if f.rule == "review.unknown-run"]
    assert (finding.hint or "").startswith(f"did you mean {run}? Then record its runs' review as")
    assert f"'reviewed_run_ids': [{run!r}]" in (finding.hint or "")  # the call names the run meant


@pytest.mark.parametrize("action", ["Distill_Review", "distill_review ", "distill-review", "distil_review"])
def test_a_misspelled_review_action_is_refused_with_a_did_you_mean_and_covers_nothing(make_quest, action) -> None:
    """DeepScientist's artifact.record refuses an action it does not know (issue 13)."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.record(quest.root, "decision", review_payload(run, action=action))
    report = evaluate(quest.root, "closure")
    assert report.pending_run_ids == [run] and report.reviews == []
    [finding] = [f for f in report.findings if f.rule == "decision.unknown-action"]
    assert (
        finding.severity == "error" and finding.pointer == "/action" and finding.hint == "did you mean distill_review?"
    )


def test_every_error_of_a_review_is_reported_not_just_the_first(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    bad = review_payload(run, verdict="", reason=None, cards_written=[{"scope": "team"}], neighbor_decisions=[{}])
    quest.record(quest.root, "decision", bad)
    findings = [
        f for f in evaluate(quest.root, "check").findings if f.rule in ("review.schema", "review.card-id-missing")
    ]
    pointers = {f.pointer for f in findings}
    assert {
        "/verdict",
        "/reason",
        "/cards_written/0/scope",
        "/cards_written/0/card_id",
        "/cards_written/0/action",
        "/cards_written/0/target_run_id",
        "/neighbor_decisions/0/decision",
        "/neighbor_decisions/0/reason",
    } <= pointers


def test_other_decisions_get_the_base_decision_schema(make_quest) -> None:
    """What DeepScientist refuses is said in its words; what it writes but the schema does not
    allow (a list for a reason) is the base decision schema's, a discipline error (issue 35)."""
    quest = make_quest()
    quest.record(quest.root, "decision", {"action": "launch_experiment", "verdict": "good"})
    report = evaluate(quest.root, "check")
    (finding,) = report.errors
    assert (finding.rule, finding.pointer, finding.message) == (
        "artifact.refused-by-main",
        "/reason",
        "DeepScientist refuses this decision record: Decision artifact requires `reason`.",
    )
    assert not report.ok
    quest = make_quest("002")
    quest.record(quest.root, "decision", {"action": "launch_experiment", "verdict": "good", "reason": ["faster"]})
    report = evaluate(quest.root, "check")
    (finding,) = report.errors
    assert (finding.rule, finding.pointer, finding.message) == (
        "decision.schema",
        "/reason",
        "`reason` must be a string, not array",
    )
    assert not report.ok


def test_a_forks_action_is_accepted_once_the_quest_names_it(make_quest) -> None:
    """med-deepscientist adds actions; a quest on such a fork lists them in .ds-gate.yaml."""
    quest = make_quest()
    quest.decision(quest.root, "controller_backoff_pending")
    [finding] = evaluate(quest.root, "check").errors
    assert finding.rule == "decision.unknown-action" and "decision_actions" in (finding.hint or "")
    (quest.root / ".ds-gate.yaml").write_text("decision_actions: [controller_backoff_pending]\n")
    assert evaluate(quest.root, "check").errors == []


@pytest.mark.parametrize(("kind", "guess"), [("decisions", "decision"), ("Decision", "decision"), ("runn", "run")])
def test_an_unknown_kind_is_refused_with_a_did_you_mean(make_quest, kind, guess) -> None:
    quest = make_quest()
    quest.record(quest.root, "decision", {"kind": kind, "action": "continue", "verdict": "good", "reason": "r"})
    [finding] = evaluate(quest.root, "check").errors
    assert finding.rule == "artifact.unknown-kind" and finding.hint == f"did you mean {guess}?"
    assert finding.pointer == "/kind" and finding.line == 2


def test_a_run_record_without_run_kind_is_invalid(make_quest) -> None:
    quest = make_quest()
    quest.record(quest.root, "run", {"run_id": "main-001", "status": "completed"})
    (finding,) = evaluate(quest.root, "check").errors
    assert (finding.rule, finding.pointer) == ("artifact.refused-by-main", "/run_kind")  # main refuses it
    blank = make_quest("002")
    blank.record(blank.root, "run", {"run_id": "main-001", "run_kind": " ", "status": "completed"})  # main writes it
    (finding,) = evaluate(blank.root, "check").errors
    assert (finding.rule, finding.pointer) == ("run.schema", "/run_kind")


def test_a_truncated_record_is_an_error_with_its_line(make_quest) -> None:
    quest = make_quest()
    decisions = quest.root / "artifacts" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "decision-0000ffff.json").write_text('{\n  "kind": "decision",\n  "action": "distill_re')
    report = evaluate(quest.root, "check")
    (finding,) = report.errors
    assert finding.rule == "artifact.invalid-json" and finding.line == 3 and not report.ok


def test_check_passes_with_pending_runs_but_closure_does_not(make_quest, capsys) -> None:
    quest = make_quest()
    quest.run(quest.root, "main-001")
    assert main(["check", str(quest.root)]) == 0
    assert "1 of 1 completed run pending distill review" in capsys.readouterr().out
    assert main(["closure", str(quest.root)]) == 1


def test_null_neighbor_decisions_count_as_none(make_quest) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    payload = review_payload(run, cards_written=[], reason_if_empty="nothing reusable")
    payload["neighbor_decisions"] = None  # review_payload drops a None; DeepScientist writes it as null
    quest.record(quest.root, "decision", payload)
    report = evaluate(quest.root, "closure")
    assert report.ok and report.pending_run_ids == [] and [r.valid for r in report.reviews] == [True]


def test_a_numeric_reason_if_empty_is_a_warning_not_an_error(make_quest) -> None:
    """DeepScientist reads str(3) == '3': it accepts the review; ds-gate asks for words."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.record(
        quest.root, "decision", review_payload(run, cards_written=[], neighbor_decisions=[], reason_if_empty=3)
    )
    report = evaluate(quest.root, "closure")
    assert report.ok and report.pending_run_ids == []
    assert [(f.rule, f.severity, f.pointer) for f in report.findings] == [
        ("review.reason-not-text", "warning", "/reason_if_empty")
    ]


def test_a_review_citing_a_run_whose_record_was_deleted_still_covers_its_runs(make_quest) -> None:
    """The index line proves the run existed: the record's loss is reported, the review stays valid."""
    quest = make_quest()
    kept, lost = quest.run(quest.root, "main-001"), quest.run(quest.root, "main-002")
    quest.record(
        quest.root,
        "decision",
        review_payload(
            kept,
            reviewed_run_ids=[kept, lost],
            cards_written=[],
            neighbor_decisions=[],
            reason_if_empty="nothing reusable",
        ),
    )
    (quest.root / "artifacts" / "runs" / f"{lost}.json").unlink()
    report = evaluate(quest.root, "closure")
    assert report.ok and report.pending_run_ids == [] and [r.valid for r in report.reviews] == [True]
    assert [f.rule for f in report.findings] == ["index.missing-record"] and lost in report.findings[0].message
