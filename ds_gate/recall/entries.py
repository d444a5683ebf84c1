"""A recallable card, slim: what a summary shows, plus its text for the lexical score;
and its compact form in the cache."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.records import timestamp
from ds_gate.recall.tags import normalize_tags
from ds_gate.sources.memory import card_tags
from ds_gate.sources.tag_values import MAX_TAGS


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

    def order(self) -> tuple[float, str, str]:
        return (-self.when, self.card_id, self.path)

    def summary(self, overlap: int = 0, matched: Sequence[str] = (), lexical: float | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "card_id": self.card_id, "title": self.title, "claim": self.claim, "tags": list(self.tags), "kind": self.kind,
            "scope": self.scope, "quest_id": self.quest_id, "updated_at": self.updated_at, "path": self.path,
            "overlap": overlap, "matched_tags": list(matched),
        }
        if lexical is not None:
            out["lexical_score"] = lexical
        return out


def entry_from_card(card: Any, scope: str) -> Entry | None:
    if card.broken or not card.card_id:
        return None
    meta = card.meta
    tags = card_tags(meta.get("tags"))
    claim = meta.get("claim") if isinstance(meta.get("claim"), str) else None
    updated = meta.get("updated_at") if isinstance(meta.get("updated_at"), str) else None
    kind = meta.get("type") if meta.get("type") in MEMORY_KINDS else card.kind
    return Entry(card.card_id, card.title, claim, tags, frozenset(normalize_tags(tags)), kind, scope, card.quest_id, updated,
                 str(card.path), card.body, timestamp(updated))




MAX_RECALL_CARDS = 100_000  # cards and JSONL records one recall holds (each costs ~1 KB however small its file)
MAX_RECALL_TAGS = 200_000  # tags one recall holds (~150 bytes each with its normalised form, however short; docs/limits.md)


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
            raise QuestError(f"{entry.path}: recall holds at most {MAX_RECALL_CARDS:,} cards and {MAX_RECALL_TAGS:,} tags "
                             f"(docs/limits.md), and this memory holds more; recall from fewer sources (--scope, fewer "
                             f"--jsonl files) or archive old cards")


def encode(entry: Entry | None) -> str:
    if entry is None:
        return "null"
    return json.dumps([entry.card_id, entry.title, entry.claim, list(entry.tags), entry.kind, entry.quest_id,
                       entry.updated_at, entry.text])


def decode(text: str, scope: str, path: str) -> Entry | None:
    """A cache row back into an Entry; ValueError for anything ``encode`` would not have written."""
    data = json.loads(text)
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != 8:
        raise ValueError("not a cache row")
    card_id, title, claim, tags, kind, quest_id, updated, body = data
    if not (isinstance(tags, list) and len(tags) <= MAX_TAGS and all(isinstance(t, str) for t in tags)
            and all(v is None or isinstance(v, str) for v in (card_id, title, claim, kind, quest_id, updated, body))):
        raise ValueError("not a cache row")
    tags = tuple(tags)
    return Entry(card_id, title, claim, tags, frozenset(normalize_tags(tags)), kind, scope, quest_id, updated, path, body,
                 timestamp(updated))
