"""Waivers: the escape hatch that leaves an audit trail.

A quest may keep ``.ds-gate.yaml`` at its root::

    waivers:
      - rule: coverage.pending-run
        id: run-51c9ad07              # or path: <the finding's path>
        reason: smoke test of the data loader; nothing to learn
        expires: 2026-12-31           # optional; the waiver holds through that day

A waived finding is never dropped: it keeps its place in every format, marked with the
waiver's reason, and only stops failing the gate. A waiver without a reason is invalid
and waives nothing; an expired one waives nothing and is an error itself; one that
matches no finding is a warning, so stale waivers do not pile up unseen.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

from ds_gate.model.findings import DISCIPLINE, ERROR, WARNING, Finding, Rule

WAIVER_INVALID = Rule("waiver.invalid", ERROR, DISCIPLINE,
    "`.ds-gate.yaml` (or `[tool.ds-gate]` in `pyproject.toml`) or a waiver in it is invalid (an unknown key; a waiver "
    "needs a rule, an id or path, and a reason); it waives nothing and sets no default")
WAIVER_EXPIRED = Rule("waiver.expired", ERROR, DISCIPLINE,
    "a waiver past its `expires` date; it no longer waives anything")
WAIVER_UNUSED = Rule("waiver.unused", WARNING, DISCIPLINE,
    "a waiver that matches no finding")

FILE = ".ds-gate.yaml"


@dataclass(frozen=True, slots=True)
class Waiver:
    index: int
    rule: str
    reason: str
    id: str | None = None
    path: str | None = None
    expires: date | None = None
    line: int | None = None

    def matches(self, finding: Finding) -> bool:
        if finding.rule != self.rule:
            return False
        if self.path is not None and finding.path != self.path and tree_path(finding.path) != tree_path(self.path):
            return False
        if self.id is not None:
            stem = PurePosixPath(finding.path).stem if finding.path else None
            return self.id in (finding.subject, stem)
        return True

    def describe(self) -> str:
        return f"{self.reason} (waiver {FILE} waivers[{self.index}]" + (f", until {self.expires})" if self.expires else ")")


def tree_path(path: str | None) -> str | None:
    """A finding's path as the quest's tree holds it, whatever the source read it from:
    ``<ref>:artifacts/…`` (the git source) and ``.ds/worktrees/<slug>/artifacts/…`` (a
    worktree folder) are both ``artifacts/…``, so a waiver means the same locally and in CI."""
    if path is None:
        return None
    if path.startswith("refs/") and ":" in path:
        path = path.split(":", 1)[1]
    parts = path.split("/")
    if len(parts) > 3 and parts[0] == ".ds" and parts[1] == "worktrees":
        path = "/".join(parts[3:])
    return path


def load_waivers(root: Path) -> tuple[list[Waiver], list[Finding]]:
    """The quest's waivers and what is wrong with its ``.ds-gate.yaml``."""
    path = root / FILE
    if not path.is_file() and not path.is_symlink():
        return [], []
    from ds_gate.sources.location import linked_outside

    target = linked_outside(root, path)
    if target is not None:
        return [], [_invalid(f"{FILE} is a symbolic link to {target}, outside the quest; not followed", None)]
    from ds_gate.io import fs

    try:
        text = fs.read_file(path).decode("utf-8-sig")
    except fs.TooLarge as exc:
        return [], [_invalid(f"{FILE} is {exc.strerror}", None)]
    except (OSError, UnicodeDecodeError) as exc:
        return [], [_invalid(f"{FILE} cannot be read: {exc}", None)]
    return parse_waivers(text)


