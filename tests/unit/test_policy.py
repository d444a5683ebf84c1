"""The hook's policy table for each review encoding (issue 25.1).

A rule's level says what DeepScientist does with a record of the kind it was written for.
The RFC's encoding (a decision) is refused by PR #60's validator when a contract rule fires:
on a checkpoint such an error blocks. Main's encoding (a report) is recorded whatever it
holds: every finding about it is discipline, a warning on a checkpoint, and still an error
where the quest is judged as a whole.
"""

from __future__ import annotations

from typing import Any

import pytest

from ds_gate.model.findings import CONTRACT, DISCIPLINE, ERROR, WARNING
from ds_gate.model.records import Decision, review_fields
from ds_gate.rules.coverage import RunIndex, coverage
from ds_gate.rules.policy import CHECKPOINT, FINALIZATION, apply_policy, level_of
from ds_gate.rules.records import check_record

from rulecases import RUN_ID, document, quest, review_data, run

# (what is wrong, the review's fields) -> a contract rule of PR #60's validator fires on the decision
CONTRACT_CASES: dict[str, dict[str, Any]] = {
    "no reviewed run": {"reviewed_run_ids": [], "cards_written": [], "reason_if_empty": "x"},
    "an empty reason and no cards": {"cards_written": [], "reason_if_empty": ""},
    "a card in no scope": {
        "cards_written": [{"card_id": "k", "scope": "team", "action": "new", "target_run_id": RUN_ID}]
    },
    "a card for a run not reviewed": {
        "cards_written": [{"card_id": "k", "scope": "global", "action": "new", "target_run_id": "run-00000000"}]
    },
}


def as_report(data: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in data.items() if k not in ("action", "verdict", "reason")}
    return {**body, "kind": "report", "report_type": "distill_review"}


@pytest.mark.parametrize("case", list(CONTRACT_CASES), ids=list(CONTRACT_CASES))
def test_a_contract_error_blocks_the_decision_and_only_warns_for_the_report(case: str) -> None:
    decision = review_data(**CONTRACT_CASES[case])
    found = check_record(document(decision))
    assert any(f.severity == ERROR and level_of(f) == CONTRACT for f in found)
    kept, _ = apply_policy(found, CHECKPOINT)
    assert any(f.severity == ERROR for f in kept)  # PR #60 would refuse it: the checkpoint is blocked

    reported = check_record(document(as_report(decision), display="artifacts/reports/x.json"))
    assert [f.rule for f in reported] == [f.rule for f in found]  # the same rules, the same ids
    assert {level_of(f) for f in reported} == {DISCIPLINE}
    kept, demoted = apply_policy(reported, CHECKPOINT)
    assert demoted == len(reported) and {f.severity for f in kept} == {WARNING}
    kept, demoted = apply_policy(reported, FINALIZATION)  # a finalization still fails on it
    assert demoted == 0 and [f.severity for f in kept] == [f.severity for f in reported]


def test_an_unknown_reviewed_id_is_contract_for_a_decision_and_discipline_for_a_report() -> None:
    index = RunIndex(quest([run()]))
    [decision] = index.unknown(("main-001",), "d.json", None)
    [report] = index.unknown(("main-001",), "r.json", None, "report")
    assert decision.rule == report.rule == "review.unknown-run"
    assert (level_of(decision), level_of(report)) == (CONTRACT, DISCIPLINE)
    assert "report_type: distill_review" in report.message and "report_type" not in decision.message


def _report_review(artifact_id: str, **changes: Any) -> Decision:
    data = {**as_report(review_data(**changes)), "artifact_id": artifact_id}
    doc = document(data, display=f"artifacts/reports/{artifact_id}.json")
    fields = review_fields(data, "report")
    return Decision(
        artifact_id,
        None,
        ".",
        doc.display,
        None,
        None,
        True,
        check_record(doc),
        fields.reviewed_run_ids,
        doc.raw,
        fields.cards_written,
        fields.neighbor_decisions,
        "report",
    )


def test_an_invalid_review_is_superseded_once_valid_reviews_cover_every_run_it_means() -> None:
    wrong = _report_review("report-1", reviewed_run_ids=["main-001"], cards_written=[], reason_if_empty="x")
    alone = coverage(quest([run()], [wrong]))
    assert alone.superseded == {} and [f.severity for f in alone.findings] == [ERROR]
    assert "'artifact_id': 'report-1'" in (alone.findings[0].hint or "")
    assert f"'reviewed_run_ids': ['{RUN_ID}']" in (alone.findings[0].hint or "")  # the run it means

    right = _report_review("report-2", cards_written=[], reason_if_empty="x")
    both = coverage(quest([run()], [wrong, right]))
    assert both.pending == [] and both.superseded == {"report-1": ["report-2"]}
    assert [f.severity for f in both.findings] == [WARNING] and "superseded (report-2 covers" in both.findings[
        0
    ].message


def test_a_review_meaning_no_run_is_superseded_only_when_nothing_is_pending() -> None:
    empty = _report_review("report-1", reviewed_run_ids=[], cards_written=[], reason_if_empty="x")
    assert coverage(quest([run()], [empty])).superseded == {}
    other = run("run-22222222", "main-002")
    covering = _report_review(
        "report-2", reviewed_run_ids=[RUN_ID, "run-22222222"], cards_written=[], reason_if_empty="x"
    )
    cov = coverage(quest([run(), other], [empty, covering]))
    assert cov.superseded == {"report-1": ["report-2"]} and all(f.severity != ERROR for f in cov.findings)
