"""The pytest side of the gate, loaded only under ``--ds-gate``: one item per check.

The quests are read once, by the process that runs ``pytest_configure`` first: the only
process in a serial run, the controller under pytest-xdist. When xdist starts workers (a
session that also collects a lab's own tests: one of the gate's checks only is taken back
by ``distribute``), the results go to a JSON file whose path reaches every worker through
``workerinput``, so workers build the same items from the same data without reading the
quests again (pytest-mypy's pattern).

Items per quest (``quest-<id>``):
- ``coverage::<run artifact id>`` per completed run: fails while the run is pending and
  the gate is enforced;
- ``decision::<artifact id>`` per decision record: fails on its findings;
- ``card::<id>`` per quest-scope card, ``global-card::<id>`` per global card its reviews
  name: fail on their findings (schema, lineage);
- ``status``: every finding that belongs to no single item (quest.yaml, indexes, waivers).
Per home given as a path: ``lineage::<card id>`` per experience card, and ``status``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ds_gate.cli.options import GateOptions
from ds_gate.engine.gate import evaluate
from ds_gate.engine.lineage import evaluate_lineage
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.model import Finding, GateReport, LineageReport
from ds_gate.pytest.distribute import distributed
from ds_gate.pytest.guard import is_home, quest_folders
from ds_gate.reporters.escape import printable
from ds_gate.reporters.text import format_finding
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN
from ds_gate.sources.problems import INPUT_UNREADABLE

RESULTS_KEY = "ds_gate_results"
PENDING = COVERAGE_PENDING_RUN.id


class CheckFailed(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(f"{len(findings)} finding(s)")
        self.findings = findings


def _item(name: str, file: Path | str | None, findings: list[Finding], note: str = "") -> dict[str, Any]:
    """An item's spec; its name (ids and card names from the quest) is escaped, since pytest
    prints node ids raw on the terminal."""
    return {"name": printable(name), "file": str(file) if file else None, "findings": [f.as_dict() for f in findings],
            "note": printable(note)}


def quest_items(report: GateReport) -> list[dict[str, Any]]:
    """Every finding of a quest's closure report, given to exactly one item."""
    quest = report.quest
    left = list(report.findings)

    def take(match: Any) -> list[Finding]:
        mine = [f for f in left if match(f)]
        for f in mine:
            left.remove(f)
        return mine

    items = []
    pending = {run.artifact_id for run in report.pending}
    for run in report.completed_runs:
        found = take(lambda f, run=run: (f.rule == PENDING and f.subject == run.artifact_id) or f.path == run.path)
        note = "pending (the gate is not enforced for this quest)" if run.artifact_id in pending and not report.enforced else ""
        items.append(_item(f"coverage::{run.artifact_id}", quest.root / run.path, found, note))
    for decision in quest.decisions.values():
        found = take(lambda f, d=decision: f.path == d.path)
        items.append(_item(f"decision::{decision.artifact_id}", quest.root / decision.path, found))
    seen: set[str] = set()
    for card in report.cards:
        name = f"{'card' if card.scope == 'quest' else 'global-card'}::{card.card_id or card.display}"
        if name in seen:
            name += f"[{card.display}]"
        seen.add(name)
        items.append(_item(name, card.path, take(lambda f, c=card: f.path == c.display)))
    items.append(_item("status", quest.root, left))
    return items


def lineage_items(report: LineageReport) -> list[dict[str, Any]]:
    left = list(report.findings)
    items = []
    for card in report.cards:
        mine = [f for f in left if f.path == card.display]
        left = [f for f in left if f.path != card.display]
        items.append(_item(f"lineage::{card.card_id or card.display}", card.path, mine))
    items.append(_item("status", report.home, left))
    return items


def compute(options: GateOptions) -> tuple[list[dict[str, Any]], list[GateReport]]:
    """(groups of items, the quests' reports), each quest read once."""
    home, require, source, refs = options.home, options.require, options.source, options.refs
    groups: list[dict[str, Any]] = []
    reports: list[GateReport] = []
    names: set[str] = set()

    def group(name: str, items: list[dict[str, Any]]) -> None:
        base, n = name, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.add(name)
        groups.append({"name": name, "items": items})

    for given in options.paths:
        path = Path(given).expanduser().resolve()
        targets = [(p, home or str(path)) for p in quest_folders(path / "quests")] if is_home(path) else [(path, home)]
        for quest_path, quest_home in targets:
            try:
                report = evaluate(quest_path, "closure", require=require, home=quest_home, source=source, refs=refs,
                                  cache=options.cache, no_require=options.no_require,
                                  accept_quest_waivers=options.accept_quest_waivers)
            except (QuestError, GitError) as exc:
                failure = INPUT_UNREADABLE.at(str(quest_path), f"not a readable quest: {exc}",
                                              hint="point --ds-gate at a quest root or a DeepScientist home")
                group(f"quest-{quest_path.name}", [_item("status", quest_path, [failure])])
                continue
            reports.append(report)
            group(f"quest-{report.quest.quest_id}", quest_items(report))
        if is_home(path):
            group("home", lineage_items(evaluate_lineage(home or path)))
    return groups, reports


class CheckItem(pytest.Item):
    def __init__(self, *, spec: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.findings = [Finding(**f) for f in spec["findings"]]

    def runtest(self) -> None:
        shown = [f for f in self.findings if not f.fails]
        if shown or self.spec["note"]:
            text = "\n".join([self.spec["note"], *map(format_finding, shown)]).strip()
            self.add_report_section("call", "ds-gate", text)
        failing = [f for f in self.findings if f.fails]
        if failing:
            raise CheckFailed(failing)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CheckFailed):
            return "\n".join(format_finding(f) for f in excinfo.value.findings)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.spec["file"] or self.name, None, f"ds-gate {self.nodeid}"


class QuestCollector(pytest.Collector):
    def __init__(self, *, items: list[dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.specs = items

    def collect(self) -> Iterator[CheckItem]:
        for spec in self.specs:
            yield CheckItem.from_parent(self, name=spec["name"], spec=spec)


class GateSession:
    """Registered on pytest's plugin manager when ``--ds-gate`` is given."""

    def __init__(self, config: pytest.Config, options: GateOptions, note: str | None = None) -> None:
        self.config = config
        self.options = options
        self.note = note  # why -n was not used (distribute.take_back), for the header
        self.reports: list[GateReport] | None = None
        self.results_file: str | None = None
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None and RESULTS_KEY in workerinput:
            with open(workerinput[RESULTS_KEY], encoding="utf-8") as f:
                self.groups: list[dict[str, Any]] = json.load(f)
        else:
            self.groups, self.reports = compute(options)
            if distributed(config):  # workers will start: they read the results, not the quests
                fd, self.results_file = tempfile.mkstemp(prefix="ds-gate-", suffix=".json")
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(self.groups, f)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:  # pytest-xdist, on the controller
        if self.results_file is not None:
            node.workerinput[RESULTS_KEY] = self.results_file

    def pytest_report_header(self) -> list[str]:
        return [self.note] if self.note else []

    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
        for group in self.groups:
            collector = QuestCollector.from_parent(session, name=group["name"], nodeid=group["name"], items=group["items"])
            items.extend(collector.collect())

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.results_file is not None:
            try:
                os.unlink(self.results_file)
            except OSError:
                pass

    def first_report(self) -> GateReport:
        if self.reports is None:  # an xdist worker: the fixtures read the quest themselves, once
            _, self.reports = compute(self.options)
        if not self.reports:
            pytest.fail("ds-gate: no readable quest among --ds-gate paths", pytrace=False)
        return self.reports[0]
