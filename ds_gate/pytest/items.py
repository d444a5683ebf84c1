"""The pytest side of the gate, loaded only under ``--ds-gate``: a few items per quest, each quest read once.

A fixed set of items per quest (``units.QUEST_CHECKS``; ``home::lineage`` per home), not one per
run: pytest's per-item machinery costs ~2 ms an item, so one item per completed run made a
20,000-run quest ~25× the CLI's ``closure``. Being known from folder names alone, every process
collects the same node ids without reading a quest. Each finding goes to exactly one item and
is one of its JUnit properties (rule id = subject; ``coverage.pending-run`` names each pending run).
A quest is read when the first of its items runs (``judge``), and what its items report is kept
only until they have run: memory is bounded by one quest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from ds_gate.engine.gate import Gate, scope_of
from ds_gate.engine.lineage import evaluate_lineage
from ds_gate.engine.options import GateOptions
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.model import Finding, GateReport
from ds_gate.pytest.units import QUEST_CHECKS, Unit
from ds_gate.reporters.escape import printable
from ds_gate.reporters.text import format_finding
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN
from ds_gate.sources.problems import INPUT_UNREADABLE

PENDING = COVERAGE_PENDING_RUN.id


@dataclass(slots=True)
class Verdict:
    """One item's share of its unit's findings, with the lines shown when it passes."""

    findings: list[Finding] = field(default_factory=list)
    note: str = ""

    def properties(self) -> list[tuple[str, str]]:
        """JUnit ``<properties>``: rule id -> what it is about (a run's id, else the file)."""
        return [(f.rule, printable(f.subject or f.path or "")) for f in self.findings]


def evaluate_quest(unit: Unit, options: GateOptions) -> GateReport:
    """The quest's closure, asked with the session's options and the unit's home (a home given
    as a path is the home of its quests)."""
    return Gate(unit.path, scope_of("closure"), replace(options, home=unit.home)).run()


def split(report: GateReport) -> dict[str, Verdict]:
    """A quest's closure report as its four items: every finding given to exactly one."""
    runs = {str(run.path) for run in report.completed_runs}
    records = runs | {str(d.path) for d in report.quest.decisions.values()}
    cards = {card.display for card in report.cards}
    out = {check: Verdict() for check in QUEST_CHECKS}
    for f in report.findings:
        check = (
            "coverage"
            if f.rule == PENDING
            else "records"
            if f.path in records
            else "cards"
            if f.path in cards
            else "status"
        )
        out[check].findings.append(f)
    if report.pending and not report.enforced:
        ids = ", ".join(run.artifact_id for run in report.pending)
        out["coverage"].note = printable(
            f"{len(report.pending)} pending (the gate is not enforced for this quest): {ids}"
        )
    return out


def judge(unit: Unit, options: GateOptions) -> dict[str, Verdict]:
    """Read one unit and give each of its items its verdict. A quest that cannot be read
    fails every item of it with the same finding: nothing of it could be checked."""
    if unit.kind == "home":
        return {"lineage": Verdict(list(evaluate_lineage(unit.home or unit.path).findings))}
    try:
        return split(evaluate_quest(unit, options))
    except (QuestError, GitError) as exc:
        failure = INPUT_UNREADABLE.at(
            str(unit.path),
            f"not a readable quest: {exc}",
            hint=(exc.fix if isinstance(exc, QuestError) else None)
            or "point --ds-gate at a quest root or a DeepScientist home",
        )
        return {check: Verdict([failure]) for check in QUEST_CHECKS}


class CheckFailed(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(f"{len(findings)} finding(s)")
        self.findings = findings


class CheckItem(pytest.Item):
    def __init__(self, *, unit: Unit, check: str, gate: GateSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unit, self.check, self.gate = unit, check, gate

    def runtest(self) -> None:
        verdict = self.gate.verdict(self.unit, self.check)
        self.user_properties.extend(verdict.properties())
        shown = [f for f in verdict.findings if not f.fails]
        if shown or verdict.note:
            text = "\n".join([verdict.note, *map(format_finding, shown)]).strip()
            self.add_report_section("call", "ds-gate", text)
        failing = [f for f in verdict.findings if f.fails]
        if failing:
            raise CheckFailed(failing)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckFailed):
            findings = excinfo.value.findings
            pending = [printable(f.subject or f.path or "") for f in findings if f.rule == PENDING]
            head = [f"{len(pending)} completed run(s) pending: {', '.join(pending)}"] if pending else []
            return "\n".join([*head, *(format_finding(f) for f in findings)])
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.unit.path, None, f"ds-gate {self.nodeid}"


class UnitCollector(pytest.Collector):
    def __init__(self, *, unit: Unit, gate: GateSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unit, self.gate = unit, gate

    def collect(self) -> Iterator[CheckItem]:
        for check in self.unit.checks:
            yield CheckItem.from_parent(self, name=check, unit=self.unit, check=check, gate=self.gate)


class GateSession:
    """Registered on pytest's plugin manager when ``--ds-gate`` is given."""

    def __init__(self, config: pytest.Config, options: GateOptions, units: list[Unit], note: str | None = None) -> None:
        self.config = config
        self.options = options
        self.note = note  # why -n was not used (distribute.take_back), for the header
        self.units = units
        self.judged: dict[str, dict[str, Verdict]] = {}  # unit name -> its items' verdicts not yet reported
        self.first: GateReport | None = None

    def verdict(self, unit: Unit, check: str) -> Verdict:
        """This item's verdict, reading its unit when its first item runs; a unit's entry goes
        once its last item has taken its share (memory: the quests whose items are running)."""
        if unit.name not in self.judged:
            self.judged[unit.name] = judge(unit, self.options)
        left = self.judged[unit.name]
        verdict = left.pop(check)
        if not left:
            del self.judged[unit.name]
        return verdict

    def pytest_report_header(self) -> list[str]:
        return [self.note] if self.note else []

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        # collected as pytest's own collection does (its public hooks): reported, so the terminal's
        # "collected N items" counts them, and each item announced to the plugins that listen
        for unit in self.units:
            collector = UnitCollector.from_parent(session, name=unit.name, nodeid=unit.name, unit=unit, gate=self)
            report = collector.ihook.pytest_make_collect_report(collector=collector)
            for node in report.result:
                if isinstance(node, pytest.Item):
                    node.ihook.pytest_itemcollected(item=node)
                    items.append(node)
            collector.ihook.pytest_collectreport(report=report)

    def first_report(self) -> GateReport:
        """The first quest's closure report, for the fixtures: read once more, by the process
        that asks (a lab's own tests), and kept."""
        if self.first is None:
            quest = next((unit for unit in self.units if unit.kind == "quest"), None)
            with contextlib.suppress(QuestError, GitError):
                self.first = evaluate_quest(quest, self.options) if quest is not None else None
        if self.first is None:
            pytest.fail("ds-gate: no readable quest among --ds-gate paths", pytrace=False)
        return self.first
