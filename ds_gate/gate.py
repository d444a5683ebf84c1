"""The gate's verdicts: one ``evaluate`` that the CLI, the hooks and the API all call.

Commands differ only in what fails them:
- ``check``: invalid artifacts fail; pending runs are counted, not failed (a run is
  pending from the moment it is recorded until someone distils it);
- ``closure``: also fails while any completed run is pending, when the quest turned
  ``experience_distill`` on (or ``require``);
- ``candidates``: never fails; it lists what a distill review still has to cover.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ds_gate.checks.coverage import coverage, pending_finding
from ds_gate.loader import load_quest
from ds_gate.model import ERROR, INFO, Finding, Quest, Report

COMMANDS = ("check", "closure", "candidates")


def evaluate(
    quest: Quest | Path | str,
    command: str = "check",
    *,
    require: bool = False,
    home: Path | str | None = None,
    source: str = "folders",
    refs: Sequence[str] | None = None,
) -> Report:
    """``home``: the DeepScientist home for global cards and other quests' runs (default:
    ``$DEEPSCIENTIST_HOME``, ``$DS_HOME``, ``~/DeepScientist``). ``source``/``refs``: where
    artifacts are read when ``quest`` is a path (see ``load_quest``)."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}; expected one of {COMMANDS}")
    from ds_gate.context import CheckContext
    from ds_gate.plugins import completed_rule, hooks

    if not isinstance(quest, Quest):
        quest = load_quest(quest, source=source, refs=refs)
    cov = coverage(quest, completed_rule())
    findings = list(quest.findings)
    for decision in quest.decisions.values():
        findings.extend(decision.findings)
    findings.extend(cov.findings)
    context = CheckContext(quest, cov.reviews, home)
    if command != "candidates":  # candidates lists runs; cards and extra rules are check's and closure's
        for extra in hooks().ds_gate_check_quest(quest=quest, context=context):
            findings.extend(extra or [])

    enforced = quest.experience_distill or require
    notes: list[str] = []
    if command == "closure":
        severity = ERROR if enforced else INFO
        findings.extend(pending_finding(run, cov.listed_by_invalid.get(run.artifact_id, []), severity) for run in cov.pending)
        if not enforced:
            notes.append(
                "experience_distill is off for this quest, so the closure gate is not enforced "
                "(turn it on in quest.yaml startup_contract, or pass --require)"
            )
    from ds_gate.waivers import waive

    findings = waive(findings, quest.root)
    findings.sort(key=Finding.sort_key)

    never_fails = command == "candidates" or (command == "closure" and not enforced)
    ok = never_fails or not any(f.fails for f in findings)
    pending_ids = {run.artifact_id for run in cov.pending}
    return Report(
        command=command,
        ok=ok,
        findings=findings,
        quest=quest,
        enforced=enforced,
        completed_runs=sorted(cov.completed, key=lambda r: r.artifact_id),
        pending=sorted(cov.pending, key=lambda r: r.artifact_id),
        reviews=sorted(cov.reviews, key=lambda r: r.artifact_id),
        listed_by_invalid={rid: reviews for rid, reviews in cov.listed_by_invalid.items() if rid in pending_ids},
        notes=notes,
        home=context.home_path,
        cards=context.cards,
    )


def list_distill_candidates(path: Path | str) -> Report:
    """The RFC's ``artifact.list_distill_candidates()``: completed runs no review covers yet."""
    return evaluate(path, "candidates")
