"""Text at scale: lists wrapped between items (a path is never split), findings that share rule,
severity and hint shown once, then their places. Everything here takes text already ``printable``.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

from ds_gate.model.findings import Finding
from ds_gate.reporters.escape import printable
from ds_gate.reporters.view import View

_STYLE = {"error": "red", "warning": "yellow"}


def wrap_items(head: str, items: list[str], width: int, indent: str = "      ") -> list[str]:
    """``head`` then ``items`` joined by ", ", broken between items so each line fits ``width``."""
    lines: list[str] = []
    line, fresh = head, True
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "")
        gap = "" if fresh else " "
        if not fresh and len(line) + len(gap) + len(piece) > width:
            lines.append(line)
            line, gap = indent, ""
        line += gap + piece
        fresh = False
    lines.append(line)
    return lines


def wrap_text(text: str, width: int, indent: str = "  ") -> list[str]:
    """A sentence wrapped at spaces, words never broken; a line too long only because of its paths
    stays whole (breaking before a path leaves a stub like "installed" on a line of its own)."""
    if len(text) <= width or sum(len(word) + 1 for word in text.split(" ") if "/" not in word) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False) or [
        text
    ]


class Hanging(NamedTuple):
    """A head line the text reporter wraps at the width, continuing under ``indent``."""

    text: str
    indent: str


def wrap_hanging(text: str, width: int, indent: str) -> list[str]:
    """A line wrapped at spaces, continued under ``indent``; a long word (a path) is never split."""
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False, drop_whitespace=True
    ) or [text]


def finding_lines(finding: Finding, view: View, indent: str = "", *, in_group: bool = False) -> list[str]:
    """A finding as a few lines, each field escaped on its own (the line breaks here are ours). In
    a group, severity, rule and hint are the group's line."""
    where = printable(finding.path) if finding.path else "(quest)"
    if finding.line:
        where += f":{finding.line}"
    severity = f"waived {finding.severity}" if finding.waived is not None else finding.severity
    painted = view.paint(severity, _STYLE.get(finding.severity, "dim")) if finding.waived is None else severity
    label = "" if in_group else f"{painted} [{printable(finding.rule)}] "
    lines = [f"{indent}{where}: {label}{printable(finding.message)}"]
    if finding.pointer:
        lines.append(f"{indent}    at {printable(finding.pointer)}")
    if finding.waived is not None:
        lines.append(f"{indent}    waived: {printable(finding.waived)}")
    elif finding.hint and not in_group:
        lines.append(f"{indent}    hint: {printable(finding.hint)}")
    return lines


def grouped(findings: list[Finding]) -> list[list[Finding]]:
    """Findings that share rule, severity and hint, in order; a waived one alone (its own reason)."""
    groups: dict[object, list[Finding]] = {}
    for n, finding in enumerate(findings):
        key: object = (finding.rule, finding.severity, finding.hint) if finding.waived is None else n
        groups.setdefault(key, []).append(finding)
    return list(groups.values())


def findings_block(findings: list[Finding], view: View) -> list[str]:
    """Each finding alone, or a group: the rule and its hint once, then each place."""
    out: list[str] = []
    for group in grouped(findings):
        if len(group) == 1:
            out.extend(finding_lines(group[0], view))
            continue
        first = group[0]
        severity = view.paint(first.severity, _STYLE.get(first.severity, "dim"))
        out.append(f"{severity} [{printable(first.rule)}] in {len(group)} places:")
        if first.hint:
            out.extend(wrap_text(f"    hint: {printable(first.hint)}", view.width, "          "))
        for finding in group:
            out.extend(finding_lines(finding, view, "  ", in_group=True))
    return out
