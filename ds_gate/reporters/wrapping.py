"""Text at scale: long lists wrapped to the width, findings that share a fix shown once.

A quest with 2,000 runs and 20 worktrees once printed a 475-character workspaces line
and the same hint 57 times. Lists break between items (a path is never split), and
findings with one rule, severity and hint print that hint once, then their places.
Everything here takes text already escaped by ``printable``.
"""

from __future__ import annotations

import textwrap

from ds_gate.model.findings import Finding
from ds_gate.reporters.escape import printable
from ds_gate.reporters.view import View

_STYLE = {"error": "red", "warning": "yellow"}


def wrap_items(head: str, items: list[str], width: int, indent: str = "      ") -> list[str]:
    """``head`` then ``items`` joined by ", ", broken between items so each line fits
    ``width`` (an item longer than the width, a long path, has a line of its own)."""
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
    """A sentence wrapped at spaces; words (paths, ids) are never broken. A line that is
    too long only because of the paths in it stays whole: breaking before a path leaves a
    stub like "installed" on a line of its own and helps nobody grep for it."""
    if len(text) <= width or sum(len(word) + 1 for word in text.split(" ") if "/" not in word) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False) or [
        text
    ]


class Hanging:
    """A head line the text reporter wraps at the width, continuing under ``indent``."""

    __slots__ = ("text", "indent")

    def __init__(self, text: str, indent: str) -> None:
        self.text = text
        self.indent = indent


def wrap_hanging(text: str, width: int, indent: str) -> list[str]:
    """A line wrapped at spaces to ``width``, its continuations under ``indent`` (doctor's
    checks and fixes); a word longer than the line (a deep path) has a line of its own,
    never split, so that it can still be copied whole."""
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False, drop_whitespace=True
    ) or [text]


def finding_lines(finding: Finding, view: View, indent: str = "", *, in_group: bool = False) -> list[str]:
    """A finding as a few lines; each field is escaped on its own, because the line breaks
    here are ours and any in a file name or a quoted value are the quest's. In a group, the
    severity, rule and hint are the group's line, so a place says where and what only."""
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
    """Findings that share rule, severity and hint (and are not waived: each waiver has its
    own reason), in the order their first one comes."""
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
