"""A recallable card, slim: what a summary shows, plus its text for the lexical score;
and its compact form in the cache.

A result carries the card's content, not only where it is: ``summary`` is the claim and
the first lines of the body (a JSONL record: its lesson fields, ``jsonl.LESSON_FIELDS``),
cut to the caller's budget by ``fit_summaries``. ``content_key`` is what duplicates share:
the body (else claim and title) with case, punctuation and spacing dropped."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.records import timestamp
from ds_gate.recall.problems import card_problems, problem_rows
from ds_gate.recall.tags import normalize_tags
from ds_gate.sources.memory import card_tags
from ds_gate.sources.tag_values import MAX_TAGS

SUMMARY_LINES = 3  # body lines after the claim: enough to see the lesson, few enough for a listing
MIN_BODY_CHARS = 40  # a body shorter than this is a stub: duplicates are judged on title and claim too
_KEY_TEXT = re.compile(r"[\W_]+", re.UNICODE)
TRUNCATED = " …"


@dataclass(slots=True)
class Entry:
    """A recallable card, slim: what a summary shows, plus its text for the lexical score."""

    card_id: str
    title: str | None
    claim: str | None
    tags: tuple[str, ...]  # as written (DeepScientist's normalisation)
    norm: frozenset[str]
    kind: str
    scope: str  # global | quest | shared_quest | jsonl
    quest_id: str | None
    updated_at: str | None
    path: str
    text: str  # the body, for FTS (title and claim are columns of their own)
    when: float = field(default=-math.inf)
    fields: dict[str, str] | None = None  # a JSONL record's lesson fields (issue, fix, ...), in the record's order
    dup: str = ""  # content_key(), kept in the cache: computing it for 10,000 cards each process costs ~0.3 s
    problems: list[dict[str, str]] | None = None  # what is wrong with the card (rule, message, hint): shown with it

    def order(self) -> tuple[float, str, str]:
        return (-self.when, self.card_id, self.path)

    def summary(self, overlap: int = 0, matched: Sequence[str] = (), lexical: float | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "card_id": self.card_id,
            "title": self.title,
            "claim": self.claim,
            "tags": list(self.tags),
            "kind": self.kind,
            "scope": self.scope,
            "quest_id": self.quest_id,
            "updated_at": self.updated_at,
            "path": self.path,
            "overlap": overlap,
            "matched_tags": list(matched),
            "summary": self.content(),
        }
        if self.fields is not None:
            out["fields"] = dict(self.fields)
        if lexical is not None:
            out["lexical_score"] = lexical
        if self.problems:
            out["problems"] = [dict(p) for p in self.problems]
        return out

    def indexed(self) -> tuple[str, str, str, str]:
        """What the text index holds: title, tags, claim, body. A JSONL record's lesson is its
        body (``name: value`` lines); its claim is the first of them and its title, unless the
        record gives its own, that claim's start: indexed once, not three times, so BM25 does not
        count a record's first field thrice (a given title that repeats it is not indexed either)."""
        title, claim = self.title or "", self.claim or ""
        if self.fields is not None:
            title = "" if claim.startswith(title) else title
            claim = ""
        return title, " ".join(self.tags), claim, self.text

    def copy_ref(self) -> dict[str, Any]:
        """Where one copy of a collapsed lesson is: enough to read it or patch it."""
        return {"card_id": self.card_id, "quest_id": self.quest_id, "scope": self.scope, "path": self.path}

    def content(self, lines: int = SUMMARY_LINES) -> str:
        """The lesson in a few lines: the claim, then the body's first non-empty lines (a JSONL
        record's body is its lesson fields, one per line)."""
        parts = [self.claim.strip()] if self.claim and self.claim.strip() and self.fields is None else []
        for line in self.text.splitlines():
            if len(parts) >= lines + 1:
                break
            line = line.strip()
            if line and not line.startswith(("#", "---")) and line not in parts:
                parts.append(line)
        return "\n".join(parts)

    def content_key(self) -> str:
        """What two copies of one lesson share: the body (or claim and title when the body is
        empty), casefolded, with punctuation and spacing dropped; hashed."""
        basis = _KEY_TEXT.sub(" ", self.text.casefold()).strip()
        if len(basis) < MIN_BODY_CHARS:
            basis = _KEY_TEXT.sub(" ", f"{self.title or ''} {self.claim or ''} {basis}".casefold()).strip()
        return hashlib.sha256(basis.encode("utf-8", "replace")).hexdigest()[:16] if basis else f"id:{self.card_id}"


def fit_summaries(rows: list[dict[str, Any]], max_chars: int) -> bool:
    """Cut every row's ``summary`` so that together they hold at most ``max_chars``
    characters, the best-ranked first: each row may use an equal share of what is left, and
    what a short summary leaves over goes to the rows after it. True when one was cut (each
    cut row says ``summary_truncated``)."""
    cut = False
    left = max_chars
    for n, row in enumerate(rows):
        text = row.get("summary") or ""
        share = left // (len(rows) - n)
        if len(text) > share:
            text = text[: max(0, share - len(TRUNCATED))].rstrip() + TRUNCATED if share > len(TRUNCATED) else ""
            row["summary_truncated"] = True
            cut = True
        row["summary"] = text
        left -= len(text)
    return cut


