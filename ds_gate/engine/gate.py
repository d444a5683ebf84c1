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

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.config.failclosed import ACCEPT_FLAG, accept_command, waived_by
from ds_gate.config.quest import configured, decision_actions, from_quest, refuse_unread
from ds_gate.config.settings import load, refuse, shown_config_path
from ds_gate.config.waivers import waive
from ds_gate.engine import loader
from ds_gate.engine.quest_memory import quest_memory
from ds_gate.engine.unseen import clone_findings, refuse_unread_git, refuse_unseen
from ds_gate.kernel.errors import QuestError
from ds_gate.model.context import CheckContext
from ds_gate.model.findings import ERROR, INFO, Finding
from ds_gate.model.records import Quest
from ds_gate.model.reports import SCOPES, GateReport, Scope
from ds_gate.plugins.manager import (
    completed_rule,
    hooks,
    keyed_record_checker,
    known_actions,
    review_encoding_for,
)
from ds_gate.rules.coverage import coverage, pending_finding
from ds_gate.rules.vocabulary import DECISION_UNKNOWN_ACTION
from ds_gate.sources.problems import QUEST_NO_QUEST_YAML, QUEST_YAML_INVALID
from ds_gate.sources.quest_yaml import TOGGLES_OFF
from ds_gate.sources.toggle_seen import Seen, toggle_seen

if TYPE_CHECKING:
    from ds_gate.config.settings import Trusted
    from ds_gate.sources.location import Location

COMMANDS = ("check", "closure", "candidates")
OFF_NOTE = ("experience_distill is off for this quest, so the closure gate is not enforced "
            "(turn it on in quest.yaml startup_contract, or pass --require)")


def load_quest(path: Path | str | Location, *, cache: bool = True, **options: Any) -> Quest:
    """Read a quest with every record checked by the built-in rules and the plugins' (see
    ``engine.loader.load_quest`` for the options). ``cache``: keep and reuse what was read of
    each record file in the user's cache folder (never changes the result, only its speed)."""
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
    no_require: bool = False,
    accept_quest_waivers: bool = False,
    settings: Trusted | None = None,
) -> GateReport:
    """``home``: the DeepScientist home for global cards and other quests' runs (default:
    ``$DEEPSCIENTIST_HOME``, ``$DS_HOME``, ``~/DeepScientist``). ``source``/``refs``: where
    records are read when ``quest`` is a path (see ``load_quest``). ``finalization``: why
    the commit or push being judged finalizes the quest. ``staged_findings``: what the
    commit hook found in staged cards (already waived); they join the report after the
    quest's own findings and fail it like them. ``cache``: reuse what earlier runs read of
    unchanged record files (the user's cache folder; the report is the same without it).
    The trusted settings (``settings``, default: the user's configuration file) decide what
    may lower the verdict: ``no_require`` (a trusted ``--no-require``) turns the gate off even
    where experience_distill is on; ``accept_quest_waivers`` lets the quest's own waivers
    apply (else they are proposals); see docs/threat-model.md."""
    scope = command if isinstance(command, Scope) else SCOPES.get(command) if command in COMMANDS else None
    if scope is None:
        raise ValueError(f"unknown command {command!r}; expected one of {COMMANDS}")

    if not isinstance(quest, Quest):
        quest = load_quest(quest, source=source, refs=refs, cache=cache)
    encoding = review_encoding_for(quest.root)
    cov = coverage(quest, completed_rule(), encoding)
    findings = list(quest.findings)
    findings.extend(cov.findings)  # each decision's own (a superseded review's as warnings), then reviewed ids'
    cards, home_path = [], None
    if scope.reads_cards:  # candidates lists runs; cards and extra rules are for the other scopes

        memory = quest_memory(quest, cov.reviews, home)
        findings.extend(memory.findings)
        cards, home_path = memory.cards, memory.home
        context = CheckContext(quest, cov.reviews, home, cards=cards, home_path=home_path)
        for extra in hooks().ds_gate_check_quest(quest=quest, context=context):
            findings.extend(extra or [])

    if scope.gates_pending:
        refuse_unseen(quest)

    trusted = settings if settings is not None else load()
    defaults = configured(quest.root)
    notes: list[str] = list(quest.notes)
    if scope.gates_pending:
        refuse(trusted, quest.root)
    elif trusted.problem:
        notes.append(f"{trusted.problem}; its settings and waivers are not applied (closure stops on it)")
    off_by = "--no-require" if no_require else trusted.turns_off(quest.root)
    no_require = off_by is not None
    if defaults is not None:
        notes += [ignored.note() for ignored in from_quest(defaults)[1]]
    seen = None
    if scope.gates_pending and not require and not no_require:
        seen = None if quest.experience_distill else toggle_seen(quest)
        _refuse_unseen_toggle(quest, seen)
    enforced = (quest.experience_distill or require or (seen is not None and seen.on_at is not None)) and not no_require
    if seen is not None and seen.on_at is not None:
        notes.append(f"experience_distill is not on in the root's quest.yaml, but it is on in {seen.on_at}: once on "
                     "anywhere the gate can see, it stays on (a trusted --no-require turns the gate off)")
    if scope.gates_pending and defaults is not None:
        refuse_unread(quest.root, defaults)
        findings.extend(_quest_only_actions(quest, trusted.actions))
    if scope.can_fail and quest.is_git:
        findings.extend(clone_findings(quest, scope))
        if scope.gates_pending:
            refuse_unread_git(findings)
    if scope.gates_pending:
        severity = ERROR if enforced else INFO
        findings.extend(pending_finding(run, cov.listed_by_invalid.get(run.artifact_id, []), severity, encoding)
                        for run in cov.pending)
        if not enforced:
            notes.append(f"the closure gate is not enforced: {off_by} (a trusted setting) turns it off" if off_by
                         else OFF_NOTE)

    findings = waive(findings, quest.root, accepted_by=ACCEPT_FLAG if accept_quest_waivers else None,
                     trusted=trusted) + (defaults.problems if defaults is not None else [])
    findings.sort(key=Finding.sort_key)
    if scope.can_fail and any(f.rule == "waiver.proposed" for f in findings):
        notes.append(f"the quest proposes waivers, which waive nothing until its owner accepts them: "
                     f"{accept_command(quest.root)}")
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
        waived_by=_waived_by(findings + staged),
    )


