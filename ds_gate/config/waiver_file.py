"""Waivers as written: the ``waivers`` list of ``.ds-gate.yaml`` (or ``[tool.ds-gate]``), or of the
user's trusted configuration, read into ``Waiver`` values, each invalid entry a ``waiver.invalid``
finding that waives nothing. What a waiver does to findings is ``config.waivers``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath
from typing import Any

from ds_gate.config.failclosed import ACCEPTED_MARK
from ds_gate.io.yamldoc import YamlError, line_of, load_yaml
from ds_gate.kernel.errors import shown
from ds_gate.kernel.layout import QUEST_CONFIG as FILE  # the name waivers are known by
from ds_gate.model.findings import DISCIPLINE, ERROR, Finding, Rule
from ds_gate.rules.schema import schema_findings
from ds_gate.sources.memory import FrontmatterError, jsonable

WAIVER_INVALID = Rule(
    "waiver.invalid",
    ERROR,
    DISCIPLINE,
    "`.ds-gate.yaml` (or `[tool.ds-gate]` in `pyproject.toml`) or a waiver in it is invalid (an unknown key; a waiver "
    "needs a rule, an id or path, and a reason); it waives nothing and sets no default",
)


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
    if problems and not any(f.pointer.startswith(("/waivers/", "/baselines/")) for f in problems):
        return [], problems  # the file as a whole is wrong: no waiver is trusted
    waivers: list[Waiver] = []
    for i, entry in enumerate(data.get("waivers") or []):
        if i in bad:
            continue
        try:
            expires = date.fromisoformat(entry["expires"]) if entry.get("expires") else None
        except ValueError:  # the schema's pattern admits 2026-02-30
            problems.append(
                _invalid(f"waivers[{i}].expires is {shown(entry['expires'])}, which is no date", line(("waivers", i)))
            )
            continue
        waivers.append(
            Waiver(
                i,
                entry["rule"].strip(),
                entry["reason"].strip(),
                entry.get("id"),
                entry.get("path"),
                expires,
                line(("waivers", i)),
                accepted_by=accepted_by,
            )
        )
    return waivers, problems


def _load(text: str) -> Any:
    try:
        return load_yaml(text)
    except YamlError as exc:
        raise FrontmatterError(exc.problem, exc.line) from None


def _schema(data: Any, line: Any) -> list[Finding]:
    found = schema_findings("ds_gate_config", data, FILE, line, WAIVER_INVALID, document=FILE)
    return [
        dataclasses.replace(
            f,
            hint=(f.hint or "")
            + (
                "; this baseline proposes nothing until it is fixed"
                if f.pointer.startswith("/baselines/")
                else "; this waiver waives nothing until it is fixed"
            ),
        )
        for f in found
    ]


def _invalid(message: str, line: int | None) -> Finding:
    return WAIVER_INVALID.at(
        FILE,
        message,
        hint=f"fix {FILE}; until then no waiver in it applies",
        line=line,
    )
