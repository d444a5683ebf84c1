"""The gate's baseline step: the completed runs a baseline names leave the pending list.

One call between ``cover`` and ``count_pending`` (``engine.gate``): what applies is the trusted
configuration's baselines for this quest, and the quest's own (``.ds-gate.yaml``) only where its
waivers are accepted, by the same flag and the same trusted setting (``config.waivers.waive``);
otherwise each is a ``baseline.proposed`` warning with the trusted entry to paste (its reason a
placeholder), or none where its commit came after the gate was adopted. Each baseline that applies
is one ``coverage.baselined`` finding (INFO), so every format shows it; a commit baselines a run
only while it is the completed run that commit held (``engine.baseline_match``), and a run it
names that stays pending is a ``baseline.changed-since`` warning saying why; a commit at which
``experience_distill`` was already on is a ``baseline.after-adoption`` warning (``toggle_at``).
A commit git cannot read stops the gates that judge pending runs (exit 2, the fix named) and is a
warning elsewhere. The entry's format and why: ``config.baselines``.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ds_gate.config.baselines import (
    BASELINE_AFTER_ADOPTION,
    BASELINE_CHANGED,
    BASELINE_COMMIT_UNREADABLE,
    BASELINE_PROPOSED,
    COVERAGE_BASELINED,
    Baseline,
)
from ds_gate.config.failclosed import ACCEPT_FLAG, accept_command
from ds_gate.config.settings import shown_config_path
from ds_gate.engine.baseline_match import HeldRun, Same, commit_evidence
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.layout import QUEST_CONFIG
from ds_gate.plugins.manager import completed_rule
from ds_gate.sources.commit_runs import CommitUnreadable
from ds_gate.sources.toggle_seen import Seen, toggle_at

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.config.quest import QuestConfig
    from ds_gate.config.settings import Trusted
    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Quest, Run
    from ds_gate.model.reports import Scope
    from ds_gate.rules.coverage import Coverage


CHANGED_SHOWN = 20  # runs a commit holds that stay pending, each said; past it, one finding counts the rest


@dataclass(slots=True)
class Baselined:
    """What the step decided: the runs baselined, the baselines that apply, the findings."""

    runs: list[Run] = field(default_factory=list)
    entries: list[Baseline] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass(slots=True)
class _Match:
    """The baselines' commits read, and which pending run each baselines (``engine.baseline_match``)."""

    quest: Quest
    entries: list[Baseline]
    held: dict[int, dict[str, HeldRun] | None] = field(default_factory=dict)  # None: a date

    def prepare(self, runs: list[Run]) -> Same:
        """The current copies of each run a commit held completed, read once."""
        same = Same(self.quest, self.quest.staged_workspace)
        same.read(r for r in runs if any(h is not None and _done(h, r) for h in self.held.values()))
        commits = [c for entry in self.entries for c in entry.commits]
        algo = "sha256" if any(len(c) == 64 for c in commits) else "sha1"  # full ids (config.baselines)
        same.read_every([h for h in self.held.values() if h is not None], algo)
        return same

    def first(self, run: Run, same: Same) -> tuple[int | None, tuple[Baseline, str] | None]:
        """The first entry that baselines ``run``, else why a commit naming it does not."""
        note = None
        for n, held in self.held.items():
            entry = self.entries[n]
            if held is None:
                if entry.matches_date(run.created_at, run.updated_at):
                    return n, None
                continue
            one = held.get(run.artifact_id)
            if one is None:
                continue
            why = same.why_not(one, run)
            if why is None:
                return n, None
            note = note or (entry, why)
        return None, note


def _done(held: dict[str, HeldRun], run: Run) -> bool:
    one = held.get(run.artifact_id)
    return one is not None and one.done