def entry_from_card(card: Any, scope: str) -> Entry | None:
    if card.broken or not card.card_id:
        return None
    meta = card.meta
    tags = card_tags(meta.get("tags"))
    claim = meta.get("claim") if isinstance(meta.get("claim"), str) else None
    updated = meta.get("updated_at") if isinstance(meta.get("updated_at"), str) else None
    kind = meta.get("type") if meta.get("type") in MEMORY_KINDS else card.kind
    entry = Entry(
        card.card_id,
        card.title,
        claim,
        tags,
        frozenset(normalize_tags(tags)),
        kind,
        scope,
        card.quest_id,
        updated,
        str(card.path),
        card.body,
        timestamp(updated),
    )
    entry.dup = entry.content_key()
    entry.problems = card_problems(card)
    return entry


MAX_RECALL_CARDS = 100_000  # cards and JSONL records one recall holds (each costs ~1 KB however small its file)
MAX_RECALL_TAGS = (
    200_000  # tags one recall holds (~150 bytes each with its normalised form, however short; docs/limits.md)
)


@dataclass(slots=True)
class Budget:
    """What one recall may hold, so its memory is bounded by the documented limits rather
    than by how many small cards or tags the memory folders and JSONL files hold."""

    cards: int = 0
    tags: int = 0

    def spend(self, entry: Entry) -> None:
        self.cards += 1
        self.tags += len(entry.tags)
        if self.cards > MAX_RECALL_CARDS or self.tags > MAX_RECALL_TAGS:
            raise QuestError(
                f"{entry.path}: recall holds at most {MAX_RECALL_CARDS:,} cards and {MAX_RECALL_TAGS:,} tags "
                f"(docs/limits.md), and this memory holds more; recall from fewer sources (--scope, fewer "
                f"--jsonl files) or archive old cards"
            )


def encode(entry: Entry | None) -> str:
    if entry is None:
        return "null"
    when = entry.when if math.isfinite(entry.when) else None
    return json.dumps(
        [
            entry.card_id,
            entry.title,
            entry.claim,
            list(entry.tags),
            entry.kind,
            entry.quest_id,
            entry.updated_at,
            entry.text,
            entry.dup,
            sorted(entry.norm),
            when,
            entry.problems,
        ]
    )


def decode(text: str, scope: str, path: str) -> Entry | None:
    """A cache row back into an Entry; ValueError for anything ``encode`` would not have written."""
    return from_data(json.loads(text), scope, path)


def decode_many(texts: list[str]) -> list[Any] | None:
    """Many rows' JSON in one parse (a third of the time of one parse each), or None when one
    of them is not a JSON value on its own: the caller then decodes them one at a time. Each
    row is one value, so a row that is not (``1, 2``) changes the count and is caught."""
    if not texts:
        return []
    try:
        data = json.loads("[" + ",".join(texts) + "]")
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, list) and len(data) == len(texts) else None


def from_data(data: Any, scope: str, path: str) -> Entry | None:
    """A decoded cache row as an Entry; ValueError for anything ``encode`` would not have written."""
    if data is None:
        return None
    if type(data) is not list or len(data) != 12:
        raise ValueError("not a cache row")
    card_id, title, claim, tags, kind, quest_id, updated, body, dup, norm, when, problems = data
    # the row's normalised tags and moment are the ones this version computed when it stored it
    # (the cache is keyed by version): no normalising and no date parsing per card per process
    if not (
        type(tags) is list
        and len(tags) <= MAX_TAGS
        and type(norm) is list
        and len(norm) <= len(tags)
        and type(body) is str
        and type(dup) is str
        and (when is None or type(when) is float)
        and all(type(t) is str for t in tags)
        and all(type(t) is str for t in norm)
        and all(v is None or type(v) is str for v in (card_id, title, claim, kind, quest_id, updated))
        and (problems is None or problem_rows(problems))
    ):
        raise ValueError("not a cache row")
    return Entry(
        card_id,
        title,
        claim,
        tuple(tags),
        frozenset(norm),
        kind,
        scope,
        quest_id,
        updated,
        path,
        body,
        -math.inf if when is None else when,
        None,
        dup,
        problems,
    )


def dedupe(entries: list[Entry]) -> list[Entry]:
    """One summary per card id: the global copy of a promoted card, else the first found."""
    if len({e.card_id for e in entries}) == len(entries):
        return entries  # nothing to choose (the usual case): the scan's order, folder by folder, name by name
    rank = {"global": 0, "quest": 1, "shared_quest": 2, "jsonl": 3}
    best: dict[str, Entry] = {}
    for entry in sorted(entries, key=lambda e: (rank.get(e.scope, 9), e.path)):
        best.setdefault(entry.card_id, entry)
    return sorted(best.values(), key=lambda e: e.path)


@dataclass(slots=True)
class Ranking:
    """What ``Index.rank`` found: the rows, how they were ranked, and what a caller should be told."""

    mode: str  # recent | tags | text | text (no tag matched)
    rows: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)  # {tag, closest}: a query tag no card carries
    eligible: int = 0  # cards of the kind that a tag or the text matched (every card of the kind for "recent")
    collapsed: int = 0  # copies folded into a result above them
    notes: list[str] = field(default_factory=list)
