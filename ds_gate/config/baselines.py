"""Baselines: adopting the gate mid-quest without a waiver per finished run.

Turning ``experience_distill`` on in a quest with 200 finished runs makes every one pending. A
baseline in the user's **trusted** configuration names, per quest, a commit (the runs its tree
already held completed, while their record is still that one: ``engine.baseline_match``) or a
date (``before``: the runs whose ``created_at`` and ``updated_at`` are earlier), and the gate
reports those completed runs as *baselined*, not pending, in every verdict. The commit is the
recommended form: git decides what its tree holds, while the dates are written by the quest's
agent. A baseline written in the quest's ``.ds-gate.yaml`` is a proposal
(``baseline.proposed``), applied only where the quest's waivers are accepted, exactly as the
quest's waivers are (``config.waivers``). The gate's step: ``engine.baseline``; the format:
docs/configuration.md, "Baseline: adopting the gate mid-quest".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from ds_gate.io import schemas
from ds_gate.io.yamldoc import YamlError, line_of, load_yaml
from ds_gate.kernel.errors import shown
from ds_gate.kernel.layout import QUEST_CONFIG as FILE
from ds_gate.model.findings import DISCIPLINE, INFO, WARNING, Finding, Rule
from ds_gate.sources.memory import jsonable

COVERAGE_BASELINED = Rule(
    "coverage.baselined",
    INFO,
    DISCIPLINE,
    "completed runs a baseline of the trusted configuration reports as baselined, not pending: recorded before "
    'the gate was adopted in the quest (docs/configuration.md, "Baseline")',
)
BASELINE_PROPOSED = Rule(
    "baseline.proposed",
    WARNING,
    DISCIPLINE,
    "a baseline written inside the quest (`.ds-gate.yaml`): a proposal, which baselines nothing until the quest's "
    "owner copies it into the trusted configuration or accepts the quest's waivers",
)
BASELINE_COMMIT_UNREADABLE = Rule(
    "baseline.commit-unreadable",
    WARNING,
    DISCIPLINE,
    "a baseline's commit that is not a readable commit of the quest's git (mistyped, or absent from this clone): it "
    "baselines nothing; closure, finalization commits and the pre-push gate stop on it (exit 2)",
)
BASELINE_CHANGED = Rule(
    "baseline.changed-since",
    WARNING,
    DISCIPLINE,
    "a completed run a baseline's commit holds that stays pending all the same: it was not completed in that commit, "
    "or its record (or index line) changed since, so it was completed or recorded again after the baseline",
)
BASELINE_AFTER_ADOPTION = Rule(
    "baseline.after-adoption",
    WARNING,
    DISCIPLINE,
    "a baseline naming a commit at which `experience_distill` was already on (in its `quest.yaml` or an earlier "
    "one), or where the gate cannot tell: its runs were recorded under the gate, and a baseline is for runs "
    "finished before the gate was adopted",
)
REASON_PLACEHOLDER = "<why you adopt this baseline, in your words>"  # a proposal's paste line: never the agent's


@dataclass(frozen=True, slots=True)
class Baseline:
    """One ``baselines`` entry: a commit (or commits) or a date, and why."""

    index: int
    reason: str
    commits: tuple[str, ...] = ()
    before: datetime | None = None
    before_text: str | None = None
    origin: str = FILE  # FILE: written inside the quest; else the trusted configuration file it came from
    quest: str | None = None  # a trusted entry's quest (resolved)
    line: int | None = None  # a quest entry's line in FILE
    accepted_by: str | None = None  # a quest entry's acceptance (the trusted setting), else it is a proposal

    @property
    def trusted(self) -> bool:
        return self.origin != FILE

    @property
    def applies(self) -> bool:
        """Whether it may lower a verdict: a trusted entry, or a quest entry a trusted setting accepted."""
        return self.trusted or self.accepted_by is not None

    @property
    def pointer(self) -> str:
        return f"/baselines/{self.index}"

    @property
    def what(self) -> str:
        """``commit 1a2b…`` or ``before 2026-03-01``, as reports say it."""
        if self.commits:
            return "commit " + ", ".join(self.commits)
        return f"before {self.before_text}"

    @property
    def named(self) -> str:
        """Which entry, and whose: every message about it starts here."""
        if self.trusted:
            return f"trusted baselines[{self.index}] in {self.origin}"
        accepted = f", accepted by {self.accepted_by}" if self.accepted_by else ""
        return f"baselines[{self.index}] of the quest's {FILE}{accepted}"

    def matches_date(self, created_at: str | None, updated_at: str | None) -> bool:
        """Whether a run created and last written (``updated_at``: main stamps it at every
        ``artifact.record``, while ``created_at`` may come from the payload) before the date;
        a time that cannot be read with its offset (main writes ``+00:00``), or none, never is."""
        if self.before is None:
            return False
        times = [parse_time(t) if isinstance(t, str) else None for t in (created_at, updated_at)]
        return all(t is not None and t < self.before for t in times)

    def as_dict(self) -> dict[str, Any]:
        """The entry as JSON reports give it (``baseline``)."""
        return {
            "source": "trusted" if self.trusted else "quest",
            "file": self.origin,
            "index": self.index,
            "commit": list(self.commits) or None,
            "before": self.before_text,
            "reason": self.reason,
            "accepted_by": self.accepted_by,
        }

    def trusted_yaml(self, root: Path) -> str:
        """The entry as the trusted configuration takes it, for the quest at ``root``, on one line (a
        hint is one line): what a proposal tells its owner to paste. JSON strings are YAML scalars.
        The reason is a placeholder its owner must replace (``trusted_baselines`` refuses it as
        is): the agent's own words never reach the trusted file by a paste."""
        if self.commits:
            what = "commit: " + (json.dumps(self.commits[0]) if len(self.commits) == 1 else json.dumps(self.commits))
        else:
            what = f"before: {json.dumps(self.before_text)}"
        return f"baselines: [{{quest: {json.dumps(str(root))}, {what}, reason: {json.dumps(REASON_PLACEHOLDER)}}}]"