def apply_baselines(
    quest: Quest, cov: Coverage, scope: Scope, trusted: Trusted, config: QuestConfig, accept_flag: bool
) -> Baselined:
    """Take the baselined runs out of ``cov.pending`` and say so. ``accept_flag``: the caller
    accepts the quest's waivers (``--accept-quest-waivers``), which accepts its baselines too."""
    root = quest.root
    completed = completed_rule()
    usable = trusted.problem is None
    accepted_by = ACCEPT_FLAG if accept_flag else (trusted.accepts(root) if usable else None)
    done = Baselined(entries=trusted.baselines_for(root))
    if accepted_by is not None:
        done.entries += [dataclasses.replace(b, accepted_by=accepted_by) for b in config.baselines]
    else:
        done.findings += [_proposal(b, quest, cov, trusted) for b in config.baselines]
    match = _Match(quest, done.entries)
    for n, entry in enumerate(done.entries):
        try:
            match.held[n] = commit_evidence(root, entry.commits, completed) if entry.commits else None
        except CommitUnreadable as exc:
            commit, problem = exc.args
            if scope.gates_pending:
                raise QuestError(_stop(root, entry, commit, problem), _fix(root, entry, commit), ": ") from None
            done.findings.append(_unreadable(root, entry, commit, problem))
            continue
        for commit in entry.commits:
            seen = toggle_at(root, commit)
            if seen.on_at is not None or seen.unseen is not None:
                done.findings.append(_adopted(entry, commit, seen))
    same = match.prepare(cov.pending)
    by_entry: dict[int, list[Run]] = {n: [] for n in match.held}
    left: list[Run] = []
    changed: list[Finding] = []
    for run in cov.pending:
        first, note = match.first(run, same)
        (left if first is None else by_entry[first]).append(run)
        if first is None and note is not None:
            changed.append(_changed(run, *note))
    cov.pending = left
    for n, runs in by_entry.items():
        done.runs += runs
        done.findings.append(_baselined(done.entries[n], runs))
    done.findings += changed[:CHANGED_SHOWN] + _more(changed[CHANGED_SHOWN:])
    return done


def _where(entry: Baseline) -> str:
    return entry.origin if entry.trusted else QUEST_CONFIG


def _fix(root: Path, entry: Baseline, commit: str) -> str:
    where = entry.origin if entry.trusted else str(root / QUEST_CONFIG)
    return (
        f"fetch it into this clone (`git -C {shlex.quote(str(root))} fetch origin {commit}`; in GitHub Actions `actions/checkout` "
        f"with `fetch-depth: 0`), or correct baselines[{entry.index}].commit in {where} to a full commit id of the "
        f"quest (`git -C {shlex.quote(str(root))} log --format=%H` lists them)"
    )


def _stop(root: Path, entry: Baseline, commit: str, problem: str) -> str:
    """The stop's cause (its fix is ``_fix``, carried apart: ``kernel.errors.QuestError``)."""
    return (
        f"{entry.named}: commit {commit} cannot be read in the quest {root}: {problem}. The gate cannot tell "
        "which runs it baselines, so it does not pass"
    )


def _unreadable(root: Path, entry: Baseline, commit: str, problem: str) -> Finding:
    return BASELINE_COMMIT_UNREADABLE.at(
        _where(entry),
        f"{entry.named}: commit {commit} cannot be read in this quest: {problem}; it baselines nothing, and "
        "closure stops on it",
        hint=_fix(root, entry, commit),
        pointer=f"{entry.pointer}/commit",
        line=entry.line,
    )


def _baselined(entry: Baseline, runs: list[Run]) -> Finding:
    weaker = (
        "; before compares created_at and updated_at, which the quest's agent writes: a commit is the stronger form"
        if entry.before is not None
        else ""
    )
    return COVERAGE_BASELINED.at(
        _where(entry),
        f"{counted(len(runs), 'completed run')} baselined by {entry.named} ({entry.what}): {shown(entry.reason, 200)}",
        hint="recorded before the gate was adopted, they are not pending; JSON lists them in baselined_run_ids"
        + weaker,
        pointer=entry.pointer,
        line=entry.line,
    )


