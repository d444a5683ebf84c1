"""The one engine: every gate verdict over a quest comes from ``evaluate``.

The CLI, the commit hook, the pre-push hook, the pytest plugin and the API call it with a
``Scope`` and present the ``GateReport`` it returns without changing it. Scopes differ
only in what fails them:

- ``check``: invalid records and cards fail; pending runs are counted, not failed (a run
  is pending from the moment it is recorded until someone distils it);
- ``closure``, ``commit-check``, ``pre-push``: also fail while any completed run is
  pending, when the quest turned ``experience_distill`` on (or ``require``);
- ``candidates``: never fails; it lists what a distill review still has to cover.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ds_gate.engine import loader
from ds_gate.model.findings import ERROR, INFO, Finding
from ds_gate.model.records import Quest
from ds_gate.model.reports import SCOPES, GateReport, Scope
from ds_gate.rules.coverage import coverage, pending_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ds_gate.sources.location import Location

COMMANDS = ("check", "closure", "candidates")
OFF_NOTE = ("experience_distill is off for this quest, so the closure gate is not enforced "
            "(turn it on in quest.yaml startup_contract, or pass --require)")


def load_quest(path: Path | str | Location, *, cache: bool = True, **options: Any) -> Quest:
    """Read a quest with every record checked by the built-in rules and the plugins' (see
    ``engine.loader.load_quest`` for the options). ``cache``: keep and reuse what was read of
    each record file in the user's cache folder (never changes the result, only its speed)."""
    from ds_gate.plugins import keyed_record_checker

    return loader.load_quest(path, keyed_checker=keyed_record_checker, cache=cache, **options)


def evaluate(
    quest: Quest | Path | str | Location,
    command: str | Scope = "check",
    *,
    require: bool = False,
    home: Path | str | None = None,
    source: str = "auto",
    refs: Sequence[str] | None = None,
    finalization: Sequence[str] = (),
    staged_findings: Iterable[Finding] = (),
    cache: bool = True,
) -> GateReport:
    """``home``: the DeepScientist home for global cards and other quests' runs (default:
    ``$DEEPSCIENTIST_HOME``, ``$DS_HOME``, ``~/DeepScientist``). ``source``/``refs``: where
    records are read when ``quest`` is a path (see ``load_quest``). ``finalization``: why
    the commit or push being judged finalizes the quest. ``staged_findings``: what the
    commit hook found in staged cards (already waived); they join the report after the
    quest's own findings and fail it like them. ``cache``: reuse what earlier runs read of
    unchanged record files (the user's cache folder; the report is the same without it)."""
    scope = command if isinstance(command, Scope) else SCOPES.get(command) if command in COMMANDS else None
    if scope is None:
        raise ValueError(f"unknown command {command!r}; expected one of {COMMANDS}")
    from ds_gate.model.context import CheckContext
    from ds_gate.plugins import completed_rule, hooks, review_encoding_for

    if not isinstance(quest, Quest):
        quest = load_quest(quest, source=source, refs=refs, cache=cache)
    cov = coverage(quest, completed_rule())
    findings = list(quest.findings)
    for decision in quest.decisions.values():
        findings.extend(decision.findings)
    findings.extend(cov.findings)
    cards, home_path = [], None
    if scope.reads_cards:  # candidates lists runs; cards and extra rules are for the other scopes
        from ds_gate.engine.quest_memory import quest_memory

        memory = quest_memory(quest, cov.reviews, home)
        findings.extend(memory.findings)
        cards, home_path = memory.cards, memory.home
        context = CheckContext(quest, cov.reviews, home, cards=cards, home_path=home_path)
        for extra in hooks().ds_gate_check_quest(quest=quest, context=context):
            findings.extend(extra or [])

    enforced = quest.experience_distill or require
    encoding = review_encoding_for(quest.root)
    if scope.gates_pending:
        from ds_gate.engine.unseen import refuse_unseen

        refuse_unseen(quest)
    if scope.gates_pending and not require:
        _refuse_unseen_toggle(quest)
    from ds_gate.config import configured, refuse_unread

    defaults = configured(quest.root)
    if scope.gates_pending and defaults is not None:
        refuse_unread(quest.root, defaults)
    if scope.can_fail and quest.is_git:
        from ds_gate.engine.unseen import clone_findings

        findings.extend(clone_findings(quest, scope))
        if scope.gates_pending:
            _refuse_unread_objects(findings)
    notes: list[str] = list(quest.notes)
    if scope.gates_pending:
        severity = ERROR if enforced else INFO
        findings.extend(pending_finding(run, cov.listed_by_invalid.get(run.artifact_id, []), severity, encoding)
                        for run in cov.pending)
        if not enforced:
            notes.append(OFF_NOTE)
    from ds_gate.waivers import waive

    findings = waive(findings, quest.root) + (defaults.problems if defaults is not None else [])
    findings.sort(key=Finding.sort_key)
    known = set(findings)  # the quest's cards were read from their folder too
    staged = [f for f in staged_findings if f not in known]

    never_fails = not scope.can_fail or (scope.gates_pending and not enforced)
    ok = (never_fails or not any(f.fails for f in findings)) and not any(f.fails for f in staged)
    pending_ids = {run.artifact_id for run in cov.pending}
    return GateReport(
        command=scope.command,
        scope=scope,
        ok=ok,
        findings=findings + staged,
        quest=quest,
        enforced=enforced,
        completed_runs=sorted(cov.completed, key=lambda r: r.artifact_id),
        pending=sorted(cov.pending, key=lambda r: r.artifact_id),
        reviews=sorted(cov.reviews, key=lambda r: r.artifact_id),
        listed_by_invalid={rid: reviews for rid, reviews in cov.listed_by_invalid.items() if rid in pending_ids},
        finalization_reasons=list(finalization),
        notes=notes,
        home=home_path,
        cards=cards,
        review_encoding=encoding,
    )


