"""The one engine: every gate verdict over a quest comes from ``evaluate``.

The CLI, the commit hook, the pre-push hook, the pytest plugin and the API call it with a
``Scope`` (``model.reports.SCOPES``: what fails each) and present the ``GateReport`` it returns
without changing it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.config.failclosed import ACCEPT_FLAG, accept_command
from ds_gate.config.quest import (
    QuestConfig,
    from_quest,
    read_quest_config,
    refuse_unread,
)
from ds_gate.config.settings import load, refuse
from ds_gate.config.waivers import WAIVER_PROPOSED, waive
from ds_gate.engine import loader
from ds_gate.engine.baseline import Baselined, apply_baselines
from ds_gate.engine.gate_stops import (
    quest_only_actions,
    refuse_unseen_toggle,
    waived_sources,
)
from ds_gate.engine.options import GateOptions
from ds_gate.engine.patch_history import patch_history_findings
from ds_gate.engine.quest_memory import quest_memory
from ds_gate.engine.unseen import clone_findings, refuse_unread_git, refuse_unseen
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.model.context import CheckContext
from ds_gate.model.findings import ERROR, INFO, Finding
from ds_gate.model.records import Card, Quest
from ds_gate.model.reports import SCOPES, GateReport, Scope
from ds_gate.plugins.manager import (
    completed_rule,
    hooks,
    keyed_record_checker,
    review_encoding_for,
)
from ds_gate.rules.coverage import Coverage, coverage, pending_finding
from ds_gate.sources.home_cards import SharedCards
from ds_gate.sources.location import Location, locate
from ds_gate.sources.memory import resolve_home
from ds_gate.sources.toggle_seen import Seen, toggle_seen

if TYPE_CHECKING:
    from ds_gate.config.settings import Trusted

GATE_COMMANDS = ("check", "closure", "candidates")  # the scopes ``evaluate`` takes by name (the hooks pass theirs)


def scope_of(command: str | Scope) -> Scope:
    """The ``Scope`` a gate command names, or the one given."""
    scope = command if isinstance(command, Scope) else SCOPES.get(command) if command in GATE_COMMANDS else None
    if scope is None:  # a caller's bad argument: the API's usage error
        raise QuestError(f"unknown command {shown(command)}; expected one of {GATE_COMMANDS}")
    return scope


OFF_NOTE = (
    "experience_distill is off for this quest, so the closure gate is not enforced "
    "(turn it on in quest.yaml startup_contract, or pass --require)"
)


def load_quest(
    path: Path | str | Location, *, cache: bool = True, config: QuestConfig | None = None, **options: Any
) -> Quest:
    """Read a quest with every record checked by the built-in rules and the plugins' (see
    ``engine.loader.load_quest`` for the options). ``cache``: keep and reuse what was read of
    each record file in the user's cache folder (never changes the result, only its speed).
    ``config``: the quest's configuration, when the caller read it already (its decision actions)."""
    checker = (
        keyed_record_checker
        if config is None
        else (lambda root: keyed_record_checker(root, quest_actions=config.actions))
    )
    return loader.load_quest(path, keyed_checker=checker, cache=cache, **options)


