"""ScienceClaw's evolving memory (``findings.jsonl``) as recallable cards, with their content.

One JSON object per line; its lesson is the fields of its ``type`` (``LESSON_FIELDS``: a pitfall's
``issue`` and ``fix``, ...), which become the card's body, one ``name: value`` line each, so they
are shown in ``summary``, returned in ``fields`` and searched by ``query``; the first is the claim.
A line that is no JSON object is skipped and said (``SourceProblem``: file, line, why), never silently.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError
from ds_gate.model.records import timestamp
from ds_gate.recall.entries import Budget, Entry
from ds_gate.recall.tags import normalize_tags
from ds_gate.sources.memory import card_tags

JSONL_TYPES = ("finding", "ideation", "strategy", "pitfall")
LESSON_FIELDS: dict[str, tuple[str, ...]] = {
    "pitfall": ("issue", "fix"),
    "strategy": ("strategy", "outcome"),
    "ideation": ("direction", "reason"),
    "finding": ("finding",),
}
_TEXT_KEYS = (
    "content",
    "text",
    "finding",
    "summary",
    "description",
    "insight",
    "lesson",
    "issue",
    "fix",
    "strategy",
    "outcome",
    "direction",
    "reason",
    "evidence",
)
FIELD_CHARS = 4000  # of one field: a record's lesson, not a dump


def lesson_fields(data: dict[str, object], kind: str) -> dict[str, str]:
    """The fields that hold a record's lesson: its type's (``LESSON_FIELDS``) first, then any
    other text field a record of another shape uses, each once, in that order."""
    out: dict[str, str] = {}
    for key in (*LESSON_FIELDS.get(kind, ()), *_TEXT_KEYS):
        value = data.get(key)
        if isinstance(value, str) and value.strip() and key not in out:
            out[key] = " ".join(value.split())[:FIELD_CHARS]
    return out


MAX_JSONL_RECORDS = 50_000  # records read from one file: each costs an entry (~1 KB) however short its line
MAX_PROBLEMS = 100  # bad lines listed of one file; the rest are counted in one more problem
SHOWN_PROBLEMS = 10  # problems said as notes (and CLI warnings); the rest are counted in one more


@dataclass(frozen=True, slots=True)
class SourceProblem:
    """What recall skipped of a JSONL source, and why: a line that is no JSON object, or a
    configured file that is missing or cannot be read (``line`` None)."""

    path: str
    line: int | None
    why: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "why": self.why}

    def note(self) -> str:
        return f"{self.path}{'' if self.line is None else f':{self.line}'}: {self.why}"


class Unreadable(QuestError):
    """A JSONL source that cannot be read (missing, too large, too many records): the error a
    ``--jsonl`` file is (exit 2), the problem a configured one is."""

    def __init__(self, problem: SourceProblem) -> None:
        super().__init__(problem.note())
        self.problem = problem


def problem_notes(problems: list[SourceProblem]) -> list[str]:
    """The first ``SHOWN_PROBLEMS`` problems as lines, then how many more (``source_problems`` lists them)."""
    lines = [p.note() for p in problems[:SHOWN_PROBLEMS]]
    if len(problems) > SHOWN_PROBLEMS:
        lines.append(f"and {len(problems) - SHOWN_PROBLEMS} more problem(s) of the JSONL sources (source_problems)")
    return lines


_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "true or false"}


def _line_problem(line: str) -> tuple[Any, str | None]:
    """(the line's object, None), or (None, why it is skipped)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at column {exc.colno}); skipped"
    except (ValueError, RecursionError):  # an absurdly nested or otherwise unreadable line
        return None, "not JSON that can be read (nested too deeply, or not text); skipped"
    if not isinstance(data, dict):
        return None, f"not a JSON object ({_JSON_TYPES.get(type(data), 'null')}); skipped"
    return data, None


def read_jsonl(path: Path, budget: Budget | None = None) -> tuple[list[Entry], list[SourceProblem]]:
    """The file's records as cards (an id made from its content where a record has none), and
    the lines skipped, each with why (at most ``MAX_PROBLEMS`` listed, then a count); ``budget``
    bounds what the whole recall holds (``entries.Budget``), this file included. A file that
    cannot be read raises ``Unreadable`` (``read_sources`` makes a configured one's a problem)."""
    try:
        raw = fs.read_file(path)  # held whole (every line becomes an entry): the size limit applies
    except fs.TooLarge as exc:
        why = f"it is {exc.strerror}; raise the limit with {fs.MAX_FILE_VARIABLE}=<megabytes>"
        raise Unreadable(SourceProblem(str(path), None, why)) from exc
    except OSError as exc:
        raise Unreadable(SourceProblem(str(path), None, f"cannot be read: {exc.strerror or exc}")) from exc
    out: list[Entry] = []
    problems: list[SourceProblem] = []
    skipped = 0
    budget = budget if budget is not None else Budget()
    for number, line_bytes in enumerate(io.BytesIO(raw), start=1):  # a line at a time, never a list of them all
        line = line_bytes.decode("utf-8", "replace")
        if not line.strip():
            continue
        if len(out) >= MAX_JSONL_RECORDS:
            too_many = (
                f"more than {MAX_JSONL_RECORDS:,} records; ds-gate recalls from at most {MAX_JSONL_RECORDS:,} per "
                "file (docs/limits.md): split the file, or pass the newest part"
            )
            raise Unreadable(SourceProblem(str(path), number, too_many))
        data, skip = _line_problem(line)
        if skip is not None:
            skipped += 1
            if len(problems) < MAX_PROBLEMS:
                problems.append(SourceProblem(str(path), number, skip))
            continue
        kind = next((v for v in (data.get("type"), data.get("kind")) if isinstance(v, str) and v), "finding")
        fields = lesson_fields(data, kind)
        text = next(iter(fields.values()), "")
        given = data.get("id")
        card_id = (
            given
            if isinstance(given, str) and given.strip()
            else f"{kind}-{hashlib.sha256(line.strip().encode()).hexdigest()[:8]}"
        )
        tags = card_tags(data.get("tags"))
        date = data.get("date") if isinstance(data.get("date"), str) else None
        title = data.get("title") if isinstance(data.get("title"), str) and data["title"].strip() else text[:80]
        project = (
            data.get("project") if isinstance(data.get("project"), (str, int, float)) else None
        )  # never a deep repr
        body = "\n".join(f"{key}: {value}" for key, value in fields.items())
        out.append(
            Entry(
                card_id,
                title,
                text or None,
                tags,
                frozenset(normalize_tags(tags)),
                kind,
                "jsonl",
                str(project) if project is not None else None,
                date,
                f"{path}:{number}",
                body,
                timestamp(date),
                fields,
            )
        )
        out[-1].dup = out[-1].content_key()
        budget.spend(out[-1])
    if skipped > len(problems):
        problems.append(SourceProblem(str(path), None, f"{skipped - len(problems)} more bad line(s) skipped"))
    return out, problems
