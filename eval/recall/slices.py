"""The evaluation's derived slices and its stock full-text baseline.

Four slices are derived from ``cards.jsonl`` and ``queries.json`` by fixed rules, so they
need no labels of their own (and were not tuned by looking at any ranking):

- **stage-entry**: the tags an agent assembles at stage entry as the RFC's
  ``recall_priors_rule`` says (the brief's domains, the current stage, the relevant
  type tag): ``[stage:<s>, domain:llm-training, <topic tag>, type:pitfall]`` for each of
  the 12 topics with the most cards. Every card of the topic is relevant: a pitfall 2, any
  other lesson 1 (at stage entry the agent wants the pitfalls of its topic first). The
  stage cycles through five stages, so it is often not the stage the cards were written in;
  ``domain:llm-training`` is on no card (a brief's domain rarely is).
- **stage-entry-mixed** (issue 38): the stage-entry queries over a home that also holds the
  quest's working notes (``mixed_home``: an episode, idea or decision beside each lesson of a
  stage-entry topic, with its stage, method and domain tags), never relevant.
- **duplicates**: every third card (by its id's hash) is written again, with the same
  claim and body, into another quest's memory as a quest card of its own id (a lesson
  re-recorded by a later quest, as ``memory.write`` does it); the 45 queries are run over the
  home and its quests. A copy counts as its lesson: the first of a lesson's results gains, a
  second copy of it gains nothing and takes a place.
- **jsonl-pitfalls**: every pitfall card is moved out of the home into a ScienceClaw
  ``findings.jsonl`` as a ``pitfall`` record (``issue``: the claim; ``fix``: the body's
  Action line; its tags and date; no title, as ScienceClaw writes none); the queries whose
  grade-2 lessons include a pitfall are run over the home and the file together.

The baseline a reviewer asks for first: SQLite FTS5 with ``bm25()`` and the porter
tokenizer over title, tags and body (claim included), queried with every word of the
query text and of the tags, OR'd (a dozen lines, ``fts5_rank``).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

STAGES = ("experiment", "baseline", "analysis-campaign", "idea", "write")
STAGE_DOMAIN = "domain:llm-training"
STAGE_TOPICS = 12


def loose(tag: str) -> str:
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", tag).casefold())


def stage_entry_queries(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    topics: Counter[str] = Counter()
    spelled: dict[str, str] = {}
    for card in cards:
        for tag in card["tags"]:
            if loose(tag).startswith("topic:"):
                topics[loose(tag)] += 1
                spelled.setdefault(loose(tag), tag)
    out = []
    for n, (topic, _) in enumerate(sorted(topics.items(), key=lambda kv: (-kv[1], kv[0]))[:STAGE_TOPICS]):
        relevant = {}
        for card in cards:
            if topic in {loose(t) for t in card["tags"]}:
                relevant[card["id"]] = 2 if "type:pitfall" in card["tags"] else 1
        if 2 not in relevant.values():
            continue
        tags = [f"stage:{STAGES[n % len(STAGES)]}", STAGE_DOMAIN, spelled[topic].casefold(), "type:pitfall"]
        out.append(
            {
                "id": f"stage-{n + 1:02d}",
                "type": "stage-entry",
                "domain_tags": tags,
                "query": None,
                "relevant": relevant,
            }
        )
    return out


MIXED_KINDS = ("episodes", "ideas", "decisions")
_NOTES = {
    "episodes": (
        "{Stage} log {n}: {topic} run with the {task} setting",
        "Ran the {topic} {stage} again with the {task} setting and logged the metrics.\n\n"
        "No conclusion yet; the next {topic} {stage} repeats it with another seed.",
    ),
    "ideas": (
        "Idea {n}: a {topic} variant around {task}",
        "Try a {topic} variant that changes {task} in the next {stage}.\n\nUntested; {topic} is the method to vary.",
    ),
    "decisions": (
        "Decision {n}: continue the {topic} {stage} on {task}",
        "Chose to continue the {topic} {stage} on {task} rather than switch methods.\n\n"
        "Reason: the {topic} {stage} is cheap to repeat.",
    ),
}


def _value(tags: list[str], prefix: str) -> str:
    found = [loose(t)[len(prefix) :] for t in tags if loose(t).startswith(prefix)]
    return found[0] if found else ""


def mixed_home(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stage-entry home as a quest fills it: every card carries the quest's domain tag, and
    beside each lesson of a stage-entry topic the quest's working notes about it (an episode, an
    idea or a decision, by the lesson's id) carry the lesson's stage and method (``topic:``) tags
    and repeat the topic's and the stage's words, as such notes do. The notes are never the
    lesson an agent entering a stage asks for (grade 0)."""
    topics = {loose(q["domain_tags"][2]) for q in stage_entry_queries(cards)}
    out = [{**c, "tags": [*c["tags"], STAGE_DOMAIN]} for c in cards]
    for n, card in enumerate(c for c in cards if topics & {loose(t) for t in c["tags"]}):
        digest = hashlib.sha256(f"note:{card['id']}".encode()).hexdigest()
        kind = MIXED_KINDS[int(digest[:8], 16) % len(MIXED_KINDS)]
        tags = [t for t in card["tags"] if loose(t).startswith(("stage:", "topic:"))] + [STAGE_DOMAIN]
        words = {
            "n": n + 1,
            "stage": _value(card["tags"], "stage:").replace("-", " "),
            "topic": _value(card["tags"], "topic:").replace("-", " "),
            "task": _value(card["tags"], "task:").replace("-", " ") or "default",
        }
        words["Stage"] = str(words["stage"]).capitalize()
        title, body = (part.format(**words) for part in _NOTES[kind])
        minute = int(digest[8:16], 16) % (365 * 24 * 60)
        when = f"2026-{1 + minute // (31 * 24 * 60):02d}-{1 + minute // (24 * 60) % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:00+00:00"
        out.append(
            {
                "id": f"{kind[:-1]}-{digest[:8]}",
                "title": title,
                "claim": None,
                "tags": tags,
                "body": body,
                "updated_at": when,
                "kind": kind,
            }
        )
    return out