@dataclass(slots=True)
class Gate:
    """One gate run, built from its scope and options and run step by step (``run``): load the quest,
    coverage, memory and lineage, the trusted settings and the toggle, the fail-closed stops,
    the baselines, the pending runs, the waivers, the report. The quest is located once (a ``Location`` given
    is used as it is) and its configuration read once; every step takes them from here."""

    given: Quest | Path | str | Location
    scope: Scope
    options: GateOptions = field(default_factory=GateOptions)
    settings: Trusted | None = None  # the trusted settings, when the caller read them; default: ``options.config``
    config: QuestConfig | None = None  # the quest's own configuration, when the caller read it already
    shared_cards: SharedCards | None = None  # the home's global cards, read once for many quests (--all-quests)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    home_path: Path | None = None
    encoding: str = ""
    enforced: bool = False
    off_by: str | None = None  # the trusted setting that turns the gate off
    baselined: Baselined = field(default_factory=Baselined)  # the runs the baselines take out of pending

    def run(self) -> GateReport:
        quest, config = self.load()
        cov = self.cover(quest, config)
        if self.scope.reads_cards:  # candidates lists runs; cards and extra rules are for the other scopes
            self.read_memory(quest, cov)
        if self.scope.gates_pending:
            refuse_unseen(quest)
        trusted = self.settings if self.settings is not None else load(self.options.config)
        self.apply_settings(quest, config, trusted)
        self.decide_enforced(quest)
        self.stop_where_unseen(quest, config, trusted)
        self.baselined = apply_baselines(quest, cov, self.scope, trusted, config, self.options.accept_quest_waivers)
        self.findings.extend(self.baselined.findings)
        self.count_pending(cov)
        self.apply_waivers(quest, config, trusted)
        return self.report(quest, cov)

    def load(self) -> tuple[Quest, QuestConfig]:
        """The quest (read here unless given) and its configuration, each read once. A home named
        (``--home``, ``home=``) that no path resolves or that is a file stops here, before any
        read; one not there is a warning, later, only if a card needs it (as for a CI clone)."""
        if self.options.home is not None:
            resolve_home(self.options.home)
        if isinstance(self.given, Quest):
            return self.given, self.config or read_quest_config(self.given.root)
        location = (
            self.given
            if isinstance(self.given, Location)
            else locate(self.given, any_repository=not self.scope.gates_pending)
        )  # check warns on no quest.yaml
        config = self.config or read_quest_config(location.root)
        options = self.options
        return load_quest(
            location, source=options.source, refs=options.refs, cache=options.cache, config=config
        ), config

    def cover(self, quest: Quest, config: QuestConfig) -> Coverage:
        """Which completed runs no valid review covers; the quest's and the decisions' findings."""
        self.encoding = review_encoding_for(quest.root, quest_actions=config.actions)
        cov = coverage(quest, completed_rule(), self.encoding)
        # the quest's, then each decision's own (a superseded review's as warnings), then reviewed ids'
        self.findings = [*quest.findings, *cov.findings]
        return cov

    def read_memory(self, quest: Quest, cov: Coverage) -> None:
        """The cards, their discipline and lineage, the patches in their committed history (not
        for ``candidates``), then each plugin's quest checks."""
        home = self.options.home
        memory = quest_memory(quest, cov.reviews, home, self.shared_cards, closing=self.scope.gates_pending)
        self.findings.extend(memory.findings)
        self.cards, self.home_path = memory.cards, memory.home
        if self.scope.can_fail:  # every committed version of the cards, by the patch rules
            self.findings.extend(patch_history_findings(quest))
        context = CheckContext(quest, cov.reviews, home, cards=self.cards, home_path=self.home_path)
        for extra in hooks().ds_gate_check_quest(quest=quest, context=context):
            self.findings.extend(extra or [])

    def apply_settings(self, quest: Quest, config: QuestConfig, trusted: Trusted) -> None:
        """A trusted file that cannot be used stops closure; what turns the gate off; the quest's
        settings that are not applied."""
        self.notes = [*quest.notes, *trusted.notes]
        if self.scope.gates_pending:
            refuse(trusted, quest.root)
        elif trusted.problem:
            self.notes.append(f"{trusted.problem}; its settings and waivers are not applied (closure stops on it)")
        self.off_by = "--no-require" if self.options.no_require else trusted.turns_off(quest.root)
        if config.configured is not None:
            self.notes += [ignored.note() for ignored in from_quest(config.configured)[1]]

    def decide_enforced(self, quest: Quest) -> None:
        """Whether the gate is enforced: on in the root's quest.yaml, ``--require``, or on anywhere
        the gate can see (a worktree's or a committed quest.yaml); never under a trusted off."""
        scope, require, off = self.scope, self.options.require, self.off_by is not None
        seen: Seen | None = None
        if scope.gates_pending and not require and not off:
            seen = None if quest.experience_distill else toggle_seen(quest)
            refuse_unseen_toggle(quest, seen)
        seen_on = seen is not None and seen.on_at is not None
        self.enforced = (quest.experience_distill or require or seen_on) and not off
        if seen is not None and seen.on_at is not None:
            self.notes.append(
                f"experience_distill is not on in the root's quest.yaml, but it is on in {seen.on_at}: "
                "once on anywhere the gate can see, it stays on (a trusted --no-require turns the gate off)"
            )

    def stop_where_unseen(self, quest: Quest, config: QuestConfig, trusted: Trusted) -> None:
        """Closure stops on a configuration or git history it cannot read; the actions only the
        quest accepts, and the clones' findings, join the report."""
        scope = self.scope
        if scope.gates_pending and config.configured is not None:
            refuse_unread(quest.root, config.configured)
            self.findings.extend(quest_only_actions(quest, trusted.actions, config.actions))
        if scope.can_fail and quest.is_git:
            self.findings.extend(clone_findings(quest, scope))
            if scope.gates_pending:
                refuse_unread_git(self.findings)

    def count_pending(self, cov: Coverage) -> None:
        """Each pending run: an error where the gate is enforced, else a note that it is not."""
        if not self.scope.gates_pending:
            return
        severity = ERROR if self.enforced else INFO
        self.findings.extend(
            pending_finding(run, cov.listed_by_invalid.get(run.artifact_id, []), severity, self.encoding)
            for run in cov.pending
        )
        if not self.enforced:
            self.notes.append(
                f"the closure gate is not enforced: {self.off_by} (a trusted setting) turns it off"
                if self.off_by
                else OFF_NOTE
            )

    def apply_waivers(self, quest: Quest, config: QuestConfig, trusted: Trusted) -> None:
        """Mark what the trusted waivers (and the quest's, when accepted) waive; the quest's
        configuration problems join the report."""
        accepted_by = ACCEPT_FLAG if self.options.accept_quest_waivers else None
        self.findings = waive(self.findings, quest.root, config.waivers, accepted_by=accepted_by, trusted=trusted) + (
            config.configured.problems if config.configured is not None else []
        )
        self.findings.sort(key=Finding.sort_key)
        if self.scope.can_fail and any(f.rule == WAIVER_PROPOSED.id for f in self.findings):
            self.notes.append(
                f"the quest proposes waivers, which waive nothing until its owner accepts them: "
                f"{accept_command(quest.root)}"
            )

    def report(self, quest: Quest, cov: Coverage) -> GateReport:
        """The verdict and everything the reporters show; the staged cards' findings come last."""
        scope, findings = self.scope, self.findings
        known = set(findings)  # the quest's cards were read from their folder too
        staged = [f for f in self.options.staged_findings if f not in known]
        never_fails = not scope.can_fail or (scope.gates_pending and not self.enforced)
        ok = (never_fails or not any(f.fails for f in findings)) and not any(f.fails for f in staged)
        pending_ids = {run.artifact_id for run in cov.pending}
        return GateReport(
            command=scope.command,
            scope=scope,
            ok=ok,
            findings=findings + staged,
            quest=quest,
            enforced=self.enforced,
            completed_runs=sorted(cov.completed, key=lambda r: r.artifact_id),
            pending=sorted(cov.pending, key=lambda r: r.artifact_id),
            baselined=sorted(self.baselined.runs, key=lambda r: r.artifact_id),
            baselines=[entry.as_dict() for entry in self.baselined.entries],
            reviews=sorted(cov.reviews, key=lambda r: r.artifact_id),
            listed_by_invalid={rid: reviews for rid, reviews in cov.listed_by_invalid.items() if rid in pending_ids},
            finalization_reasons=list(self.options.finalization),
            notes=self.notes,
            home=self.home_path,
            cards=self.cards,
            review_encoding=self.encoding,
            waived_by=waived_sources(findings + staged),
        )


