"""``--format text``: for people at a terminal and for the hook output a committer reads.

Every finding says where (file:line, JSON pointer), what rule, and what to do. Pending
runs are shown as one table rather than one finding each, followed by the next step.
"""

from __future__ import annotations

import functools

from ds_gate.model.findings import INFO, WARNING, Finding
from ds_gate.model.records import Card, Run
from ds_gate.model.reports import (
    AgentInstallReport,
    DocumentsReport,
    GateReport,
    LineageReport,
    RecallReport,
    RecentReport,
    Report,
)
from ds_gate.reporters.escape import printable

PENDING_RULE = "coverage.pending-run"  # shown as one table, not one finding per run


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(report: Report) -> str:
    errors = sum(f.fails for f in report.findings if f.rule != PENDING_RULE)
    warnings = sum(f.severity == WARNING and f.waived is None for f in report.findings)
    waived = sum(f.waived is not None for f in report.findings)
    verdict = "OK" if report.ok else "FAILED"
    counts = [_count(errors, "error"), _count(warnings, "warning")] + ([f"{waived} waived"] if waived else [])
    if isinstance(report, GateReport):
        if report.scope.gates_pending:
            verdict = ("PASSED" if report.ok else "REJECTED") if report.enforced else "PASSED (gate off)"
        counts.insert(0, f"{len(report.pending)} of {len(report.completed_runs)} completed runs pending distill review")
    return f"ds-gate {report.command}: {verdict} - {', '.join(counts)}"


def format_finding(finding: Finding) -> str:
    """A finding as a few lines; each field is escaped on its own, because the line breaks
    here are ours and any in a file name or a quoted value are the quest's."""
    where = printable(finding.path) if finding.path else "(quest)"
    if finding.line:
        where += f":{finding.line}"
    severity = f"waived {finding.severity}" if finding.waived is not None else finding.severity
    text = f"{where}: {severity} [{printable(finding.rule)}] {printable(finding.message)}"
    if finding.pointer:
        text += f"\n    at {printable(finding.pointer)}"
    if finding.waived is not None:
        text += f"\n    waived: {printable(finding.waived)}"
    elif finding.hint:
        text += f"\n    hint: {printable(finding.hint)}"
    return text


