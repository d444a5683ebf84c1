"""``--format sarif``: SARIF 2.1.0 for code-scanning tools (GitHub code scanning, IDEs).

One descriptor per rule that has a finding, one result per finding, each with a location (paths
relative to ``%SRCROOT%``, the quest root; a branch tip's file at its path in the repository, the
branch in the result's ``properties`` and a ``logicalLocations`` entry; see ``_placed``). A waived finding is a result with a ``suppression``, so the audit trail survives.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ds_gate.kernel.layout import branch_of
from ds_gate.kernel.version import __version__
from ds_gate.model.findings import ERROR, INFO, WARNING, Finding, rule_named
from ds_gate.model.reports import GateReport, LineageReport, Report
from ds_gate.reporters.escape import json_text
from ds_gate.reporters.github import checkout_path
from ds_gate.reporters.shared import INFORMATION_URI, SARIF_SCHEMA

_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}


def _root(report: Report) -> str | None:
    if isinstance(report, GateReport):
        return report.quest.root.as_uri().rstrip("/") + "/"
    if isinstance(report, LineageReport) and report.home is not None:
        return report.home.as_uri().rstrip("/") + "/"
    return None


def _descriptor(rule_id: str) -> dict[str, Any]:
    rule = rule_named(rule_id)
    out: dict[str, Any] = {"id": rule_id}
    if rule is not None:
        out["shortDescription"] = {"text": rule.summary}
        out["defaultConfiguration"] = {"level": _LEVEL.get(rule.severity, "note")}
        out["properties"] = {"level": rule.level}
    return out


def _location(path: str, line: int | None, rooted: bool) -> dict[str, Any]:
    absolute = path.startswith("/")
    artifact: dict[str, Any] = {
        "uri": "file://" + quote(path, errors="surrogateescape") if absolute else quote(path, errors="surrogateescape")
    }
    if rooted and not absolute:
        artifact["uriBaseId"] = "%SRCROOT%"
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if line:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def _placed(report: Report, finding: Finding) -> tuple[str, dict[str, str]]:
    """(the file a result is placed at, what says where it is when that is not the checkout): every
    result has a location, or ``upload-sarif`` rejects the file ("expected at least one location").
    A branch tip's ``<ref>:<path>`` is the file's path in the repository, its branch beside it; a
    finding about the whole quest is placed at its ``quest.yaml``, any other at the root."""
    if finding.path and finding.path.startswith("refs/") and ":" in finding.path:
        ref, inside = finding.path.split(":", 1)
        checked_out = checkout_path(report, finding.path)[1] is None  # the branch the quest root has out
        return inside, ({} if checked_out else {"branch": branch_of(ref), "ref": ref})
    if finding.path:
        return finding.path, {}
    return ("quest.yaml" if isinstance(report, GateReport) else "."), {}


def _result(report: Report, finding: Finding, index: dict[str, int], rooted: bool) -> dict[str, Any]:
    path, branch = _placed(report, finding)
    message = f"{finding.path}: {finding.message}" if branch else finding.message
    if finding.pointer:
        message += f" (at {finding.pointer})"
    if finding.hint:
        message += f"; hint: {finding.hint}"
    out: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": _LEVEL.get(finding.severity, "note"),
        "message": {"text": message},
    }
    location = _location(path, finding.line, rooted)
    if branch:  # the branch as a logical location too: what a viewer that knows no properties shows
        location["logicalLocations"] = [{"name": branch["branch"], "fullyQualifiedName": finding.path}]
        out["properties"] = dict(branch)
    out["locations"] = [location]
    if finding.subject:
        out["partialFingerprints"] = {"dsGateSubject/v1": f"{finding.rule}:{finding.subject}"}
    if finding.waived is not None:
        out["suppressions"] = [{"kind": "external", "status": "accepted", "justification": finding.waived}]
    return out


def sarif_log(report: Report) -> dict[str, Any]:
    rules: list[str] = []
    for finding in report.findings:
        if finding.rule not in rules:
            rules.append(finding.rule)
    index = {rule: n for n, rule in enumerate(rules)}
    root = _root(report)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "ds-gate",
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_descriptor(rule) for rule in rules],
            }
        },
        "results": [_result(report, f, index, root is not None) for f in report.findings],
        "invocations": [
            {
                "executionSuccessful": True,
                "exitCode": 0 if report.ok else 1,
                "properties": {"command": report.command, "notes": list(report.notes)},
            }
        ],
    }
    if root is not None:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


class SarifReporter:
    encoding = "utf-8"  # SARIF is JSON: UTF-8 whatever the locale

    def render(self, report: Report) -> str:
        return json_text(sarif_log(report)) + "\n"