def evaluate(
    quest: Quest | Path | str | Location,
    command: str | Scope = "check",
    options: GateOptions | None = None,
    **asked: Any,
) -> GateReport:
    """The gate's verdict on ``quest`` (a path inside it, or a loaded ``Quest``) in the scope
    ``command`` names, asked with ``options``; ``asked`` are ``GateOptions`` fields given as
    keywords (``evaluate(path, "closure", home=...)``), which replace the options' own. Each
    field's meaning: ``engine.options``; which of them may lower the verdict: docs/threat-model.md."""
    return Gate(quest, scope_of(command), replace(options or GateOptions(), **_checked(asked))).run()


def _checked(asked: dict[str, Any]) -> dict[str, Any]:
    """``evaluate``'s keywords, each of its type (a path is checked where it is resolved), else the
    ``QuestError`` naming the first that is not: the API's bad input, never a ``TypeError`` later."""
    for name, value in asked.items():
        if name in _FLAGS and not isinstance(value, bool):
            raise QuestError(f"{name} must be True or False, not {shown(value, 60)}")
        kind = _LISTS.get(name)
        if kind is None or (value is None and name == "refs"):
            continue
        items = tuple(value) if isinstance(value, Iterable) and not isinstance(value, (str, bytes)) else None
        if items is None or not all(isinstance(item, kind) for item in items):
            raise QuestError(f"{name} must be a list of {kind.__name__}, not {shown(value, 60)}")
        asked[name] = items
    return asked


_FLAGS = ("require", "no_require", "cache", "accept_quest_waivers")
_LISTS: dict[str, type] = {"refs": str, "finalization": str, "staged_findings": Finding}
