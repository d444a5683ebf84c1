"""Waivers: the escape hatch that leaves an audit trail, and that only a trusted hand opens.

A waiver written in the quest's ``.ds-gate.yaml`` is a *proposal* (``waiver.proposed``), since
the quest's agent writes that file; it lowers no verdict until a trusted setting accepts the
quest's waivers (``config.settings``). The user's own waivers apply as written. A rule that
exists to fail closed is never waived (``waiver.unwaivable``), and a waived finding is marked,
never dropped. The format and every rule: docs/configuration.md, "Waivers".
"""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.config.failclosed import (
    ACCEPT_FLAG,
    accept_hint,
    unwaivable,
)
from ds_gate.config.settings import load
from ds_gate.config.waiver_file import Waiver
from ds_gate.kernel.errors import shown
from ds_gate.model.findings import DISCIPLINE, ERROR, WARNING, Finding, Rule

if TYPE_CHECKING:
    from ds_gate.config.settings import Trusted

WAIVER_EXPIRED = Rule(
    "waiver.expired", ERROR, DISCIPLINE, "a waiver past its `expires` date; it no longer waives anything"
)
WAIVER_UNUSED = Rule("waiver.unused", WARNING, DISCIPLINE, "a waiver that matches no finding")
WAIVER_PROPOSED = Rule(
    "waiver.proposed",
    WARNING,
    DISCIPLINE,
    "a waiver written inside the quest that matches a finding: a proposal, which waives nothing until a trusted "
    "setting accepts the quest's waivers (`--accept-quest-waivers`, or `accept_quest_waivers` in the user's "
    "configuration)",
)
WAIVER_UNWAIVABLE = Rule(
    "waiver.unwaivable",
    WARNING,
    DISCIPLINE,
    "a waiver that names a rule which exists to fail closed (the gate cannot see or read something); it waives "
    "nothing, wherever it is written",
)


def apply_waivers(
    findings: list[Finding],
    waivers: list[Waiver],
    today: date | None = None,
    *,
    audit: bool = True,
    accept_hint: str = "",
) -> list[Finding]:
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
        if w.key in refused:
            rule, at = WAIVER_UNWAIVABLE, "/rule"
            message = (
                f"{named} names {w.rule}, which fails closed (the gate cannot see or read what it names), so "
                "it waives nothing"
            )
            hint = "make what it names readable to the gate (the finding's hint says how), and remove the waiver"
        elif w.key in proposed:
            rule, at, until = WAIVER_PROPOSED, "", f", until {w.expires}" if w.expires else ""
            message = (
                f"{named} proposes to waive {proposed[w.key]} finding(s): {shown(w.reason)}{until}. It was written "
                "inside the quest, so it waives nothing until the quest's owner accepts it with a trusted setting"
            )
            hint = accept_hint or (
                f"accept the quest's waivers with {ACCEPT_FLAG}, or name the quest in "
                "accept_quest_waivers of the user's configuration"
            )
        elif not audit or not w.audited:
            continue
        elif w.expires is not None and w.expires < today:
            rule, at = WAIVER_EXPIRED, "/expires"
            hit = " and no longer waives the finding it named" if w.key in expired_hit else ""
            message = f"{named} expired on {w.expires}{hit}"
            hint = "fix what it waived, or renew it with a new expires date and a reason that still holds"
        elif w.key not in used:
            rule, at, message = WAIVER_UNUSED, "", f"{named} matches no finding"
            hint = "remove it: what it waived is fixed (or the rule id or id is misspelt)"
        else:
            continue
        out.append(rule.at(w.origin, message, hint=hint, pointer=f"/waivers/{w.index}{at}", line=w.line))
    return out


def waive(
    findings: list[Finding],
    root: Path,
    own: tuple[list[Waiver], list[Finding]],
    *,
    audit: bool = True,
    accepted_by: str | None = None,
    trusted: Trusted | None = None,
) -> list[Finding]:
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