def _adopted(entry: Baseline, commit: str, seen: Seen) -> Finding:
    """A baseline that applies, naming a commit at which the gate was already on (or where the
    gate cannot tell): it still applies (a human may want it), and every report says so."""
    if seen.on_at is not None:
        what = f"experience_distill was already on at commit {commit} ({seen.on_at} turns it on)"
        hint = (
            "a baseline is for runs finished before the gate was adopted: name the last commit before the toggle "
            "went on, or remove the entry and review the runs"
        )
    else:
        problem, hint = seen.unseen or ("", "")
        what = f"the gate cannot tell whether experience_distill was already on at commit {commit}: {problem}"
    return BASELINE_AFTER_ADOPTION.at(
        _where(entry),
        f"{entry.named}: {what}; it baselines the runs that commit holds all the same",
        hint=hint,
        pointer=f"{entry.pointer}/commit",
        line=entry.line,
    )


def _changed(run: Run, entry: Baseline, why: str) -> Finding:
    return BASELINE_CHANGED.at(
        run.path,
        f"run {run.artifact_id} is in {entry.named} ({entry.what}) but stays pending: {why}",
        hint="a baseline names what its commit held, completed: review this run as any other",
        subject=run.artifact_id,
    )


def _more(rest: list[Finding]) -> list[Finding]:
    if not rest:
        return []
    return [
        BASELINE_CHANGED.at(
            None,
            f"... and {counted(len(rest), 'more run')} a baseline's commit holds stay pending, each completed or "
            f"recorded again after its baseline (the first {CHANGED_SHOWN} are listed)",
            hint="review them as any other run; JSON lists them all in pending_run_ids",
        )
    ]


def _proposal(entry: Baseline, quest: Quest, cov: Coverage, trusted: Trusted) -> Finding:
    """A quest-written baseline: what it would baseline and, unless its commit came after the
    gate was adopted (or the gate cannot tell), the trusted entry that adopts it, with a
    placeholder for the reason: the agent's words are shown, never offered for pasting."""
    root = quest.root
    match = _Match(quest, [entry])
    adopted = ""
    try:
        match.held[0] = commit_evidence(root, entry.commits, completed_rule()) if entry.commits else None
        same = match.prepare(cov.pending)
        count = sum(match.first(r, same)[0] is not None for r in cov.pending)
        would = f"proposes to report {counted(count, 'pending run')}"
        for commit in entry.commits:
            seen = toggle_at(root, commit)
            if seen.on_at is not None:
                adopted = f"experience_distill was already on at commit {commit} ({seen.on_at} turns it on)"
            elif seen.unseen is not None:
                adopted = f"the gate cannot tell whether experience_distill was on at commit {commit}: {seen.unseen[0]}"
            if adopted:
                break
    except CommitUnreadable as exc:
        would = f"cannot be judged here (commit {exc.args[0]}: {exc.args[1]})"
    where = trusted.path or shown_config_path()
    said = f"{entry.named} ({entry.what}) {would} as baselined, saying {shown(entry.reason, 200)}."
    if adopted:
        return BASELINE_PROPOSED.at(
            QUEST_CONFIG,
            f"{said} But {adopted}: its runs were recorded under the gate, and a baseline is for runs finished "
            "before the gate was adopted. It baselines nothing",
            hint="review the runs (`ds-gate candidates` lists them); no trusted entry is offered for it (a quest's "
            f'owner who still wants one writes it in {where} by hand, docs/configuration.md "Baseline"); an '
            "agent cannot adopt it",
            pointer=entry.pointer,
            line=entry.line,
        )
    return BASELINE_PROPOSED.at(
        QUEST_CONFIG,
        f"{said} It was written inside the quest, so it baselines nothing until the quest's owner adopts it with "
        "a trusted setting",
        hint=f"if you own this quest and adopt it, add it to {where}, with your own reason: {entry.trusted_yaml(root)} "
        f"(or accept the quest's waivers and baselines for one run: {accept_command(root)}); an agent cannot adopt it",
        pointer=entry.pointer,
        line=entry.line,
    )
