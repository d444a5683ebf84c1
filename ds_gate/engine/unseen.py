"""Where the gate cannot see, it stops: the refusals ``closure``, finalization commits and
the pre-push gate share (exit 2, with the one command that fixes it); ``check`` only warns.

A pass is a claim that every completed run was seen; each case here (docs/fail-closed.md) is a
place runs may live that the gate did not read. None of them is a finding to weigh or waive:
the verdict would be about a different quest than the one on disk.
"""

from __future__ import annotations

import dataclasses
import os

from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError
from ds_gate.model.findings import Finding
from ds_gate.model.records import Quest
from ds_gate.model.reports import GateReport, Scope
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN
from ds_gate.sources.alternates import ALTERNATES, DISSOCIATE, borrowed_objects
from ds_gate.sources.clone import REFETCH, blindness
from ds_gate.sources.problems import (
    GIT_ALTERNATES_OUTSIDE_QUEST,
    GIT_HISTORY_TOO_LONG,
    GIT_OBJECT_CORRUPT,
    GIT_OBJECT_MISSING,
    GIT_ONE_BRANCH,
    GIT_SYMLINK_IN_TREE,
    INDEX_RECORD_OUTSIDE_QUEST,
    PATH_SYMLINK_OUTSIDE_QUEST,
    QUEST_NOT_GIT,
    WORKSPACE_HEAD_UNREADABLE,
    WORKSPACE_OUTSIDE_QUEST,
)

DOES_NOT_PASS = "so the runs behind it cannot be seen and the gate does not pass on the rest"


def clone_findings(quest: Quest, scope: Scope) -> list[Finding]:
    """A clone that cannot show every branch may hide runs: the gate stops (exit 2) rather
    than pass on what it can see; ``check`` says so and goes on."""
    borrowed = borrowed_objects(quest.root)
    if borrowed is not None:
        said = f"this repository borrows {borrowed}, outside the quest (.git/{ALTERNATES})"
        if scope.gates_pending:
            raise QuestError(
                f"{quest.root}: {said}; ds-gate never reads outside the quest, {DOES_NOT_PASS}", DISSOCIATE
            )
        return [GIT_ALTERNATES_OUTSIDE_QUEST.at(None, f"{said}: not read", hint=DISSOCIATE)]
    found = blindness(quest.root)
    if found is None:
        return []
    blind, fix = found
    if scope.gates_pending:
        raise QuestError(
            f"{quest.root}: {blind}, so runs recorded on the branches it lacks cannot be seen and the "
            "gate does not pass on the rest",
            fix,
            ": ",
        )
    return [GIT_ONE_BRANCH.at(None, f"{blind}: runs recorded on branches it lacks are not seen", hint=fix)]


def refuse_unseen(quest: Quest) -> None:
    """Stop (exit 2) when a place that may hold runs was not read; see the module's docstring."""
    for finding in quest.findings:
        if finding.rule == QUEST_NOT_GIT.id and os.path.lexists(quest.root / ".git"):
            raise QuestError(
                f"{quest.root}: {finding.message.split('; workspaces were found')[0]}: the branches no "
                "worktree folder has checked out cannot be read, so the runs on them cannot be seen and "
                "the gate does not pass on the rest",
                finding.hint,
            )
    heads = [f for f in quest.findings if f.rule == WORKSPACE_HEAD_UNREADABLE.id]
    if heads:  # that worktree's folder is not read as it, and its commits cannot be
        raise QuestError(
            f"{quest.root}: {heads[0].message}{_more(heads)}; the gate does not pass on the rest", heads[0].hint
        )
    outside = [
        f
        for f in quest.findings
        if f.rule in (WORKSPACE_OUTSIDE_QUEST.id, PATH_SYMLINK_OUTSIDE_QUEST.id, INDEX_RECORD_OUTSIDE_QUEST.id)
    ]
    if any(f.rule == GIT_SYMLINK_IN_TREE.id for f in quest.findings):  # a link in the tree hides the record the
        outside = [f for f in outside if f.rule != INDEX_RECORD_OUTSIDE_QUEST.id]  # line names: that stop says why
    if outside:
        first = outside[0]
        raise QuestError(
            f"{quest.root}: {first.message}{_more(outside)}; DeepScientist reads what it points to, {DOES_NOT_PASS}",
            first.hint,
        )


