"""The Chinese slice (issue 38): a home of Chinese-speaking users' lessons, queried in Chinese.

``chinese.json`` holds 23 knowledge cards written in Chinese as such users write them (English
terms kept: LoRA, INT4, fp16, MinHash), over eight topics (learning rate and warmup,
quantization, data dedup, mixed precision, eval leakage, gradient clipping, long context,
distillation), with same-topic distractors and one near-duplicate; tags are Chinese
(``topic:学习率``) or English (``topic:learning-rate``) as they come. Its 16 queries are
Chinese words (``学习率``, ``预热``, ``量化感知训练``), Chinese phrases longer than a word, mixed
Chinese and English, and Chinese tags (one with a full-width colon, ``Topic：混合精度``). Labels
were written with the cards, by meaning, before any ranking was run: 2 the lesson asked for,
1 a related lesson, unlisted 0.

Cards are written as ``MemoryService.write_card`` writes them except for the file name:
DeepScientist's ``slugify`` keeps only ``[a-zA-Z0-9]``, so two cards of one kind with Chinese
titles would both be ``knowledge.md`` (the second overwrites the first, a DeepScientist bug);
here a card whose title gives no slug is written at ``<id>.md``.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SLICE = "chinese"


def load(folder: Path = HERE) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cards with their ids (``knowledge-`` and the title's hash, as the main set's) and a fixed
    ``updated_at`` each, and the queries with their labels by card id."""
    data = json.loads((folder / "chinese.json").read_text(encoding="utf-8"))
    ids: dict[str, str] = {}
    cards = []
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    for raw in data["cards"]:
        digest = hashlib.sha256(raw["title"].encode("utf-8")).hexdigest()
        card_id = f"knowledge-{digest[:8]}"
        ids[raw["key"]] = card_id
        when = start + timedelta(minutes=int(digest[8:16], 16) % (365 * 24 * 60))
        cards.append({**raw, "id": card_id, "updated_at": when.isoformat(), "kind": "knowledge"})
    if len(set(ids.values())) != len(ids):
        raise ValueError("two Chinese cards share an id (the same title)")
    queries = []
    for q in data["queries"]:
        unknown = set(q["relevant"]) - set(ids)
        if unknown or not q["relevant"] or not (q["query"] or q["domain_tags"]):
            raise ValueError(f"{q['id']}: a label names no card, or the query is empty ({sorted(unknown)})")
        queries.append({**q, "type": SLICE, "relevant": {ids[k]: g for k, g in q["relevant"].items()}})
    return cards, queries


def write(cards: list[dict[str, Any]], home: Path) -> None:
    """The cards in ``<home>/memory/knowledge`` with the frontmatter ``write_card`` gives a global card."""
    folder = home / "memory" / "knowledge"
    folder.mkdir(parents=True)
    for card in cards:
        quest_id = f"{int(card['id'][-8:], 16) % 24 + 1:03d}"
        meta = {
            "claim": card["claim"],
            "id": card["id"],
            "type": "knowledge",
            "kind": "knowledge",
            "title": card["title"],
            "quest_id": quest_id,
            "tags": list(card["tags"]),
            "created_at": card["updated_at"],
            "updated_at": card["updated_at"],
            "scope": "global",
        }
        slug = re.sub(r"[^a-zA-Z0-9]+", "-", card["title"].strip().lower()).strip("-")
        name = slug if slug and not (folder / f"{slug}.md").exists() else card["id"]
        text = f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{card['body']}\n"
        (folder / f"{name}.md").write_text(text, encoding="utf-8")


def world(home: Path) -> dict[str, Any]:
    """The slice as ``run.py`` runs a world: its home, queries, and the stock baseline's documents."""
    cards, queries = load()
    write(cards, home)
    docs = [
        {"id": c["id"], "title": c["title"], "tags": c["tags"], "body": f"{c['claim']}\n{c['body']}"} for c in cards
    ]
    return {"home": home, "queries": queries, "docs": docs, "lesson": {}, "scope": "global", "jsonl": ()}