def _waived_by(findings: list[Finding]) -> list[str]:
    """What lowered the verdict: each distinct source of a waived error (for the verdict line)."""
    found: list[str] = []
    for how in map(waived_by, findings):
        if how is not None and how not in found:
            found.append(how)
    return found


def _quest_only_actions(quest: Quest, trusted: tuple[str, ...]) -> list[Finding]:
    """Decisions whose action only the quest's own ``decision_actions`` accepts: the quest may
    name a fork's actions so its checkpoints go through (DeepScientist accepted them), but what
    lowers the closure verdict comes from trusted places only: the user's configuration or a
    plugin. So here they are ``decision.unknown-action`` again, saying where to list them."""
    quest_only = set(decision_actions(quest.root)) - known_actions() - set(trusted)
    return [DECISION_UNKNOWN_ACTION.at(
        decision.path,
        f"action {decision.action!r} is accepted only by decision_actions in the quest's own configuration, which "
        "may only make closure stricter",
        hint=f"if the quest's DeepScientist (a fork) has it, list it in the user's configuration "
             f"(decision_actions: [{decision.action}] in {shown_config_path()}) or in a plugin's "
             "ds_gate_decision_actions",
        pointer="/action", subject=decision.artifact_id)
        for decision in quest.decisions.values() if decision.action is not None and decision.action.strip() in quest_only]


def _refuse_unseen_toggle(quest: Quest, seen: Seen | None) -> None:
    """A ``quest.yaml`` that cannot be read hides whether the gate is on: a gate that passes
    then is worse than none (DeepScientist's own ``complete_quest`` raises on such a quest).
    So does one that is missing where one is expected: a git history or a worktree that had
    one, or a DeepScientist quest's layout (``.ds/``, or a folder under ``<home>/quests``)."""
    for finding in quest.findings:
        if finding.rule == QUEST_YAML_INVALID.id:
            where = f"{quest.root / 'quest.yaml'}" + (f":{finding.line}" if finding.line else "")
            problem = finding.message.removesuffix(TOGGLES_OFF)
            raise QuestError(f"{where}: {problem}. The gate cannot tell whether experience_distill is on, so it "
                             "does not pass: fix quest.yaml (DeepScientist's complete_quest fails on it too), "
                             "or pass --require to enforce the gate regardless")
        expected = (seen is not None and seen.had_quest_yaml) or os.path.isdir(quest.root / ".ds") \
            or quest.root.parent.name == "quests"
        if finding.rule == QUEST_NO_QUEST_YAML.id and expected:
            raise QuestError(f"{quest.root}: the quest root has no quest.yaml, where one is expected (its history, a "
                             "worktree or the DeepScientist layout has one). The gate cannot tell whether "
                             "experience_distill is on, so it does not pass: restore quest.yaml (`git checkout "
                             "<branch> -- quest.yaml`), or pass --require to enforce the gate regardless")


def list_distill_candidates(path: Path | str) -> GateReport:
    """The RFC's ``artifact.list_distill_candidates()``: completed runs no review covers yet."""
    return evaluate(path, "candidates")
