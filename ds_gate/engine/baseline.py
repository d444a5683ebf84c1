"""The gate's baseline step: the completed runs a baseline names leave the pending list.

One call between ``cover`` and ``count_pending`` (``engine.gate``): what applies is the trusted
configuration's baselines for this quest, and the quest's own (``.ds-gate.yaml``) only where its
waivers are accepted, by the same flag and the same trusted setting (``config.waivers.waive``);
otherwise each is a ``baseline.proposed`` warning with the trusted entry to paste. Each baseline
that applies is one ``coverage.baselined`` finding (INFO), so every format shows it; a commit git
cannot read stops the gates that judge pending runs (exit 2, the fix named) and is a warning
elsewhere. The entry's format and why: ``config.baselines``.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ds_gate.config.baselines import BASELINE_COMMIT_UNREADABLE, BASELINE_PROPOSED, COVERAGE_BASELINED, Baseline
from ds_gate.config.failclosed import ACCEPT_FLAG, accept_command
from ds_gate.config.settings import shown_config_path
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.layout import QUEST_CONFIG
from ds_gate.sources.commit_runs import CommitUnreadable, runs_in_commit

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.config.quest import QuestConfig
    from ds_gate.config.settings import Trusted
    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Quest, Run
    from ds_gate.model.reports import Scope
    from ds_gate.rules.coverage import Coverage


@dataclass(slots=True)
class Baselined:
    """What the step decided: the runs baselined, the baselines that apply, the findings."""

    runs: list[Run] = field(default_factory=list)
    entries: list[Baseline] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def apply_baselines(
    quest: Quest, cov: Coverage, scope: Scope, trusted: Trusted, config: QuestConfig, accept_flag: bool
) -> Baselined:
    """Take the baselined runs out of ``cov.pending`` and say so. ``accept_flag``: the caller
    accepts the quest's waivers (``--accept-quest-waivers``), which accepts its baselines too."""
    root = quest.root
    usable = trusted.problem is None
    accepted_by = ACCEPT_FLAG if accept_flag else (trusted.accepts(root) if usable else None)
    done = Baselined(entries=trusted.baselines_for(root))
    if accepted_by is not None:
        done.entries += [dataclasses.replace(b, accepted_by=accepted_by) for b in config.baselines]
    else:
        done.findings += [_proposal(b, quest, cov, trusted) for b in config.baselines]
    named: dict[int, frozenset[str] | None] = {}
    for n, entry in enumerate(done.entries):
        try:
            named[n] = _commit_runs(root, entry) if entry.commits else None
        except CommitUnreadable as exc:
            commit, problem = exc.args
            if scope.gates_pending:
                raise QuestError(_stop(root, entry, commit, problem), _fix(root, entry, commit), ": ") from None
            done.findings.append(_unreadable(root, entry, commit, problem))
    by_entry: dict[int, list[Run]] = {n: [] for n in named}
    left: list[Run] = []
    for run in cov.pending:
        first = next((n for n, ids in named.items() if _names(done.entries[n], ids, run)), None)
        (left if first is None else by_entry[first]).append(run)
    cov.pending = left
    for n, runs in by_entry.items():
        done.runs += runs
        done.findings.append(_baselined(done.entries[n], runs))
    return done


def _commit_runs(root: Path, entry: Baseline) -> frozenset[str]:
    """The runs of every commit the entry names; ``CommitUnreadable((commit, problem))``."""
    ids: set[str] = set()
    for commit in entry.commits:
        try:
            ids |= runs_in_commit(root, commit)
        except CommitUnreadable as exc:
            raise CommitUnreadable(commit, str(exc)) from None
    return frozenset(ids)


def _names(entry: Baseline, ids: frozenset[str] | None, run: Run) -> bool:
    return run.artifact_id in ids if ids is not None else entry.matches_date(run.created_at)


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
        "; before compares created_at, which the quest's agent writes: a commit is the stronger form"
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


def _proposal(entry: Baseline, quest: Quest, cov: Coverage, trusted: Trusted) -> Finding:
    """A quest-written baseline: what it would baseline, and the trusted entry that adopts it."""
    root = quest.root
    try:
        ids = _commit_runs(root, entry) if entry.commits else None
        would = f"proposes to report {counted(sum(_names(entry, ids, r) for r in cov.pending), 'pending run')}"
    except CommitUnreadable as exc:
        would = f"cannot be judged here (commit {exc.args[0]}: {exc.args[1]})"
    where = trusted.path or shown_config_path()
    return BASELINE_PROPOSED.at(
        QUEST_CONFIG,
        f"{entry.named} ({entry.what}) {would} as baselined: {shown(entry.reason, 200)}. It was written inside the "
        "quest, so it baselines nothing until the quest's owner adopts it with a trusted setting",
        hint=f"if you own this quest and adopt it, add it to {where}: {entry.trusted_yaml(root)} (or accept the "
        f"quest's waivers and baselines for one run: {accept_command(root)}); an agent cannot adopt it",
        pointer=entry.pointer,
        line=entry.line,
    )