def refuse_unread_git(findings: list[Finding]) -> None:
    """Git objects the gate could not read (a partial clone's, damaged ones) and links or
    gitlinks committed where DeepScientist keeps records may hold runs: like a shallow clone,
    the gate stops (exit 2) rather than pass on the rest. (A folder that links out of the
    quest stops the folder source the same way, so every surface refuses such a quest.) So does
    a card history longer than the patch scan reads (``engine.patch_history``): what it did not
    read may be the patch."""
    for finding in findings:
        if finding.rule == GIT_HISTORY_TOO_LONG.id:
            raise QuestError(
                f"{finding.path}: [{finding.rule}] {finding.message}; the gate does not pass on the rest", finding.hint
            )
    unread = [f for f in findings if f.rule in (GIT_OBJECT_MISSING.id, GIT_OBJECT_CORRUPT.id)]
    linked = [f for f in findings if f.rule == GIT_SYMLINK_IN_TREE.id]
    if linked and not unread:
        first = linked[0]
        raise QuestError(
            f"{first.path}: [{first.rule}] {first.message}{_more(linked)}; the gate does not pass on the rest",
            first.hint,
        )
    if unread:
        fix = (
            "restore them (`git fsck` names the damaged ones)"
            if all(f.rule == GIT_OBJECT_CORRUPT.id for f in unread)
            else REFETCH
        )
        raise QuestError(
            f"{counted(len(unread), 'git object')} the gate must read {'is' if len(unread) == 1 else 'are'} missing or damaged "
            f"({_listed([str(f.path) for f in unread])}), so the runs they hold cannot be seen and the gate "
            "does not pass on the rest",
            f"{fix}; `ds-gate check` lists them all",
            ": ",
        )


def _more(found: list[Finding]) -> str:
    """What a stop naming the first of ``found`` says of the rest."""
    return f" (and {len(found) - 1} more; `ds-gate check` lists them)" if len(found) > 1 else ""


def _listed(names: list[str]) -> str:
    """The first five of ``names``, and how many more."""
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def as_closure_sees(hooked: GateReport, local: GateReport, unrecorded: str) -> GateReport:
    """A finalization the hook judged, judged again as ``ds-gate closure`` reads the quest on
    this machine (every worktree folder as it is, staged or not): the hook must not pass
    what closure rejects right after, and where both reject, the hook names every run
    closure would, so one review covers them all. ``hooked`` when ``local`` passes; else
    ``local`` with a note when the hook passed; else ``hooked`` with the pending runs only the
    folders hold added (``unrecorded``: what the commit or push lacks)."""
    if local.ok:
        return hooked
    known = {run.artifact_id for run in hooked.completed_runs}  # runs the hook judged, covered or not
    extra = [run for run in local.pending if run.artifact_id not in known]
    shown = _listed([run.artifact_id for run in extra])
    if not hooked.ok:
        if not extra:
            return hooked
        ids = {run.artifact_id for run in extra}
        added = [f for f in local.findings if f.rule == COVERAGE_PENDING_RUN.id and f.subject in ids]
        note = (
            f"`ds-gate closure` reads every worktree folder as it is and also finds completed runs {unrecorded} "
            f"({shown}): cover them in the same review, and commit them"
        )
        return dataclasses.replace(
            hooked,
            findings=[*hooked.findings, *added],
            notes=[note, *hooked.notes],
            pending=sorted([*hooked.pending, *extra], key=lambda r: r.artifact_id),
            completed_runs=sorted([*hooked.completed_runs, *extra], key=lambda r: r.artifact_id),
        )
    found = (
        (
            f"the folders hold completed runs {unrecorded} ({shown}): commit them with a distill review covering "
            "them (`git add -A artifacts`), or remove them"
        )
        if extra
        else "its findings below come from the worktree folders as they are: fix them there, or commit what fixes them"
    )
    note = f"`ds-gate closure` reads every worktree folder as it is, and would reject this finalization right after it: {found}"
    return dataclasses.replace(local, notes=[note, *local.notes])
