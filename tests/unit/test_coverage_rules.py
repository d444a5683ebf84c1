"""Coverage across a quest (``rules.coverage``): which completed runs no valid review covers."""

from __future__ import annotations

from ds_gate.model.findings import ERROR, INFO
from ds_gate.rules.coverage import coverage, pending_finding
from ds_gate.rules.records import DECISION_SCHEMA

from rulecases import RUN_ID, decision, fired, quest, review_data, run

FAILS = {"coverage.pending-run", "review.unknown-run", "review.unindexed"}
PASSES = {"coverage.pending-run", "review.unknown-run", "review.unindexed"}


def test_a_reviewed_run_is_covered_and_nothing_fires() -> None:
    cov = coverage(quest([run()], [decision(review_data())]))
    assert cov.pending == [] and cov.findings == [] and [r.valid for r in cov.reviews] == [True]


def test_an_unreviewed_completed_run_is_pending() -> None:
    cov = coverage(quest([run(), run("run-2", "main-002", status="failed")]))
    assert [r.artifact_id for r in cov.pending] == [RUN_ID]  # the failed run is not completed
    finding = pending_finding(cov.pending[0], [])
    assert finding.rule == "coverage.pending-run" and finding.severity == ERROR and finding.subject == RUN_ID
    assert pending_finding(cov.pending[0], [], INFO).severity == INFO  # where the gate is off


def test_a_reviewed_experiment_run_id_is_an_unknown_run_with_a_did_you_mean() -> None:
    cov = coverage(quest([run()], [decision(review_data(reviewed_run_ids=["main-001"], cards_written=[]))]))
    assert fired(cov.findings) == ["review.unknown-run"]
    assert cov.findings[0].pointer == "/reviewed_run_ids/0" and RUN_ID in (cov.findings[0].hint or "")
    assert [r.artifact_id for r in cov.pending] == [RUN_ID]  # an invalid review covers nothing
    assert cov.listed_by_invalid == {"main-001": ["decision-1"]}  # the gate keeps only pending ids of it


def test_a_typo_gets_the_closest_run() -> None:
    cov = coverage(quest([run()], [decision(review_data(reviewed_run_ids=["run-51c9ad0"], cards_written=[]))]))
    assert fired(cov.findings) == ["review.unknown-run"]
    assert (cov.findings[0].hint or "").startswith(f"did you mean {RUN_ID}? Then record its runs' review as")


def test_a_review_that_breaks_a_contract_rule_covers_nothing() -> None:
    invalid = decision(review_data(), [DECISION_SCHEMA.at("x", "broken")])
    cov = coverage(quest([run()], [invalid]))
    assert [r.artifact_id for r in cov.pending] == [RUN_ID] and cov.listed_by_invalid == {RUN_ID: ["decision-1"]}
    assert "listed by the invalid review decision-1" in pending_finding(cov.pending[0], ["decision-1"]).message


def test_a_decision_review_no_index_line_names_covers_nothing() -> None:
    """PR #60 reaches reviews through the index only: an unindexed RFC review leaves its runs
    pending there, so here too (issue 24, root 2). A report review is main's, which globs files."""
    from dataclasses import replace

    from ds_gate.model.records import REPORT_ENCODING

    unindexed = replace(quest([run()], [decision(review_data())]), indexed_decision_ids=frozenset())
    cov = coverage(unindexed)
    assert fired(cov.findings) == ["review.unindexed"] and [r.artifact_id for r in cov.pending] == [RUN_ID]
    assert "artifact.record" in (cov.findings[0].hint or "")
    indexed = replace(unindexed, indexed_decision_ids=frozenset({"decision-1"}))
    assert coverage(indexed).pending == [] and coverage(indexed).findings == []
    report = replace(
        unindexed, decisions={k: replace(d, encoding=REPORT_ENCODING) for k, d in unindexed.decisions.items()}
    )
    assert "review.unindexed" not in fired(coverage(report).findings)
