"""Waivers: the escape hatch that leaves an audit trail, and that only a trusted hand opens.

A quest may keep ``.ds-gate.yaml`` at its root::

    waivers:
      - rule: coverage.pending-run
        id: run-51c9ad07              # or path: <the finding's path>
        reason: smoke test of the data loader; nothing to learn
        expires: 2026-12-31           # optional; the waiver holds through that day

The quest is written by an agent that is not fully trusted, so a waiver written there is a
*proposal*: it is printed (``waiver.proposed``: its reason, expiry and who may accept it)
and lowers no verdict until a trusted setting accepts the quest's waivers
(``--accept-quest-waivers``, or the quest named in ``accept_quest_waivers`` of the user's
configuration, ``ds_gate.config.settings``). Waivers in that configuration are trusted and apply as
written. A rule that exists to fail closed (the gate cannot see or read something: links
in trees, unreadable or oversized inputs, missing objects) is never waived, from anywhere
(``waiver.unwaivable``).

A waived finding is never dropped: it keeps its place in every format, marked with the
waiver's reason and who accepted it, and only stops failing the gate. A waiver without a
reason is invalid and waives nothing; an expired one waives nothing and is an error itself;
one that matches no finding is a warning, so stale waivers do not pile up unseen.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ds_gate.config.failclosed import (
    ACCEPT_FLAG,
    ACCEPTED_MARK,
    accept_hint,
    unwaivable,
)
from ds_gate.config.settings import load
from ds_gate.io.yamldoc import YamlError, line_of, load_yaml
from ds_gate.kernel.layout import QUEST_CONFIG as FILE  # the name waivers are known by
from ds_gate.model.findings import DISCIPLINE, ERROR, WARNING, Finding, Rule
from ds_gate.rules.schema import schema_findings
from ds_gate.sources.memory import FrontmatterError, jsonable

if TYPE_CHECKING:
    from ds_gate.config.settings import Trusted

WAIVER_INVALID = Rule("waiver.invalid", ERROR, DISCIPLINE,
    "`.ds-gate.yaml` (or `[tool.ds-gate]` in `pyproject.toml`) or a waiver in it is invalid (an unknown key; a waiver "
    "needs a rule, an id or path, and a reason); it waives nothing and sets no default")
WAIVER_EXPIRED = Rule("waiver.expired", ERROR, DISCIPLINE,
    "a waiver past its `expires` date; it no longer waives anything")
WAIVER_UNUSED = Rule("waiver.unused", WARNING, DISCIPLINE,
    "a waiver that matches no finding")
WAIVER_PROPOSED = Rule("waiver.proposed", WARNING, DISCIPLINE,
    "a waiver written inside the quest that matches a finding: a proposal, which waives nothing until a trusted "
    "setting accepts the quest's waivers (`--accept-quest-waivers`, or `accept_quest_waivers` in the user's "
    "configuration)")
WAIVER_UNWAIVABLE = Rule("waiver.unwaivable", WARNING, DISCIPLINE,
    "a waiver that names a rule which exists to fail closed (the gate cannot see or read something); it waives "
    "nothing, wherever it is written")



@dataclass(frozen=True, slots=True)
class Waiver:
    index: int
    rule: str
    reason: str
    id: str | None = None
    path: str | None = None
    expires: date | None = None
    line: int | None = None
    origin: str = FILE  # FILE: written inside the quest; else the trusted configuration file it came from
    quest: str | None = None  # a trusted waiver's quest (resolved); None: every quest
    accepted_by: str | None = None  # a quest waiver's acceptance (the trusted setting), else it is a proposal

    @property
    def applies(self) -> bool:
        """Whether it may lower a verdict: a trusted waiver, or a quest waiver a trusted setting accepted."""
        return self.origin != FILE or self.accepted_by is not None

    @property
    def audited(self) -> bool:
        """Whether this quest answers for it: its own, or a trusted one meant for this quest only."""
        return self.origin == FILE or self.quest is not None

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
        until = f", until {self.expires}" if self.expires else ""
        if self.origin != FILE:
            return f"{self.reason} (trusted waiver {self.origin} waivers[{self.index}]{until})"
        return f"{self.reason} (waiver {FILE} waivers[{self.index}]{until}{ACCEPTED_MARK}{self.accepted_by})"

    @property
    def key(self) -> tuple[str, int]:
        return self.origin, self.index


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


def waivers_of(text: str | None, problem: str | None) -> tuple[list[Waiver], list[Finding]]:
    """The quest's waivers and what is wrong with its ``.ds-gate.yaml``, read already by
    ``config.quest.read_quest_config`` (a link out of the quest, a file too large or unreadable
    is its ``problem``, in the words here)."""
    if problem is not None:
        return [], [_invalid(problem, None)]
    return parse_waivers(text) if text is not None else ([], [])


def parse_waivers(text: str, *, accepted_by: str | None = None) -> tuple[list[Waiver], list[Finding]]:
    """The waivers a ``.ds-gate.yaml`` text declares, and what is wrong with it. They are
    proposals unless ``accepted_by`` names the trusted setting that accepts them."""
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
                              line(("waivers", i)), accepted_by=accepted_by))
    return waivers, problems


def _load(text: str) -> Any:
    try:
        return load_yaml(text)
    except YamlError as exc:
        raise FrontmatterError(exc.problem, exc.line) from None


def _schema(data: Any, line: Any) -> list[Finding]:
    found = schema_findings("ds_gate_config", data, FILE, line, WAIVER_INVALID, document=FILE)
    return [dataclasses.replace(f, hint=(f.hint or "") + "; this waiver waives nothing until it is fixed") for f in found]


def _invalid(message: str, line: int | None) -> Finding:
    return WAIVER_INVALID.at(
        FILE,
        message,
        hint=f"fix {FILE}; until then no waiver in it applies",
        line=line,
    )


def apply_waivers(findings: list[Finding], waivers: list[Waiver], today: date | None = None, *, audit: bool = True,
                  accept_hint: str = "") -> list[Finding]:
    """The findings with waived ones marked, plus findings about the waivers themselves:
    proposals (quest waivers no trusted setting accepted) and waivers of unwaivable rules
    always; with ``audit``, expired ones and ones that matched nothing. Callers that see
    only part of the findings (the commit hook's staged files) pass ``audit=False``."""
    today = today or date.today()
    used: set[tuple[str, int]] = set()
    expired_hit: set[tuple[str, int]] = set()
    proposed: dict[tuple[str, int], int] = {}
    refused: set[tuple[str, int]] = set()
    out: list[Finding] = []
    for finding in findings:
        matching = [w for w in waivers if w.matches(finding)]
        if matching and unwaivable(finding.rule):
            refused.update(w.key for w in matching)
            out.append(finding)
            continue
        live = [w for w in matching if w.expires is None or w.expires >= today]  # a renewed waiver beats an expired one
        applying = [w for w in live if w.applies]
        if applying:
            used.add(applying[0].key)
            out.append(dataclasses.replace(finding, waived=applying[0].describe()))
            continue
        for w in live:
            proposed[w.key] = proposed.get(w.key, 0) + 1
        expired_hit.update(w.key for w in matching if w not in live)
        out.append(finding)
    for w in waivers:
        named = f"waivers[{w.index}] ({w.rule}, {w.id or w.path})"
        where = FILE if w.origin == FILE else w.origin
        if w.key in refused:
            out.append(WAIVER_UNWAIVABLE.at(
                where, f"{named} names {w.rule}, which fails closed (the gate cannot see or read what it names), so "
                "it waives nothing",
                hint="make what it names readable to the gate (the finding's hint says how), and remove the waiver",
                pointer=f"/waivers/{w.index}/rule", line=w.line))
        elif w.key in proposed:
            until = f", until {w.expires}" if w.expires else ""
            out.append(WAIVER_PROPOSED.at(
                where, f"{named} proposes to waive {proposed[w.key]} finding(s): {w.reason!r}{until}. It was written "
                "inside the quest, so it waives nothing until the quest's owner accepts it with a trusted setting",
                hint=accept_hint or f"accept the quest's waivers with {ACCEPT_FLAG}, or name the quest in "
                "accept_quest_waivers of the user's configuration", pointer=f"/waivers/{w.index}", line=w.line))
        elif not audit or not w.audited:
            continue
        elif w.expires is not None and w.expires < today:
            hit = " and no longer waives the finding it named" if w.key in expired_hit else ""
            out.append(WAIVER_EXPIRED.at(
                where,
                f"{named} expired on {w.expires}{hit}",
                hint="fix what it waived, or renew it with a new expires date and a reason that still holds",
                pointer=f"/waivers/{w.index}/expires",
                line=w.line,
            ))
        elif w.key not in used:
            out.append(WAIVER_UNUSED.at(
                where,
                f"{named} matches no finding",
                hint="remove it: what it waived is fixed (or the rule id or id is misspelt)",
                pointer=f"/waivers/{w.index}",
                line=w.line,
            ))
    return out


def waive(findings: list[Finding], root: Path, own: tuple[list[Waiver], list[Finding]], *, audit: bool = True,
          accepted_by: str | None = None, trusted: Trusted | None = None) -> list[Finding]:
    """Apply the trusted waivers and the quest's ``.ds-gate.yaml`` waivers (marked, never
    dropped). The quest's are proposals unless ``accepted_by`` (a flag) or the trusted
    configuration accepts them. ``trusted``: the trusted settings (default: the user's file,
    ``settings.load``); one that cannot be used adds no waiver, which is only stricter. ``own``:
    the quest's waivers and their problems (``QuestConfig.waivers``)."""
    if trusted is None:
        trusted = load()
    usable = trusted.problem is None
    accepted_by = accepted_by or (trusted.accepts(root) if usable else None)
    waivers = [Waiver(**entry, origin=str(trusted.path)) for entry in trusted.waivers_for(root)] if usable else []
    waivers += [dataclasses.replace(w, accepted_by=accepted_by) for w in own[0]]
    problems = list(own[1])
    if not waivers:
        return findings + (problems if audit else [])
    hint = accept_hint(root, trusted.path)
    return apply_waivers(findings, waivers, audit=audit, accept_hint=hint) + (problems if audit else [])