def mixed_queries(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**q, "id": f"mixed-{q['id']}", "type": "stage-entry-mixed"} for q in stage_entry_queries(cards)]


def copied(card: dict[str, Any]) -> bool:
    return int(hashlib.sha256(card["id"].encode()).hexdigest()[:8], 16) % 3 == 0


def copy_of(card: dict[str, Any], n: int) -> dict[str, Any]:
    """The lesson as a later quest re-recorded it: same claim and body, its own id and quest."""
    digest = hashlib.sha256(f"copy:{card['id']}".encode()).hexdigest()
    return {
        **card,
        "id": f"knowledge-{digest[:8]}",
        "title": card["title"].lower(),
        "quest": f"q{n % 6 + 1:03d}",
        "lesson": card["id"],
    }


def duplicate_queries(queries: list[dict[str, Any]], cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    has_copy = {c["id"] for c in cards if copied(c)}
    return [{**q, "id": f"dup-{q['id']}", "type": "duplicates"} for q in queries if has_copy & set(q["relevant"])]


def action(body: str) -> str:
    for line in body.splitlines():
        if line.startswith("Action:"):
            return line.removeprefix("Action:").strip()
    return body.splitlines()[-1] if body else ""


def pitfall_record(card: dict[str, Any]) -> dict[str, Any]:
    digest = hashlib.sha256(f"jsonl:{card['id']}".encode()).hexdigest()
    return {
        "id": f"pitfall-{digest[:8]}",
        "type": "pitfall",
        "issue": card["claim"],
        "fix": action(card["body"]),
        "tags": list(card["tags"]),
        "date": card["updated_at"],
        "project": "eval",
        "lesson": card["id"],
    }


def is_pitfall(card: dict[str, Any]) -> bool:
    return "type:pitfall" in card["tags"]


def jsonl_queries(queries: list[dict[str, Any]], cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id = {c["id"]: c for c in cards}
    return [
        {**q, "id": f"jsonl-{q['id']}", "type": "jsonl-pitfalls"}
        for q in queries
        if any(grade == 2 and is_pitfall(by_id[cid]) for cid, grade in q["relevant"].items())
    ]


def write_jsonl(records: list[dict[str, Any]], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps({k: v for k, v in record.items() if k != "lesson"}, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- the stock baseline


def fts5_index(docs: list[dict[str, Any]]) -> sqlite3.Connection:
    """``docs``: id, title, tags, body (a card's claim and body; a record's text fields)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(did UNINDEXED, title, tags, body, tokenize='porter unicode61')")
    db.executemany(
        "INSERT INTO f VALUES (?, ?, ?, ?)", [(d["id"], d["title"], " ".join(d["tags"]), d["body"]) for d in docs]
    )
    return db


def fts5_rank(db: sqlite3.Connection, query: dict[str, Any], limit: int) -> list[str]:
    text = " ".join([query.get("query") or "", *query["domain_tags"]])
    words = dict.fromkeys(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    return [row[0] for row in db.execute("SELECT did FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?", (match, limit))]


def card_doc(card: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": card["id"],
        "title": card["title"],
        "tags": card["tags"],
        "body": f"{card['claim'] or ''}\n{card['body']}",
    }


def record_doc(record: dict[str, Any]) -> dict[str, Any]:
    return {"id": record["id"], "title": "", "tags": record["tags"], "body": f"{record['issue']}\n{record['fix']}"}