_COMMIT = re.compile(r"[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?")
_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2}))?")


def parse_time(text: str) -> datetime | None:
    """An ISO-8601 date (midnight UTC) or a time with its offset (``Z``, ``+00:00``, ``+0000``),
    else None: a time without an offset says no instant. The same reading on every Python."""
    match = _TIME.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    try:
        if offset is None:
            return datetime(int(year), int(month), int(day), tzinfo=timezone.utc)
        zone = timezone.utc
        if offset not in ("Z", "z"):
            sign = -1 if offset[0] == "-" else 1
            zone = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[-2:])))
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro, tzinfo=zone)
    except ValueError:  # 2026-02-30, 25:00, an offset of a day or more
        return None


def _entry(data: dict[str, Any], index: int) -> tuple[dict[str, Any], str | None]:
    """The fields of a checked entry, or why it is not one: one of commit and before, a full commit id
    (said in words before the schema says it), the schema, then the date."""
    named = [key for key in ("commit", "before") if key in data]
    if len(named) != 1:
        return {}, f"names {'both commit and before' if named else 'neither commit nor before'}: name one of them"
    given = data.get("commit")
    for commit in given if isinstance(given, list) else [given] if isinstance(given, str) else []:
        if isinstance(commit, str) and not _COMMIT.fullmatch(commit.strip()):
            return {}, (
                f"commit {shown(commit)} is no full commit id (40 hex digits; 64 in a SHA-256 repository): a branch or "
                f"a short id names whatever the quest's agent makes it name; `git rev-parse {commit.strip()[:60]}` "
                "in the quest gives the full id"
            )
    errors = schemas.errors("ds_gate_config", {"baselines": [data]})
    if errors:
        return {}, errors[0].message.replace("the record", "the configuration") + (
            f" ({errors[0].hint})" if errors[0].hint else ""
        )
    commit = data.get("commit")
    fields: dict[str, Any] = {"index": index, "reason": data["reason"].strip()}
    if commit is not None:
        fields["commits"] = tuple(c.strip().lower() for c in ([commit] if isinstance(commit, str) else commit))
        return fields, None
    before = parse_time(data["before"])
    if before is None:
        return {}, f"before is {shown(data['before'])}, which is no date"
    fields.update(before=before, before_text=data["before"].strip())
    return fields, None


def trusted_baselines(entries: Any, origin: str, quest_of: Callable[[str, str], Path]) -> list[Baseline]:
    """The trusted configuration's ``baselines``, each for the quest its ``quest`` names
    (``quest_of(key, text)``: ``config.settings``' own reading of a quest entry); ValueError on
    any entry that is not one, since the file then cannot be used."""
    if not isinstance(entries, list):
        raise ValueError("baselines is not a list")
    out: list[Baseline] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"baselines[{i}] is not a mapping")
        quest = entry.get("quest")
        if not isinstance(quest, str) or not quest.strip():
            raise ValueError(
                f"baselines[{i}] names no quest: a baseline is for one quest (quest: ~/DeepScientist/quests/001)"
            )
        fields, problem = _entry({k: v for k, v in entry.items() if k != "quest"}, i)
        if problem is not None:
            raise ValueError(f"baselines[{i}]: {problem}")
        if fields["reason"] == REASON_PLACEHOLDER:
            raise ValueError(
                f"baselines[{i}].reason is still the placeholder {shown(REASON_PLACEHOLDER)}: write your reason"
            )
        out.append(Baseline(**fields, origin=origin, quest=str(quest_of(f"baselines[{i}].quest", quest))))
    return out


def quest_baselines(text: str | None, invalid: Rule) -> tuple[list[Baseline], list[Finding]]:
    """The baselines a quest's ``.ds-gate.yaml`` text proposes, and an ``invalid`` finding
    (``waiver.invalid``, the file's own rule) for each entry its schema passes that is no
    baseline still (a date that is none); the schema's findings are the waivers' reading's, once."""
    if text is None or "baselines" not in text:  # the common case: no fourth parse of the file
        return [], []
    try:
        data = jsonable(load_yaml(text))
    except (YamlError, ValueError, RecursionError):
        return [], []  # the waivers' reading reports the file
    found = data.get("baselines") if isinstance(data, dict) else None
    if not isinstance(found, list):
        return [], []
    out: list[Baseline] = []
    problems: list[Finding] = []
    for i, entry in enumerate(found):
        if not isinstance(entry, dict) or schemas.errors("ds_gate_config", {"baselines": [entry]}):
            continue  # the schema's finding, with the waivers'
        fields, problem = _entry(entry, i)
        line = line_of(text, ("baselines", i))
        if problem is not None:
            problems.append(
                invalid.at(
                    FILE,
                    f"baselines[{i}]: {problem}",
                    hint=f"fix {FILE}; this baseline proposes nothing until then",
                    pointer=f"/baselines/{i}/before",
                    line=line,
                )
            )
            continue
        out.append(Baseline(**fields, line=line))
    return out, problems
