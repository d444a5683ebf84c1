"""``--format text``: for people at a terminal and for the hook output a committer reads.
Every finding says where, what rule, and what to do; grouping is ``wrapping``'s and ``pending``'s,
width, colour and quietness the ``View``'s.
"""

from __future__ import annotations

import functools
from typing import Any

from ds_gate.config.baselines import COVERAGE_BASELINED
from ds_gate.config.waivers import WAIVER_PROPOSED
from ds_gate.kernel.counting import counted
from ds_gate.model.findings import INFO, WARNING, Finding
from ds_gate.model.records import Card
from ds_gate.model.reports import (
    AgentInstallReport,
    DoctorReport,
    DocumentsReport,
    GateReport,
    LineageReport,
    RecallReport,
    RecentReport,
    Report,
)
from ds_gate.reporters.escape import printable
from ds_gate.reporters.pending import HOOKS, PENDING_RULE, asks_review, pending_lines, pending_table, rejection_ids
from ds_gate.reporters.view import View
from ds_gate.reporters.wrapping import Hanging, finding_lines, findings_block, wrap_hanging, wrap_items, wrap_text

__all__ = ["HOOKS", "PENDING_RULE", "TextReporter", "format_finding", "pending_table", "summary_line"]


def summary_line(report: Report) -> str:
    errors = sum(f.fails for f in report.findings if f.rule != PENDING_RULE)
    warnings = sum(f.severity == WARNING and f.waived is None for f in report.findings)
    waived = sum(f.waived is not None for f in report.findings)
    verdict = "OK" if report.ok else "FAILED"
    counts = [counted(errors, "error"), counted(warnings, "warning")] + ([f"{waived} waived"] if waived else [])
    proposed = sum(f.rule == WAIVER_PROPOSED.id for f in report.findings)  # the quest's, not accepted
    counts += [f"{counted(proposed, 'quest waiver')} proposed, not accepted"] if proposed else []
    if isinstance(report, DoctorReport):
        fails, warns = (sum(c.status == status for c in report.checks) for status in ("fail", "warn"))
        counts = [counted(fails, "failed check"), counted(warns, "warning")]
    if isinstance(report, GateReport):
        if report.scope.gates_pending:
            verdict = ("PASSED" if report.ok else "REJECTED") if report.enforced else "PASSED (gate off)"
        if report.ok and report.waived_by:  # a waiver lowered the verdict: the verdict says whose
            verdict += f" (waived: {'; '.join(report.waived_by)})"
        if listed_errors(report):  # a listing never fails, but what it found is not OK
            verdict = "ERRORS (listed; exit 0)"
            counts[0] += f" (check and closure fail on {'it' if errors == 1 else 'them'})"
        baselined = f", {len(report.baselined)} baselined" if report.baselines else ""  # a baseline applies
        counts.insert(
            0,
            f"{len(report.pending)} of {counted(len(report.completed_runs), 'completed run')} pending distill review"
            + baselined,
        )
    return f"ds-gate {report.command}: {verdict} - {', '.join(counts)}"


def listed_errors(report: Report) -> bool:
    """A report that cannot fail (``candidates``) yet holds errors: its verdict is not "OK"."""
    return (
        isinstance(report, GateReport)
        and not report.scope.can_fail
        and any(f.fails for f in report.findings if f.rule != PENDING_RULE)
    )


def format_finding(finding: Finding) -> str:
    """A finding as a few lines (the pytest plugin's failure text)."""
    return "\n".join(finding_lines(finding, View()))


def _finalizes(reasons: list[str], by: str) -> str:
    what = "this push finalizes the quest: it sends " if by == "push" else "this commit finalizes the quest: it stages "
    return what + "; ".join(reasons)


def _cards_line(cards: list[Card], home: str) -> str:
    lessons = sum(card.is_experience for card in cards)
    return f"  memory cards checked: {len(cards)} ({lessons} with claim/lineage){home}"


@functools.singledispatch
def head_lines(report: Report) -> list[Any]:
    """What a report says before its findings: a line is a string, a list (its head, then items)
    or a ``Hanging`` line, which the reporter wraps to the width."""
    return []


@head_lines.register
def _(report: DocumentsReport) -> list[str]:
    out = [_finalizes(report.finalization_reasons, "commit")] if report.finalization_reasons else []
    return [*out, *_entries(report.mcp_servers, ALSO)] if report.mcp_servers else out


ALSO = "ds-gate's tools on DeepScientist's own servers, approved as it approves its own"


def _entries(entries: dict[str, dict[str, Any]], why: str = "") -> list[str]:
    """Each runner's entry, one line a line, each made safe to show: printed as it must be pasted
    (issue 27); Codex's approvals for ``install --deepscientist`` follow its own entry."""
    labels = {"codex": "Codex", "opencode": "OpenCode"}
    out: list[str] = []
    for name, entry in entries.items():
        out += ["", f"{labels.get(name, name)}: add to {entry['file']}{f' ({why})' if why else ''}:", ""]
        out += entry["snippet"].rstrip("\n").splitlines()
        if entry.get("deepscientist_snippet"):
            out += ["", f"{labels.get(name, name)}, with ds-gate install --deepscientist: also add ({ALSO}):", ""]
            out += entry["deepscientist_snippet"].rstrip("\n").splitlines()
    return [*out, ""]


@head_lines.register
def _(report: AgentInstallReport) -> list[str]:
    out = [
        f"{'unchanged' if path in report.unchanged else 'wrote'} {path}"
        for path in sorted((*report.written, *report.unchanged))
    ]
    return [*out, *_entries(report.mcp_servers)]


