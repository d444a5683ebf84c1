"""``--format github``: workflow commands that GitHub Actions shows as annotations, their paths
relative to the current directory (the workspace root in Actions), the quest maybe a subfolder."""

from __future__ import annotations

import os

from ds_gate.kernel.layout import branch_of
from ds_gate.model.findings import ERROR, WARNING, Finding
from ds_gate.model.reports import GateReport, Report
from ds_gate.reporters.escape import printable, workflow_data, workflow_property
from ds_gate.reporters.text import summary_line

_LEVEL = {ERROR: "error", WARNING: "warning"}


def checkout_path(report: Report, path: str | None) -> tuple[str | None, str | None]:
    """(a file GitHub can show, or None; where the finding is when it is not in the checkout): a branch
    tip's ``<ref>:<path>`` is in the checkout only when that branch is checked out. SARIF places by this too."""
    if not path or not path.startswith("refs/") or ":" not in path:
        return path, None
    ref, inside = path.split(":", 1)
    if isinstance(report, GateReport) and report.quest.root_branch == branch_of(ref):
        return inside, None
    return None, path


class GithubReporter:
    def render(self, report: Report) -> str:
        lines = [self._annotation(report, f) for f in report.findings]
        lines.append(printable(summary_line(report)))
        return "\n".join(lines) + "\n"

    def _annotation(self, report: Report, finding: Finding) -> str:
        props = []
        path, elsewhere = checkout_path(report, finding.path)
        if path:
            if isinstance(report, GateReport) and not os.path.isabs(path):
                path = os.path.relpath(report.quest.root / path)
            props.append(f"file={workflow_property(printable(path))}")
            if finding.line:
                props.append(f"line={finding.line}")
        rule = printable(finding.rule)
        props.append(f"title={workflow_property(rule)}")
        message = printable(
            (f"{elsewhere}: " if elsewhere else "")
            + finding.message
            + (f" (at {finding.pointer})" if finding.pointer else "")
        )
        if finding.waived is not None:  # still shown, as a notice: the audit trail of the waiver
            props[-1] = f"title={workflow_property(rule + ' (waived)')}"
            message += f"\nwaived: {printable(finding.waived)}"
            return f"::notice {','.join(props)}::{workflow_data(message)}"
        if finding.hint:
            message += f"\nhint: {printable(finding.hint)}"
        return f"::{_LEVEL.get(finding.severity, 'notice')} {','.join(props)}::{workflow_data(message)}"
