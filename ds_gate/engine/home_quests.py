"""Every quest of a DeepScientist home, judged one at a time in one process (``closure --all-quests``).

What is loaded once and what is held: docs/ci-many-quests.md. Each quest is read, judged and
reduced to one ``QuestRow`` before the next is read, so a home is never held whole. The
summary's shape (``summary``) is what ``--format json`` prints; the text and Markdown forms are
rendered from it (``reporters.summary``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.model.findings import SCHEMA_VERSION
from ds_gate.model.reports import GateReport, LineageReport
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN

EXIT_OK, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
Row = TypeVar("Row")


@dataclass(frozen=True, slots=True)
class QuestRow:
    """One quest's line of the summary: its verdict, counted."""

    quest: str  # the folder's name under quests/
    quest_id: str | None
    path: str
    enforced: bool
    completed: int
    pending: int
    errors: int
    ok: bool
    exit_code: int  # 0 passed, 1 failed, 2 unreadable
    problem: str | None = None  # why it could not be read


def home_quests(home: Path) -> list[Path]:
    """The quest folders of ``home/quests``, sorted (a link to a folder counts, as in ``pytest --ds-gate``).
    A home without a readable ``quests/`` folder is a usage error, with its fix."""
    folder = home / "quests"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise QuestError(
            f"{home} is not a DeepScientist home: cannot list {folder} ({exc.strerror or exc})",
            "pass --home DIR, the folder that holds quests/",
            "; ",
        ) from None
    return [Path(e.path) for e in entries if e.is_dir()]


def row_of(name: str, report: GateReport) -> QuestRow:
    """``errors``: the failing findings other than pending runs, which ``pending`` counts (as the text verdict does)."""
    errors = sum(1 for finding in report.findings if finding.fails and finding.rule != COVERAGE_PENDING_RUN.id)
    return QuestRow(
        name,
        report.quest.quest_id,
        str(report.quest.root),
        report.enforced,
        len(report.completed_runs),
        len(report.pending),
        errors,
        report.ok,
        EXIT_OK if report.ok else EXIT_FAILED,
    )


def reduce_each(
    quests: list[Path],
    judge: Callable[[Path], GateReport],
    reduce: Callable[[str, GateReport], Row],
    unreadable: Callable[[Path, str], Row],
    progress: Callable[[int, int, str], None] | None = None,
) -> Iterator[Row]:
    """Each quest judged by ``judge`` and reduced to its row by ``reduce``, the report dropped
    before the next is read; a quest that cannot be read (``QuestError``, ``GitError``) is the
    row ``unreadable`` makes of its path and why. The closure summary and ``ds-gate report``
    (``engine.health``) differ only in their rows."""
    for n, path in enumerate(quests):
        if progress is not None:
            progress(n, len(quests), path.name)
        try:
            yield reduce(path.name, judge(path))
        except (QuestError, GitError) as exc:
            yield unreadable(path, str(exc))


def _unreadable(path: Path, problem: str) -> QuestRow:
    return QuestRow(path.name, None, str(path), False, 0, 0, 1, False, EXIT_UNREADABLE, problem)


def judge_each(
    quests: list[Path], judge: Callable[[Path], GateReport], progress: Callable[[int, int, str], None] | None = None
) -> Iterator[QuestRow]:
    """Each quest judged by ``judge`` and reduced to its summary row; an unreadable one has exit code 2."""
    return reduce_each(quests, judge, row_of, _unreadable, progress)


@dataclass(frozen=True, slots=True)
class LineageRow:
    """The home's own line: the lineage of its global cards, as ``pytest --ds-gate=HOME`` judges
    them (``home::lineage``), so the two whole-home routes judge the same things."""

    cards: int
    errors: int
    ok: bool
    exit_code: int
    problem: str | None = None
    rules: tuple[str, ...] = ()  # the failing findings' rules, each once


def judge_lineage(judge: Callable[[], LineageReport]) -> LineageRow:
    try:
        report = judge()
    except (QuestError, GitError) as exc:
        return LineageRow(0, 1, False, EXIT_UNREADABLE, str(exc))
    failing = [finding for finding in report.findings if finding.fails]
    rules = tuple(dict.fromkeys(finding.rule for finding in failing))
    return LineageRow(len(report.cards), len(failing), not failing, EXIT_FAILED if failing else EXIT_OK, None, rules)


def exit_code(rows: list[QuestRow], lineage: LineageRow | None = None) -> int:
    """The worst quest's (and the home lineage's): 2 if any is unreadable, else 1 if any failed, else 0."""
    return max([row.exit_code for row in rows] + ([lineage.exit_code] if lineage else []), default=EXIT_OK)


def summary(
    home: Path, rows: list[QuestRow], command: str = "closure", lineage: LineageRow | None = None
) -> dict[str, Any]:
    """The summary as data: the JSON form, and what the text and Markdown forms show.
    ``command``: the one each quest was judged by (``closure`` or ``check``); ``lineage``: the
    home's global cards (``home_lineage``, additive)."""
    code = exit_code(rows, lineage)
    return {
        "schema_version": SCHEMA_VERSION,
        "command": command,
        "home": str(home),
        "ok": code == EXIT_OK,
        "exit_code": code,
        "totals": {
            "quests": len(rows),
            "passed": sum(r.exit_code == EXIT_OK for r in rows),
            "failed": sum(r.exit_code == EXIT_FAILED for r in rows),
            "unreadable": sum(r.exit_code == EXIT_UNREADABLE for r in rows),
            "completed": sum(r.completed for r in rows),
            "pending": sum(r.pending for r in rows),
            "errors": sum(r.errors for r in rows),
        },
        "quests": [asdict(row) for row in rows],
        "home_lineage": asdict(lineage) if lineage is not None else None,
    }