@head_lines.register
def _(report: GateReport) -> list[Any]:
    out: list[Any] = []
    quest, scope = report.quest, report.scope
    if scope.shows_quest:
        out.append(
            f"quest {quest.quest_id} at {quest.root} (experience_distill: {'on' if quest.experience_distill else 'off'})"
        )
        out.append(["  workspaces: ", *(ws.rel for ws in quest.workspaces)])
    if report.cards and scope.shows_cards:
        out.append(_cards_line(report.cards, f", home {report.home}" if report.home else ""))
    out += [Hanging(f"baseline: {f.message}", "  ") for f in report.findings if f.rule == COVERAGE_BASELINED.id]
    if report.finalization_reasons and scope.finalizes:
        out.append(_finalizes(report.finalization_reasons, scope.finalizes))
        if report.pending and report.enforced:
            out.append("(ordinary checkpoints are never blocked by pending runs; finalization commits are)")
    return out


@head_lines.register
def _(report: LineageReport) -> list[str]:
    out = [f"DeepScientist home {report.home}"] if report.home is not None else []
    if report.cards:
        out.append(_cards_line(report.cards, ""))
    return out


@head_lines.register
def _(report: RecallReport) -> list[str]:
    lines = []
    for n, item in enumerate(report.results, start=1):
        why = (
            f"{counted(item['overlap'], 'tag')}: {', '.join(item['matched_tags'])}"
            if item["overlap"]
            else (f"text match {item['lexical_score']:.2f}" if "lexical_score" in item else "recent")
        )
        lines.append(f"{n:>3}. {item['card_id']}  [{item['scope']}/{item['kind']}]  {item['title'] or ''}  ({why})")
        lines += [f"     ! {p['rule']}: {p['message']}" for p in item.get("problems") or ()]
        lines += [f"     {line}" for line in (item.get("summary") or "").splitlines()]
        lines.append(f"     {item['path']}")
        copies = item.get("copies") or []
        if copies:
            lines.append(
                f"     {len(copies)} copies in {item.get('support', 1)} quest(s): "
                + ", ".join(f"{c.get('quest_id') or c['scope']} {c['path']}" for c in copies[1:])
            )
    if not lines and report.recall is not None and not report.recall.get("home_exists", True):
        return [f"(nothing found: the DeepScientist home {report.recall.get('home')} does not exist)"]
    return lines or ["(nothing found)"]


@head_lines.register
def _(report: RecentReport) -> list[Any]:
    lines = []
    for n, item in enumerate(report.results, start=1):
        what = (item.get("summary") or "")[:80]
        if item.get("kind") == "decision":  # the action and the verdict say more than a summary
            what = f"action={item.get('action') or '-'} verdict={item.get('verdict') or '-'}  {what}"[:100]
        lines.append(
            f"{n:>3}. {item['updated_at'] or '-':<25}  {item['kind'] or '-':<9}  {item['artifact_id']}  {what}"
        )
    return lines or ["(nothing found)"]


@head_lines.register
def _(report: DoctorReport) -> list[Any]:
    """A check's message continues under its name, a fix under its first word (``Hanging``)."""
    lines: list[Any] = [Hanging(f"ds-gate doctor: quest at {report.quest}", "  ")]
    for check in report.checks:
        lines.append(Hanging(f"{check.status:<4}  {check.name}: {check.message}", " " * 6))
        if check.fix and check.status != "ok":
            lines.append(Hanging(f"      fix: {check.fix}", " " * 11))
    return lines


def rejection_head(report: Report) -> list[str]:
    """For a commit or push a hook refuses: the verdict and the counts first, then the call."""
    ids = rejection_ids(report) if isinstance(report, GateReport) else []
    return [summary_line(report), *ids, ""]


class TextReporter:
    def __init__(self, view: View | None = None) -> None:
        self.view = view or View()

    def render(self, report: Report) -> str:
        """Every line escaped (``printable``); quiet: the errors and the verdict only."""
        view = self.view
        out = [] if view.quiet else self._head(report)
        if report.command in HOOKS and not report.ok:
            out = [printable(line) for line in rejection_head(report)] + out
        shown = [
            f for f in report.findings if f.rule != PENDING_RULE and (f.fails if view.quiet else f.severity != INFO)
        ]
        if shown:
            out.append("")
            out.extend(findings_block(shown, view))
        if isinstance(report, GateReport) and not (view.quiet and not asks_review(report)):
            out.extend(printable(line) for line in pending_lines(report))
        if not view.quiet:
            for note in report.notes:
                out.extend(wrap_text(printable(f"note: {note}"), view.width))
        out.append("")
        color = "red" if not report.ok else "yellow" if listed_errors(report) else "green"
        out.append(view.paint(printable(summary_line(report)), color))
        # no trailing space (recent's empty summary)
        return "\n".join(line.rstrip(" ") for line in out).lstrip("\n") + "\n"

    def _head(self, report: Report) -> list[str]:
        out = []
        for line in head_lines(report):
            if isinstance(line, list):  # a list to wrap: [head, item, item, ...]
                out.extend(wrap_items(printable(line[0]), [printable(item) for item in line[1:]], self.view.width))
            elif isinstance(line, Hanging):
                out.extend(wrap_hanging(printable(line.text), self.view.width, line.indent))
            else:
                out.append(printable(line))
        return out
