"""What blocks which commit: one table over rule levels, not conditions spread through the hook.

DeepScientist checkpoints with ``git add -A`` and moves on when the commit fails, so a blocked
ordinary checkpoint stays blocked at every later checkpoint of that worktree. So only *contract*
rules (what DeepScientist itself would refuse) block one; *discipline* rules are warnings there
and fail everything that judges the quest as a whole. What any rule finds in a review recorded
as a report is discipline (``as_accepted``), since main records any report: docs/agent.md.
The rules that judge a review's neighbour decisions as closure reads them (``rules.neighbours``)
are errors only where the gate closes; ``check`` shows them as warnings (``at_closure``).
"""

from __future__ import annotations

import dataclasses

from ds_gate.kernel.counting import counted
from ds_gate.model.findings import (
    CONTRACT,
    DISCIPLINE,
    ERROR,
    WARNING,
    Finding,
    rule_named,
    then_hint,
)

BLOCK, WARN = "block", "warn"
CHECKPOINT, FINALIZATION = "ordinary checkpoint", "finalization commit"

# (kind of commit, rule level) -> what an error of that level does to the commit
POLICY = {
    (CHECKPOINT, CONTRACT): BLOCK,
    (CHECKPOINT, DISCIPLINE): WARN,
    (FINALIZATION, CONTRACT): BLOCK,
    (FINALIZATION, DISCIPLINE): BLOCK,
}


def at_closure(findings: list[Finding], closing: bool) -> list[Finding]:
    """Findings of a rule judged at closure (closure, a finalization commit, pre-push, the
    integration's closure refusals, ``validate_distill_review``): errors there, warnings in ``check``,
    which judges records and cards as they stand. An ordinary checkpoint never evaluates them."""
    if closing:
        return findings
    return [
        dataclasses.replace(f, severity=WARNING, hint=then_hint(f.hint, "closure and finalization fail on it"))
        if f.severity == ERROR
        else f
        for f in findings
    ]


def as_accepted(finding: Finding) -> Finding:
    """``finding``, made by a rule reading a review recorded as a report, at the level it has
    there: discipline. It matters for the contract rules ``review.schema``,
    ``review.target-not-reviewed`` and ``review.unknown-run`` (PR #60's validator, which main
    does not run on a report)."""
    return dataclasses.replace(finding, level=DISCIPLINE)


def level_of(finding: Finding) -> str:
    """A finding's level: its own where the record's encoding sets one, else its rule's; a rule
    nobody declared (a plugin's loose id) counts as discipline."""
    if finding.level is not None:
        return finding.level
    rule = rule_named(finding.rule)
    return rule.level if rule is not None else DISCIPLINE


def apply_policy(findings: list[Finding], commit: str) -> tuple[list[Finding], int]:
    """The findings as the commit treats them, and how many errors became warnings."""
    out, demoted = [], 0
    for finding in findings:
        if finding.severity == ERROR and POLICY[(commit, level_of(finding))] == WARN:
            hint = finding.hint
            if finding.level is not None:  # a review main recorded: the agent reads this in checkpoint.stderr
                hint = then_hint(hint, RERECORD)
            finding = dataclasses.replace(finding, severity=WARNING, hint=hint)
            demoted += 1
        out.append(finding)
    return out, demoted


RERECORD = (
    "until it is fixed the review covers no run: record it again under its artifact_id with "
    "'suppress_if_semantically_equivalent': False (check_closure, or ds-gate closure, names the call)"
)


def demoted_note(count: int) -> str:
    return (
        f"{counted(count, 'finding')} of ds-gate's stricter (discipline) rules {'is a warning' if count == 1 else 'are warnings'} on an ordinary checkpoint, "
        "which DeepScientist accepts; check, closure and finalization commits fail on them"
    )
