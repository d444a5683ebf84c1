"""Waivers (``.ds-gate.yaml``): a waived finding is marked, never dropped; a waiver without a
reason waives nothing; an expired one fails; one that matches nothing is a warning; one the
quest wrote is a proposal until a trusted setting accepts it; a fail-closed rule is never waived."""

from __future__ import annotations

from datetime import date

import pytest

from ds_gate.config.waiver_file import parse_waivers
from ds_gate.config.waivers import apply_waivers
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN
from ds_gate.sources.problems import GIT_SYMLINK_IN_TREE

from rulecases import fired

FAILS = {"waiver.invalid", "waiver.expired", "waiver.unused", "waiver.proposed", "waiver.unwaivable"}
PASSES = set(FAILS)
PENDING = COVERAGE_PENDING_RUN.at("artifacts/runs/run-1.json", "pending", subject="run-1")
TODAY = date(2026, 11, 23)
ACCEPTED = "--accept-quest-waivers"


def accepted(text: str) -> list:
    return parse_waivers(text, accepted_by=ACCEPTED)[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n", []),
        ("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: ''\n", ["waiver.invalid"]),
        ("waivers:\n  - rule: coverage.pending-run\n    reason: no target\n", ["waiver.invalid"]),
        ("waiver:\n  - rule: coverage.pending-run\n", ["waiver.invalid"]),
        ("waivers: [unclosed\n", ["waiver.invalid"]),
    ],
    ids=["valid", "an empty reason", "no id or path", "a misspelt key", "not YAML"],
)
def test_a_waiver_needs_a_rule_a_target_and_a_reason(text: str, expected: list[str]) -> None:
    waivers, problems = parse_waivers(text)
    assert fired(problems) == expected
    assert len(waivers) == (0 if expected else 1)


def test_a_waived_finding_is_kept_and_stops_failing() -> None:
    waivers = accepted("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n")
    [finding] = apply_waivers([PENDING], waivers, TODAY)
    assert finding.rule == "coverage.pending-run" and not finding.fails and "a smoke run" in (finding.waived or "")


def test_an_expired_waiver_waives_nothing_and_fails() -> None:
    waivers = accepted(
        "waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: r\n    expires: 2026-11-22\n"
    )
    out = apply_waivers([PENDING], waivers, TODAY)
    assert fired(out) == ["coverage.pending-run", "waiver.expired"] and all(f.fails for f in out)
    assert fired(apply_waivers([PENDING], waivers, date(2026, 11, 22))) == ["coverage.pending-run"]  # its last day


def test_a_waiver_that_matches_nothing_is_a_warning_and_only_when_audited() -> None:
    waivers, _ = parse_waivers("waivers:\n  - rule: run.schema\n    id: run-1\n    reason: stale\n")
    assert fired(apply_waivers([PENDING], waivers, TODAY)) == ["coverage.pending-run", "waiver.unused"]
    assert fired(apply_waivers([PENDING], waivers, TODAY, audit=False)) == ["coverage.pending-run"]


def test_a_renewed_waiver_holds_though_an_expired_one_for_the_same_finding_comes_first() -> None:
    waivers = accepted(
        "waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: old\n"
        "    expires: 2026-11-01\n  - rule: coverage.pending-run\n    id: run-1\n    reason: renewed\n"
        "    expires: 2026-12-31\n"
    )
    out = apply_waivers([PENDING], waivers, TODAY)
    assert [(f.rule, f.fails) for f in out] == [("coverage.pending-run", False), ("waiver.expired", True)]
    assert "renewed" in (out[0].waived or "")


def test_an_impossible_expiry_date_is_an_invalid_waiver_not_a_crash() -> None:
    waivers, problems = parse_waivers(
        "waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: r\n    expires: '2026-02-30'\n"
    )
    assert waivers == [] and fired(problems) == ["waiver.invalid"] and "no date" in problems[0].message


SMOKE = "waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n    expires: 2026-12-31\n"


def test_a_quest_waiver_nobody_accepted_is_a_proposal_that_waives_nothing() -> None:
    waivers, _ = parse_waivers(SMOKE)
    out = apply_waivers([PENDING], waivers, TODAY, accept_hint="accept it: ds-gate closure --accept-quest-waivers Q")
    assert fired(out) == ["coverage.pending-run", "waiver.proposed"] and out[0].fails and out[0].waived is None
    proposal = out[1]
    assert not proposal.fails and "'a smoke run', until 2026-12-31" in proposal.message
    assert proposal.hint == "accept it: ds-gate closure --accept-quest-waivers Q" and proposal.pointer == "/waivers/0"
    [waived] = apply_waivers([PENDING], accepted(SMOKE), TODAY)  # accepted: it waives, and says by what
    assert not waived.fails and "written in the quest, accepted by --accept-quest-waivers" in (waived.waived or "")


def test_a_rule_that_fails_closed_is_never_waived_even_when_accepted() -> None:
    linked = GIT_SYMLINK_IN_TREE.at("refs/heads/main:artifacts/runs", "a link")
    waivers = accepted("waivers:\n  - rule: git.symlink-in-tree\n    path: artifacts/runs\n    reason: moved\n")
    out = apply_waivers([linked], waivers, TODAY)
    assert fired(out) == ["git.symlink-in-tree", "waiver.unwaivable"] and out[0].fails and not out[1].fails
    assert fired(apply_waivers([PENDING], accepted(SMOKE), TODAY)) == ["coverage.pending-run"]  # a waivable rule