def _refuse_unread_objects(findings: list[Finding]) -> None:
    """Git objects the gate could not read (a partial clone's, damaged ones) may hold runs:
    like a shallow clone, the gate stops (exit 2) rather than pass on the rest."""
    from ds_gate.rules.reading import GIT_OBJECT_CORRUPT, GIT_OBJECT_MISSING

    unread = [f for f in findings if f.rule in (GIT_OBJECT_MISSING.id, GIT_OBJECT_CORRUPT.id)]
    if not unread:
        return
    from ds_gate.errors import QuestError
    from ds_gate.sources.clone import REFETCH

    shown = ", ".join(str(f.path) for f in unread[:5]) + (f" and {len(unread) - 5} more" if len(unread) > 5 else "")
    fix = "restore them (`git fsck` names the damaged ones)" if all(f.rule == GIT_OBJECT_CORRUPT.id for f in unread) \
        else REFETCH
    raise QuestError(f"{len(unread)} git object(s) the gate must read are missing or damaged ({shown}), so the runs "
                     f"they hold cannot be seen and the gate does not pass on the rest: {fix}; `ds-gate check` "
                     "lists them all")


def _refuse_unseen_toggle(quest: Quest) -> None:
    """A ``quest.yaml`` that cannot be read hides whether the gate is on: a gate that passes
    then is worse than none (DeepScientist's own ``complete_quest`` raises on such a quest)."""
    from ds_gate.errors import QuestError
    from ds_gate.rules.reading import QUEST_YAML_INVALID
    from ds_gate.sources.quest_yaml import TOGGLES_OFF

    for finding in quest.findings:
        if finding.rule == QUEST_YAML_INVALID.id:
            where = f"{quest.root / 'quest.yaml'}" + (f":{finding.line}" if finding.line else "")
            problem = finding.message.removesuffix(TOGGLES_OFF)
            raise QuestError(f"{where}: {problem}. The gate cannot tell whether experience_distill is on, so it "
                             "does not pass: fix quest.yaml (DeepScientist's complete_quest fails on it too), "
                             "or pass --require to enforce the gate regardless")


def list_distill_candidates(path: Path | str) -> GateReport:
    """The RFC's ``artifact.list_distill_candidates()``: completed runs no review covers yet."""
    return evaluate(path, "candidates")
