"""The summary of many quests (``closure --all-quests``) as text, JSON or Markdown, and ``--format markdown``.

All three are rendered from the summary's data (``engine.home_quests.summary``), so they cannot
disagree. Markdown is for a CI step summary: what comes from a quest is escaped for Markdown and
HTML too, so a quest cannot draw its own row or a link.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

from ds_gate.config.baselines import COVERAGE_BASELINED
from ds_gate.model.reports import GateReport, Report
from ds_gate.reporters.escape import json_text, md, printable
from ds_gate.reporters.pending import PENDING_RULE
from ds_gate.reporters.shared import COLUMNS

MAX_FINDINGS = 50  # a step summary is read by a person: the rest is one line


def _verdict(row: dict[str, Any]) -> str:
    return "passed" if row["exit_code"] == 0 else "failed" if row["exit_code"] == 1 else "unreadable"


def _cells(row: dict[str, Any]) -> list[str]:
    return [
        printable(row["quest"]),
        "-" if row["enforced"] is None else "yes" if row["enforced"] else "no",
        str(row["completed"]),
        str(row["pending"]),
        str(row["errors"]),
        _verdict(row),
    ]


LINEAGE = "home::lineage"  # the home's own row: its global cards, as pytest --ds-gate=HOME names the item


def _lineage_row(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The home lineage's row, in the quests' shape (its runs are its quests', counted there)."""
    lineage = data.get("home_lineage")
    if not lineage:
        return []
    row = {"quest": LINEAGE, "quest_id": None, "enforced": None, "completed": "-", "pending": "-"}
    return [{**row, "errors": lineage["errors"], "exit_code": lineage["exit_code"], "problem": lineage["problem"]}]


def _headline(data: dict[str, Any]) -> str:
    t = data["totals"]
    word = "passed" if data["ok"] else "FAILED"
    lineage = data.get("home_lineage")
    home = (
        f"; home lineage {_verdict(lineage)} ({lineage['cards']} global card(s), {lineage['errors']} error(s))"
        if lineage
        else ""
    )
    return (
        f"ds-gate {data['command']}: {word}: {t['quests']} quest(s), {t['passed']} passed, {t['failed']} failed, "
        f"{t['unreadable']} unreadable; {t['pending']} of {t['completed']} completed run(s) pending{home}"
    )


def render_text(data: dict[str, Any]) -> str:
    quests = [*data["quests"], *_lineage_row(data)]
    rows = [list(COLUMNS), *(_cells(row) for row in quests)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) if i < 5 else cell
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    problems = [
        f"{printable(row['quest'])}: cannot read: {printable(row['problem'] or '')}" for row in quests if row["problem"]
    ]
    fix = f"run `ds-gate {data['command']} QUEST` for a quest's findings and their fixes" if not data["ok"] else ""
    if data.get("home_lineage") and data["home_lineage"]["exit_code"] == 1:
        fix += ("; " if fix else "") + f"`ds-gate lineage --home {printable(shlex.quote(data['home']))}` for the home's"
    return "\n".join([*lines, *problems, _headline(data), *([fix] if fix else [])]) + "\n"


def render_json(data: dict[str, Any]) -> str:
    return json_text(data) + "\n"


def _md_table(rows: list[dict[str, Any]]) -> Iterator[str]:
    yield "| " + " | ".join(COLUMNS) + " |"
    yield "|---|---|--:|--:|--:|---|"
    for row in rows:
        cells = _cells(row)
        cells[0] = md(row["quest"]) + (
            f" (id {md(row['quest_id'])})" if row["quest_id"] and row["quest_id"] != row["quest"] else ""
        )
        cells[5] = {"passed": "✅ passed", "failed": "❌ failed", "unreadable": "⚠️ unreadable"}[cells[5]]
        yield "| " + " | ".join(cells) + " |"


def render_markdown(data: dict[str, Any]) -> str:
    quests = [*data["quests"], *_lineage_row(data)]
    lines = [f"### {md(_headline(data))}", "", *_md_table(quests)]
    problems = [f"- {md(row['quest'])}: cannot read: {md(row['problem'] or '')}" for row in quests if row["problem"]]
    if problems:
        lines += ["", *problems]
    return "\n".join(lines) + "\n"


class MarkdownReporter:
    """``--format markdown`` for one report: a one-row table for a quest's gate, then the failing findings."""

    encoding = "utf-8"

    def render(self, report: Report) -> str:
        word = "passed" if report.ok else "FAILED"
        lines = [f"### ds-gate {md(report.command)}: {word}", ""]
        if isinstance(report, GateReport):
            row = {
                "quest": report.quest.root.name,
                "quest_id": report.quest.quest_id,
                "enforced": report.enforced,
                "completed": len(report.completed_runs),
                "pending": len(report.pending),
                "errors": sum(f.rule != PENDING_RULE for f in report.errors),  # pending runs: their own column
                "exit_code": 0 if report.ok else 1,
            }
            lines += [*_md_table([row]), ""]
            baselined = [f for f in report.findings if f.rule == COVERAGE_BASELINED.id]
            lines += [f"- baseline: {md(f.message)}" for f in baselined] + ([""] if baselined else [])
        failing = report.errors
        for finding in failing[:MAX_FINDINGS]:
            where = md(finding.path or "") + (f":{finding.line}" if finding.line else "")
            lines.append(f"- {md(finding.rule)} {where}: {md(finding.message)}")
        if len(failing) > MAX_FINDINGS:
            lines.append(f"- … and {len(failing) - MAX_FINDINGS} more (run ds\\-gate {md(report.command)} for all)")
        return "\n".join(lines).rstrip("\n") + "\n"
