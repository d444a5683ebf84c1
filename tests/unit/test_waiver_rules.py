"""Waivers (``.ds-gate.yaml``): a waived finding is marked, never dropped; a waiver without a
reason waives nothing; an expired one fails; one that matches nothing is a warning."""

from __future__ import annotations

from datetime import date

import pytest
from rulecases import fired

from ds_gate.rules.coverage import COVERAGE_PENDING_RUN
from ds_gate.waivers import apply_waivers, parse_waivers

FAILS = {"waiver.invalid", "waiver.expired", "waiver.unused"}
PASSES = set(FAILS)
PENDING = COVERAGE_PENDING_RUN.at("artifacts/runs/run-1.json", "pending", subject="run-1")
TODAY = date(2026, 11, 23)


@pytest.mark.parametrize(("text", "expected"), [
    ("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n", []),
    ("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: ''\n", ["waiver.invalid"]),
    ("waivers:\n  - rule: coverage.pending-run\n    reason: no target\n", ["waiver.invalid"]),
    ("waiver:\n  - rule: coverage.pending-run\n", ["waiver.invalid"]),
    ("waivers: [unclosed\n", ["waiver.invalid"]),
], ids=["valid", "an empty reason", "no id or path", "a misspelt key", "not YAML"])
def test_a_waiver_needs_a_rule_a_target_and_a_reason(text: str, expected: list[str]) -> None:
    waivers, problems = parse_waivers(text)
    assert fired(problems) == expected
    assert len(waivers) == (0 if expected else 1)


def test_a_waived_finding_is_kept_and_stops_failing() -> None:
    waivers, _ = parse_waivers("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: a smoke run\n")
    [finding] = apply_waivers([PENDING], waivers, TODAY)
    assert finding.rule == "coverage.pending-run" and not finding.fails and "a smoke run" in (finding.waived or "")


def test_an_expired_waiver_waives_nothing_and_fails() -> None:
    waivers, _ = parse_waivers("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: r\n"
                               "    expires: 2026-11-22\n")
    out = apply_waivers([PENDING], waivers, TODAY)
    assert fired(out) == ["coverage.pending-run", "waiver.expired"] and all(f.fails for f in out)
    assert fired(apply_waivers([PENDING], waivers, date(2026, 11, 22))) == ["coverage.pending-run"]  # its last day


def test_a_waiver_that_matches_nothing_is_a_warning_and_only_when_audited() -> None:
    waivers, _ = parse_waivers("waivers:\n  - rule: run.schema\n    id: run-1\n    reason: stale\n")
    assert fired(apply_waivers([PENDING], waivers, TODAY)) == ["coverage.pending-run", "waiver.unused"]
    assert fired(apply_waivers([PENDING], waivers, TODAY, audit=False)) == ["coverage.pending-run"]


def test_a_renewed_waiver_holds_though_an_expired_one_for_the_same_finding_comes_first() -> None:
    waivers, _ = parse_waivers("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: old\n"
                               "    expires: 2026-11-01\n  - rule: coverage.pending-run\n    id: run-1\n    reason: renewed\n"
                               "    expires: 2026-12-31\n")
    out = apply_waivers([PENDING], waivers, TODAY)
    assert [(f.rule, f.fails) for f in out] == [("coverage.pending-run", False), ("waiver.expired", True)]
    assert "renewed" in (out[0].waived or "")


def test_an_impossible_expiry_date_is_an_invalid_waiver_not_a_crash() -> None:
    waivers, problems = parse_waivers("waivers:\n  - rule: coverage.pending-run\n    id: run-1\n    reason: r\n"
                                      "    expires: '2026-02-30'\n")
    assert waivers == [] and fired(problems) == ["waiver.invalid"] and "no date" in problems[0].message
