"""The pending runs in text, as one group: the ``next:`` call that covers them, an id a line under
its workspace, or a table where the gate asks no review (``candidates``, a gate that is off, waived
runs). Each id is printed once; a hundred pending runs are a hundred short lines, not one long one.
"""

from __future__ import annotations

from ds_gate.kernel.counting import counted
from ds_gate.model.records import Run
from ds_gate.model.reports import GateReport
from ds_gate.model.review_call import hand_written, record_call
from ds_gate.reporters.escape import printable
from ds_gate.rules.coverage import COVERAGE_PENDING_RUN

PENDING_RULE = COVERAGE_PENDING_RUN.id  # shown as one group, not one finding per run


def pending_table(
    runs: list[Run], listed_by_invalid: dict[str, list[str]] | None = None, waived: dict[str, str] | None = None
) -> list[str]:
    listed_by_invalid = listed_by_invalid or {}
    waived = waived or {}
    rows = [  # escaped before the columns are measured, so an escaped id still lines up
        (
            printable(run.artifact_id),
            printable(run.run_id or "-"),
            printable(run.run_kind or "-"),
            "(root)" if run.workspace == "." else printable(run.workspace),
        )
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


def _listing(runs: list[Run], listed_by_invalid: dict[str, list[str]]) -> list[str]:
    """The ids one a line under a comment naming their workspace, each with its run id and kind."""
    by_workspace: dict[str, list[Run]] = {}
    for run in runs:
        by_workspace.setdefault(run.workspace, []).append(run)
    width = max(len(repr(run.artifact_id)) for run in runs) + 1
    id_width = max(len(run.run_id or "-") for run in runs)
    lines = []
    for workspace, group in by_workspace.items():
        lines.append(f"# {'(root)' if workspace == '.' else workspace} ({len(group)})")
        for run in group:
            comment = f"{run.run_id or '-':<{id_width}}  {run.run_kind or '-'}"
            if run.artifact_id in listed_by_invalid:
                comment += f"  (listed by invalid review {', '.join(listed_by_invalid[run.artifact_id])})"
            lines.append(f"{repr(run.artifact_id) + ',':<{width}}  # {comment}")
    return lines


def next_step(
    runs: list[Run], encoding: str, listed_by_invalid: dict[str, list[str]] | None = None, quest_id: str | None = None
) -> list[str]:
    """The agent's call that covers ``runs``, then the same review as a person writes it by hand."""
    listing = _listing(runs, listed_by_invalid or {})
    what = (
        "this run, then record a review that covers it"
        if len(runs) == 1
        else (f"these {len(runs)} runs, then record a review that covers them")
    )
    return [
        f"next: run the distill skill over {what}:",
        *(f"  {line}" for line in record_call([run.artifact_id for run in runs], encoding, listing=listing)),
        *(f"  {line}" for line in hand_written(len(runs), encoding, quest_id)),
    ]


def waived_runs(report: GateReport) -> dict[str, str]:
    return {f.subject: f.waived for f in report.findings if f.rule == PENDING_RULE and f.waived and f.subject}


def asks_review(report: GateReport) -> list[Run]:
    """The runs the gate asks a review for (pending, not waived), or none when it asks none."""
    if not (report.enforced and report.scope.gates_pending):
        return []
    waived = waived_runs(report)
    return [run for run in report.pending if run.artifact_id not in waived]


def pending_lines(report: GateReport) -> list[str]:
    """The pending runs: the call that covers those the gate asks for, and a table of the rest."""
    if not (report.pending and report.scope.lists_pending):
        return []
    waived = waived_runs(report)
    asked = asks_review(report)
    asked_ids = {run.artifact_id for run in asked}
    rest = [run for run in report.pending if run.artifact_id not in asked_ids]
    refused = report.command in HOOKS and not report.ok  # a hook's: the call is at the top (``rejection_head``)
    out = []
    if rest or not refused:
        out += [
            "",
            f"pending distill review ({len(report.pending)} of {counted(len(report.completed_runs), 'completed run')}):",
        ]
    if rest:
        out.extend(pending_table(rest, report.listed_by_invalid, waived))
    if asked and not refused:
        out += [""] if rest else []
        out.extend(next_step(asked, report.review_encoding, report.listed_by_invalid, report.quest.quest_id))
    return out


HOOKS = ("commit-check", "pre-push")


def rejection_ids(report: GateReport) -> list[str]:
    """For a refused commit or push, whose stderr is all the agent sees (``checkpoint.stderr``): the fixing call."""
    asked = asks_review(report)
    return next_step(asked, report.review_encoding, report.listed_by_invalid, report.quest.quest_id) if asked else []