def parse_waivers(text: str) -> tuple[list[Waiver], list[Finding]]:
    """The waivers a ``.ds-gate.yaml`` text declares, and what is wrong with it."""
    from ds_gate.sources.memory import FrontmatterError, jsonable

    try:
        data = _load(text)
    except FrontmatterError as exc:
        return [], [_invalid(f"{FILE} is not valid YAML: {exc}", exc.line)]
    if data is None:
        return [], []
    try:
        data = jsonable(data)
    except (ValueError, RecursionError) as exc:  # an alias bomb, or nesting past the recursion limit
        return [], [_invalid(f"{FILE} cannot be read: {exc}", None)]

    def line(parts: tuple[str | int, ...]) -> int | None:
        from ds_gate.io.yamldoc import line_of

        return line_of(text, parts)

    problems = _schema(data, line)
    bad = {int(f.pointer.split("/")[2]) for f in problems if f.pointer.startswith("/waivers/")}
    if problems and not any(f.pointer.startswith("/waivers/") for f in problems):
        return [], problems  # the file as a whole is wrong: no waiver is trusted
    waivers: list[Waiver] = []
    for i, entry in enumerate(data.get("waivers") or []):
        if i in bad:
            continue
        try:
            expires = date.fromisoformat(entry["expires"]) if entry.get("expires") else None
        except ValueError:  # the schema's pattern admits 2026-02-30
            problems.append(_invalid(f"waivers[{i}].expires is {entry['expires']!r}, which is no date", line(("waivers", i))))
            continue
        waivers.append(Waiver(i, entry["rule"].strip(), entry["reason"].strip(), entry.get("id"), entry.get("path"), expires,
                              line(("waivers", i))))
    return waivers, problems


def _load(text: str) -> Any:
    from ds_gate.io.yamldoc import YamlError, load_yaml
    from ds_gate.sources.memory import FrontmatterError

    try:
        return load_yaml(text)
    except YamlError as exc:
        raise FrontmatterError(exc.problem, exc.line) from None


def _schema(data: Any, line: Any) -> list[Finding]:
    from ds_gate.rules.schema import schema_findings

    found = schema_findings("ds_gate_config", data, FILE, line, WAIVER_INVALID, document=FILE)
    return [dataclasses.replace(f, hint=(f.hint or "") + "; this waiver waives nothing until it is fixed") for f in found]


def _invalid(message: str, line: int | None) -> Finding:
    return WAIVER_INVALID.at(
        FILE,
        message,
        hint=f"fix {FILE}; until then no waiver in it applies",
        line=line,
    )


def apply_waivers(findings: list[Finding], waivers: list[Waiver], today: date | None = None, *, audit: bool = True) -> list[Finding]:
    """The findings with waived ones marked, plus (with ``audit``) findings about the
    waivers themselves: expired ones, and ones that matched nothing. Callers that see only
    part of the findings (the commit hook's staged files) pass ``audit=False``."""
    today = today or date.today()
    used: set[int] = set()
    expired_hit: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        matching = [w for w in waivers if w.matches(finding)]
        live = [w for w in matching if w.expires is None or w.expires >= today]  # a renewed waiver beats an expired one
        if live:
            used.add(live[0].index)
            out.append(dataclasses.replace(finding, waived=live[0].describe()))
        else:
            expired_hit.update(w.index for w in matching)
            out.append(finding)
    for w in waivers if audit else []:
        if w.expires is not None and w.expires < today:
            hit = " and no longer waives the finding it named" if w.index in expired_hit else ""
            out.append(WAIVER_EXPIRED.at(
                FILE,
                f"waivers[{w.index}] ({w.rule}, {w.id or w.path}) expired on {w.expires}{hit}",
                hint="fix what it waived, or renew it with a new expires date and a reason that still holds",
                pointer=f"/waivers/{w.index}/expires",
                line=w.line,
            ))
        elif w.index not in used:
            out.append(WAIVER_UNUSED.at(
                FILE,
                f"waivers[{w.index}] ({w.rule}, {w.id or w.path}) matches no finding",
                hint="remove it: what it waived is fixed (or the rule id or id is misspelt)",
                pointer=f"/waivers/{w.index}",
                line=w.line,
            ))
    return out


def waive(findings: list[Finding], root: Path, *, audit: bool = True) -> list[Finding]:
    """Apply the quest's ``.ds-gate.yaml`` waivers (marked, never dropped)."""
    if not (root / FILE).is_file() and not (root / FILE).is_symlink():
        return findings
    waivers, problems = load_waivers(root)
    return apply_waivers(findings, waivers, audit=audit) + (problems if audit else [])
