"""Findings and the rules they come from: the vocabulary every layer reports in.

A rule is declared once, as a ``Rule`` object, in the module that checks it; findings are
made from it (``RULE.at(path, message)``), so a rule id is never a loose string and its
severity, level, summary and default hint live in one place. Declaring a rule registers
it, which is how the rules table (``docs/rules.md``) is derived from the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ds_gate.kernel.errors import shown

# Bumped only when a key of the JSON output changes meaning or disappears.
SCHEMA_VERSION = 1

ERROR = "error"
WARNING = "warning"
INFO = "info"

# A rule's level: would DeepScientist itself refuse what it finds (``contract``), or is it
# ds-gate's own, stricter discipline (``discipline``)? The commit hook's policy is a table
# over these two words, so a checkpoint DeepScientist accepted is never blocked by ds-gate's
# stricter rules alone.
CONTRACT = "contract"
DISCIPLINE = "discipline"
LEVELS = (CONTRACT, DISCIPLINE)
SEVERITIES = (ERROR, WARNING, INFO)


def then_hint(hint: str | None, more: str) -> str:
    """A hint with ``more`` after it: a new sentence after a question or a full stop
    (``did you mean run-a? Then record it``), else after a semicolon; ``more`` alone without one."""
    if not hint:
        return more
    return f"{hint} {more[:1].upper()}{more[1:]}" if hint.endswith(("?", ".")) else f"{hint}; {more}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the user should know, placed precisely enough to fix without searching.

    ``rule`` is a stable id (part of the JSON API); ``path`` is relative to the quest
    root (or as given on the command line for ``validate``); ``pointer`` is an RFC 6901
    JSON pointer into that file; ``line`` is 1-based and may be unknown.
    """

    rule: str
    severity: str
    path: str | None
    message: str
    hint: str | None = None
    pointer: str = ""
    line: int | None = None
    subject: str | None = None  # the artifact, run or card id it is about, when not the file's stem
    waived: str | None = None  # the reason of the waiver that covers it; a waived finding never fails
    # the level where it differs from its rule's: DeepScientist main records any `kind: report`, so
    # what a rule finds in a review recorded as a report is ds-gate's discipline there, never its contract
    level: str | None = None

    @property
    def fails(self) -> bool:
        return self.severity == ERROR and self.waived is None

    def sort_key(self) -> tuple[str, int, str, str]:
        """Reports list findings by file, then line: the order a reader fixes them in."""
        return (self.path or "", self.line or 0, self.rule, self.pointer)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "pointer": self.pointer,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
            "subject": self.subject,
            "waived": self.waived,
        }


class RuleConflict(ValueError):
    """Two different rules declared under one id: ids are an API, so this is a bug."""


_REGISTRY: dict[str, Rule] = {}


@dataclass(frozen=True, slots=True)
class Rule:
    """A stable rule id with what a reader needs to know about it.

    ``severity`` is the usual one; a finding may lower it where context says so (a pending
    run is an error only where the gate is enforced). ``hint`` is the default fix.
    """

    id: str
    severity: str
    level: str
    summary: str
    hint: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"rule {self.id}: severity must be one of {SEVERITIES}, not {shown(self.severity)}")
        if self.level not in LEVELS:
            raise ValueError(f"rule {self.id}: level must be one of {LEVELS}, not {shown(self.level)}")
        known = _REGISTRY.setdefault(self.id, self)
        if known != self:  # a module imported twice declares an equal rule: that is fine
            raise RuleConflict(f"rule id {shown(self.id)} is declared twice, differently: {known} and {self}")

    def at(
        self,
        path: str | None,
        message: str,
        *,
        hint: str | None = None,
        pointer: str = "",
        line: int | None = None,
        subject: str | None = None,
        severity: str | None = None,
    ) -> Finding:
        """A finding of this rule; ``hint`` replaces the rule's default fix."""
        return Finding(
            rule=self.id,
            severity=severity or self.severity,
            path=path,
            message=message,
            hint=hint if hint is not None else self.hint,
            pointer=pointer,
            line=line,
            subject=subject,
        )

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "level": self.level, "summary": self.summary}


def rule_named(rule_id: str) -> Rule | None:
    """The rule declared under ``rule_id`` (a plugin's too, once its module is loaded)."""
    return _REGISTRY.get(rule_id)
