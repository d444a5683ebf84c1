"""ScienceClaw's evolving memory (``findings.jsonl``) as recallable cards, with their content.

One JSON object per line; its lesson is the fields of its ``type`` (``LESSON_FIELDS``: a pitfall's
``issue`` and ``fix``, ...), which become the card's body, one ``name: value`` line each, so they
are shown in ``summary``, returned in ``fields`` and searched by ``query``; the first is the claim.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

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


def read_jsonl(path: Path, budget: Budget | None = None) -> list[Entry]:
    """The file's records as cards (an id made from its content where a record has none);
    ``budget`` bounds what the whole recall holds (``entries.Budget``), this file included."""
    try:
        raw = fs.read_file(path)  # held whole (every line becomes an entry): the size limit applies
    except fs.TooLarge as exc:
        raise QuestError(f"{path} is {exc.strerror}; raise the limit with {fs.MAX_FILE_VARIABLE}=<megabytes>") from exc
    except OSError as exc:
        raise QuestError(f"cannot read {path}: {exc.strerror or exc}") from exc
    out: list[Entry] = []
    budget = budget if budget is not None else Budget()
    for number, line_bytes in enumerate(io.BytesIO(raw), start=1):  # a line at a time, never a list of them all
        line = line_bytes.decode("utf-8", "replace")
        if not line.strip():
            continue
        if len(out) >= MAX_JSONL_RECORDS:
            raise QuestError(
                f"{path}:{number}: more than {MAX_JSONL_RECORDS:,} records; ds-gate recalls from at most "
                f"{MAX_JSONL_RECORDS:,} per file (docs/limits.md): split the file, or pass the newest part"
            )
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # a broken or absurdly nested line is skipped, as a bad line is
            continue
        if not isinstance(data, dict):
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
    return out