def pending_table(runs: list[Run], listed_by_invalid: dict[str, list[str]] | None = None,
                  waived: dict[str, str] | None = None) -> list[str]:
    listed_by_invalid = listed_by_invalid or {}
    waived = waived or {}
    rows = [  # escaped before the columns are measured, so an escaped id still lines up
        (printable(run.artifact_id), printable(run.run_id or "-"), printable(run.run_kind or "-"),
         "(root)" if run.workspace == "." else printable(run.workspace))
        for run in runs
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for run, (a, b, c, d) in zip(runs, rows, strict=True):
        line = f"  {a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}"
        if run.artifact_id in listed_by_invalid:
            line += f"  (listed by invalid review {', '.join(listed_by_invalid[run.artifact_id])})"
        if run.artifact_id in waived:
            line += f"  (waived: {waived[run.artifact_id]})"
        lines.append(line)
    return lines


def next_step(runs: list[Run], encoding: str) -> list[str]:
    from ds_gate.model.review_call import record_call

    return ["next: run the distill skill over these runs, then record a review that covers them:",
            *(f"  {line}" for line in record_call([run.artifact_id for run in runs], encoding))]


def _finalizes(reasons: list[str], by: str) -> str:
    what = "this push finalizes the quest: it sends " if by == "push" else "this commit finalizes the quest: it stages "
    return what + "; ".join(reasons)


def _cards_line(cards: list[Card], home: str) -> str:
    lessons = sum(card.is_experience for card in cards)
    return f"  memory cards checked: {len(cards)} ({lessons} with claim/lineage){home}"


@functools.singledispatch
def head_lines(report: Report) -> list[str]:
    """What a report says before its findings: particular to each report type."""
    return []


@head_lines.register
def _(report: DocumentsReport) -> list[str]:
    return [_finalizes(report.finalization_reasons, "commit")] if report.finalization_reasons else []


@head_lines.register
def _(report: AgentInstallReport) -> list[str]:
    out = [f"{'unchanged' if path in report.unchanged else 'wrote'} {path}"
           for path in sorted((*report.written, *report.unchanged))]
    labels = {"codex": "Codex", "opencode": "OpenCode"}
    for name, entry in report.mcp_servers.items():
        out += ["", f"{labels.get(name, name)}: add to {entry['file']}:", "", entry["snippet"].rstrip("\n")]
    return [*out, ""]


@head_lines.register
def _(report: GateReport) -> list[str]:
    out = []
    quest, scope = report.quest, report.scope
    if scope.shows_quest:
        out.append(f"quest {quest.quest_id} at {quest.root} (experience_distill: {'on' if quest.experience_distill else 'off'})")
        out.append(f"  workspaces: {', '.join(ws.rel for ws in quest.workspaces)}")
    if report.cards and scope.shows_cards:
        out.append(_cards_line(report.cards, f", home {report.home}" if report.home else ""))
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
        why = f"{item['overlap']} tag(s): {', '.join(item['matched_tags'])}" if item["overlap"] else (
            f"text match {item['lexical_score']:.2f}" if "lexical_score" in item else "recent")
        lines.append(f"{n:>3}. {item['card_id']}  [{item['scope']}/{item['kind']}]  {item['title'] or ''}  ({why})")
        if item.get("claim"):
            lines.append(f"     claim: {item['claim']}")
        lines.append(f"     {item['path']}")
    return lines or ["(nothing found)"]


@head_lines.register
def _(report: RecentReport) -> list[str]:
    lines = [f"{n:>3}. {item['updated_at'] or '-':<25}  {item['kind'] or '-':<9}  {item['artifact_id']}  "
             f"{(item.get('summary') or '')[:80]}" for n, item in enumerate(report.results, start=1)]
    return lines or ["(nothing found)"]


def pending_lines(report: GateReport) -> list[str]:
    """The pending runs as one table, and the call that covers them."""
    if not (report.pending and report.scope.lists_pending):
        return []
    out = ["", f"pending distill review ({len(report.pending)} of {len(report.completed_runs)} completed runs):"]
    waived = {f.subject: f.waived for f in report.findings if f.rule == PENDING_RULE and f.waived and f.subject}
    out.extend(pending_table(report.pending, report.listed_by_invalid, waived))
    unwaived = [run for run in report.pending if run.artifact_id not in waived]
    refused = report.command in HOOKS and not report.ok  # the call is at the top already (rejection_head)
    if report.enforced and report.scope.gates_pending and unwaived and not refused:
        out.append("")
        out.extend(next_step(unwaived, report.review_encoding))
    return out


HOOKS = ("commit-check", "pre-push")


def rejection_head(report: Report) -> list[str]:
    """For a commit or push a hook refuses, read by an agent that sees only the hook's
    stderr (DeepScientist hands it back as ``checkpoint.stderr``): the verdict and the
    counts first, then the pending ids, then the call that fixes them."""
    out = [summary_line(report)]
    if not isinstance(report, GateReport):
        return [*out, ""]
    unwaived = [run for run in report.pending
                if not any(f.rule == PENDING_RULE and f.subject == run.artifact_id and f.waived for f in report.findings)]
    if unwaived and report.enforced:
        out.append(f"pending runs: {', '.join(run.artifact_id for run in unwaived)}")
        out.extend(next_step(unwaived, report.review_encoding))
    return [*out, ""]


class TextReporter:
    def render(self, report: Report) -> str:
        """Every line escaped (``printable``): a quest's names, ids and values cannot break a
        line, move the cursor or colour the terminal; the line breaks are the reporter's own."""
        out = [printable(line) for line in head_lines(report)]
        if report.command in HOOKS and not report.ok:
            out = [printable(line) for line in rejection_head(report)] + out
        shown = [f for f in report.findings if f.rule != PENDING_RULE and f.severity != INFO]
        if shown:
            out.append("")
            out.extend(format_finding(f) for f in shown)
        if isinstance(report, GateReport):
            out.extend(printable(line) for line in pending_lines(report))
        out.extend(printable(f"note: {note}") for note in report.notes)
        out.append("")
        out.append(printable(summary_line(report)))
        return "\n".join(out).lstrip("\n") + "\n"
