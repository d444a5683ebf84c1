#!/usr/bin/env python
"""Recall evaluation: ds-gate's ``list_knowledge_summaries`` against the plain RFC ranking and a
stock full-text index (SQLite FTS5, BM25, porter), on seven slices.

Writes every card of ``cards.jsonl`` into a temporary DeepScientist home as a real
MemoryService card file (``<home>/memory/knowledge/<slug(title)>.md``, YAML frontmatter
dumped with ``yaml.safe_dump`` in MemoryService key order, one ``_index.jsonl`` line per
card), then runs every query of ``queries.json`` through two rankings:

- ``rfc``: the RFC's recall as DeepScientist would have it: exact (case-sensitive,
  un-normalised) tag-overlap count descending, then ``updated_at`` descending, then path;
  cards with no overlap are dropped; the free-text query is not used.
- ``fts5``: the stock baseline (``slices.fts5_rank``): FTS5 ``bm25()`` with the porter
  tokenizer over title, tags and body, queried with every word of the query and the tags.
- ``ds-gate``: ``list_knowledge_summaries(domain_tags, limit=10, home=..., scope=...,
  query=..., jsonl=..., cache=False)``, as an agent calls it (tags only: the RFC's list,
  then the text fill).
- ``ds-gate-rel``: the same with ``order="relevance"`` (tags only: each shared tag weighted
  by its rarity, then the fill; with a query the two are the same).

The slices: the 45 labelled queries (exact-tag, tag-variant, paraphrase) and four derived
by fixed rules (``slices.py``): stage-entry, stage-entry-mixed (the same queries over a home
that also holds the quest's episodes, ideas and decisions), duplicates, jsonl-pitfalls.

Metrics, over the top 10 of each ranking: nDCG@10 with graded gains (2^grade - 1),
Recall@5 of the cards graded 1 or 2, and MRR of the first grade-2 card (the lesson asked for).
A result is scored as its lesson (a copy as the card it copies, a JSONL record as the card it
came from); a lesson's second appearance gains nothing and takes a place.

    python eval/recall/run.py              # the table
    python eval/recall/run.py --json       # the same numbers as JSON
    python eval/recall/run.py --per-query  # one row per query, to see where a ranking fails
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import tempfile
import time
import unicodedata
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

try:
    from ds_gate import list_knowledge_summaries
except ImportError:  # run from a checkout without the project installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from ds_gate import list_knowledge_summaries

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chinese
import slices

HERE = Path(__file__).resolve().parent
K = 10
RECALL_AT = 5
TYPES = ("exact-tag", "tag-variant", "paraphrase")
SLICES = (*TYPES, "stage-entry", "stage-entry-mixed", "duplicates", "jsonl-pitfalls", chinese.SLICE)
RANKINGS = ("rfc", "fts5", "ds-gate", "ds-gate-rel")
METRICS = ("ndcg@10", "recall@5", "mrr")


class SetError(Exception):
    """The evaluation set is inconsistent (a label or a query breaks its own rules)."""


# ---------------------------------------------------------------- the set


def load_set(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with open(folder / "cards.jsonl", encoding="utf-8") as handle:
        cards = [json.loads(line) for line in handle if line.strip()]
    with open(folder / "queries.json", encoding="utf-8") as handle:
        queries = json.load(handle)
    return cards, queries


def loose(tag: str) -> str:
    """The label checker's own idea of "the same tag": NFKC, casefold, no spaces, `_` or `-`.
    Independent of ds-gate's normaliser, so the labels do not lean on the implementation."""
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", tag).casefold())


def check_set(cards: list[dict[str, Any]], queries: list[dict[str, Any]]) -> None:
    by_id = {card["id"]: card for card in cards}
    if len(by_id) != len(cards):
        raise SetError("duplicate card ids in cards.jsonl")
    slugs: dict[str, str] = {}
    for card in cards:
        name = slug(card["title"])
        if name in slugs:
            raise SetError(f"cards {slugs[name]} and {card['id']} have the same file name {name}.md")
        slugs[name] = card["id"]
    seen: set[str] = set()
    for query in queries:
        qid = query["id"]
        if qid in seen:
            raise SetError(f"duplicate query id {qid}")
        seen.add(qid)
        if query["type"] not in TYPES:
            raise SetError(f"{qid}: unknown type {query['type']!r}")
        relevant = query["relevant"]
        missing = [cid for cid in relevant if cid not in by_id]
        if missing:
            raise SetError(f"{qid}: unknown card ids {missing}")
        if not any(grade == 2 for grade in relevant.values()) or set(relevant.values()) - {1, 2}:
            raise SetError(f"{qid}: needs at least one grade-2 card, and grades 1 or 2 only")
        tags = query["domain_tags"]
        best = [set(by_id[cid]["tags"]) for cid, grade in relevant.items() if grade == 2]
        if query["type"] == "exact-tag":
            if not any(set(tags) <= card_tags for card_tags in best):
                raise SetError(f"{qid}: no grade-2 card carries every domain tag verbatim")
        elif query["type"] == "tag-variant":
            if any(set(tags) <= card_tags for card_tags in best):
                raise SetError(f"{qid}: a grade-2 card carries every domain tag verbatim (that is exact-tag)")
            for tag in tags:
                if not any(loose(tag) in {loose(t) for t in card_tags} for card_tags in best):
                    raise SetError(f"{qid}: {tag!r} is no variant of a tag of a grade-2 card")
        else:
            if not query.get("query"):
                raise SetError(f"{qid}: a paraphrase query needs query text")
            wanted = {loose(tag) for tag in tags}
            for cid in relevant:
                shared = wanted & {loose(t) for t in by_id[cid]["tags"]}
                if shared:
                    raise SetError(f"{qid}: relevant card {cid} shares tags {sorted(shared)} with domain_tags")


# ---------------------------------------------------------------- a DeepScientist home


def slug(title: str, kind: str = "knowledge") -> str:
    """MemoryService's file name: lowercased, non-alphanumeric runs to ``-``, stripped."""
    return re.sub(r"[^a-zA-Z0-9]+", "-", title.lower()).strip("-") or kind


def materialise(cards: list[dict[str, Any]], home: Path, quest: str | None = None) -> None:
    """Each card as ``MemoryService.write_card(scope="global", metadata={claim, lineage})``
    writes it: caller metadata first, then id, type, kind, title, quest_id, tags,
    created_at, updated_at, scope; into the folder of its ``kind`` (a working note, which has
    no ``claim``, is written without the lesson's metadata). With ``quest``: as that quest's
    own cards (``<home>/quests/<quest>/memory/<kind>``, scope quest)."""
    root = (home / "quests" / quest if quest else home) / "memory"
    index_lines: dict[str, list[dict[str, Any]]] = {}
    for card in cards:
        kind = card.get("kind") or "knowledge"
        folder = root / kind
        folder.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(card["id"].encode()).hexdigest()
        quest_id = quest or f"{int(digest[:8], 16) % 24 + 1:03d}"  # a fixed producing quest per card
        lesson = {"claim": card["claim"], "lineage": [{"quest": quest_id, "run": f"run-{digest[8:16]}"}]}
        meta: dict[str, Any] = {
            **(lesson if card["claim"] is not None else {}),
            "id": card["id"],
            "type": kind,
            "kind": kind,
            "title": card["title"],
            "quest_id": quest_id,
            "tags": list(card["tags"]),
            "created_at": card["updated_at"],
            "updated_at": card["updated_at"],
            "scope": "quest" if quest else "global",
        }
        path = folder / f"{slug(card['title'])}.md"
        text = f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{card['body']}\n"
        path.write_text(text, encoding="utf-8")
        index_lines.setdefault(kind, []).append(
            {
                "id": card["id"],
                "title": card["title"],
                "type": kind,
                "path": str(path),
                "quest_id": quest_id,
                "scope": meta["scope"],
                "tags": meta["tags"],
                "updated_at": card["updated_at"],
                "excerpt": card["body"].splitlines()[0],
            }
        )
    for kind, lines in index_lines.items():
        with open(root / kind / "_index.jsonl", "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


# ---------------------------------------------------------------- the two rankings


def ds_tags(value: Any) -> list[str]:
    """MemoryService ``_normalize_tags``: strip, drop empty, exact dedupe, no case folding."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        text = str(item).strip()
        if text and text not in out:
            out.append(text)
    return out


def moment(value: Any) -> float:
    try:
        stamp = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return -math.inf
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.timestamp()


def read_home(home: Path) -> list[dict[str, Any]]:
    """The cards as DeepScientist lists them: ``<root>/<kind>/*.md``, frontmatter parsed."""
    out = []
    for path in sorted([*home.glob("memory/*/*.md"), *home.glob("quests/*/memory/*/*.md")]):
        text = path.read_text(encoding="utf-8")
        _, front, _ = text.split("---\n", 2)
        meta = yaml.safe_load(front)
        out.append(
            {
                "id": meta["id"],
                "tags": ds_tags(meta.get("tags")),
                "when": moment(meta.get("updated_at")),
                "path": str(path),
            }
        )
    return out


def rfc_rank(home_cards: list[dict[str, Any]], domain_tags: list[str], limit: int) -> list[str]:
    """RFC section 5: overlap count desc, then updated_at desc; empty tags -> recent."""
    wanted = set(ds_tags(domain_tags))
    if not wanted:
        ranked = sorted(home_cards, key=lambda c: (-c["when"], c["path"]))
        return [c["id"] for c in ranked[:limit]]
    scored = [(len(wanted & set(c["tags"])), c) for c in home_cards]
    scored = [(n, c) for n, c in scored if n > 0]
    scored.sort(key=lambda item: (-item[0], -item[1]["when"], item[1]["path"]))
    return [c["id"] for _, c in scored[:limit]]


def ds_gate_rank(
    home: Path,
    query: dict[str, Any],
    limit: int,
    *,
    scope: str = "global",
    jsonl: tuple[Path, ...] = (),
    order: str = "rfc",
) -> list[str]:
    found = list_knowledge_summaries(
        query["domain_tags"],
        limit=limit,
        home=home,
        scope=scope,
        query=query["query"],
        jsonl=jsonl,
        cache=False,
        order=order,
        visibility="all",  # the evaluation's own homes: every quest folder, as a human reads them
    )
    return [row["card_id"] for row in found]


# ---------------------------------------------------------------- metrics


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    dcg = sum((2 ** relevant.get(cid, 0) - 1) / math.log2(i + 2) for i, cid in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(ranked: list[str], relevant: dict[str, int], k: int = RECALL_AT) -> float:
    wanted = {cid for cid, grade in relevant.items() if grade >= 1}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def mrr(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    for i, cid in enumerate(ranked[:k]):
        if relevant.get(cid, 0) == 2:
            return 1.0 / (i + 1)
    return 0.0


def as_lessons(ranked: list[str], lesson: dict[str, str]) -> list[str]:
    """Each result as the lesson it holds; a lesson seen before becomes a place that gains nothing."""
    out: list[str] = []
    for n, cid in enumerate(ranked):
        name = lesson.get(cid, cid)
        out.append(name if name not in out else f"(repeat {n})")
    return out


def score(ranked: list[str], relevant: dict[str, int], lesson: dict[str, str] | None = None) -> dict[str, float]:
    ranked = as_lessons(ranked, lesson or {})
    return {"ndcg@10": ndcg(ranked, relevant), "recall@5": recall(ranked, relevant), "mrr": mrr(ranked, relevant)}


# ---------------------------------------------------------------- the run


def evaluate(folder: Path = HERE) -> dict[str, Any]:
    cards, queries = load_set(folder)
    check_set(cards, queries)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ds-gate-recall-eval-") as tmp:
        for world in worlds(cards, queries, Path(tmp).resolve()):
            rows.extend(run_world(world))
    slices_out: dict[str, Any] = {}
    for name in ("all", *SLICES):
        chosen = [row for row in rows if name == "all" or row["type"] == name]
        slices_out[name] = {"n": len(chosen)}
        for ranking in RANKINGS:
            slices_out[name][ranking] = {
                m: round(sum(r["scores"][ranking][m] for r in chosen) / len(chosen), 4) for m in METRICS
            }
    return {
        "cards": len(cards),
        "queries": len(rows),
        "k": K,
        "metrics": slices_out,
        "per_query": [
            {
                "id": r["id"],
                "type": r["type"],
                **{rk: {m: round(v, 4) for m, v in r["scores"][rk].items()} for rk in RANKINGS},
            }
            for r in rows
        ],
    }


def worlds(cards: list[dict[str, Any]], queries: list[dict[str, Any]], tmp: Path) -> list[dict[str, Any]]:
    """Three homes: the cards; the cards and their copies in other quests; the cards but the
    pitfalls, which are records of a findings.jsonl beside it."""
    main = tmp / "main" / "DeepScientist"
    materialise(cards, main)
    dup = tmp / "dup" / "DeepScientist"
    materialise(cards, dup)
    copies = [slices.copy_of(c, n) for n, c in enumerate(c for c in cards if slices.copied(c))]
    for quest in sorted({c["quest"] for c in copies}):
        materialise([c for c in copies if c["quest"] == quest], dup, quest)
    solo = tmp / "jsonl" / "DeepScientist"
    materialise([c for c in cards if not slices.is_pitfall(c)], solo)
    records = [slices.pitfall_record(c) for c in cards if slices.is_pitfall(c)]
    findings = tmp / "jsonl" / "findings.jsonl"
    slices.write_jsonl(records, findings)
    stage = slices.stage_entry_queries(cards)
    docs = [slices.card_doc(c) for c in cards]
    mixed = tmp / "mixed" / "DeepScientist"
    mixed_cards = slices.mixed_home(cards)
    materialise(mixed_cards, mixed)
    return [
        {"home": main, "queries": queries + stage, "docs": docs, "lesson": {}, "scope": "global", "jsonl": ()},
        {
            "home": mixed,
            "queries": slices.mixed_queries(cards),
            "docs": [slices.card_doc(c) for c in mixed_cards],
            "lesson": {},
            "scope": "global",
            "jsonl": (),
        },
        {
            "home": dup,
            "queries": slices.duplicate_queries(queries, cards),
            "scope": "visible",
            "jsonl": (),
            "docs": docs + [slices.card_doc(c) for c in copies],
            "lesson": {c["id"]: c["lesson"] for c in copies},
        },
        {
            "home": solo,
            "queries": slices.jsonl_queries(queries + stage, cards),
            "scope": "global",
            "jsonl": (findings,),
            "docs": [slices.card_doc(c) for c in cards if not slices.is_pitfall(c)]
            + [slices.record_doc(r) for r in records],
            "lesson": {r["id"]: r["lesson"] for r in records},
            "records": [
                {"id": r["id"], "tags": ds_tags(r["tags"]), "when": moment(r["date"]), "path": r["id"]} for r in records
            ],
        },
        chinese.world(tmp / "chinese" / "DeepScientist"),  # its own cards and queries (chinese.py)
    ]


def run_world(world: dict[str, Any]) -> list[dict[str, Any]]:
    home_cards = read_home(world["home"]) + world.get("records", [])
    db = slices.fts5_index(world["docs"])
    rows = []
    for query in world["queries"]:
        kwargs = {"scope": world["scope"], "jsonl": world["jsonl"]}
        rankings = {
            "rfc": rfc_rank(home_cards, query["domain_tags"], K),
            "fts5": slices.fts5_rank(db, query, K),
            "ds-gate": ds_gate_rank(world["home"], query, K, **kwargs),
            "ds-gate-rel": ds_gate_rank(world["home"], query, K, order="relevance", **kwargs),
        }
        rows.append(
            {
                "id": query["id"],
                "type": query["type"],
                "rankings": rankings,
                "scores": {
                    name: score(ranked, query["relevant"], world["lesson"]) for name, ranked in rankings.items()
                },
            }
        )
    return rows


def table(result: dict[str, Any], per_query: bool = False) -> str:
    head = " ".join(f"{name:>11}" for name in RANKINGS)
    lines = [
        f"Recall evaluation: {result['cards']} cards, {result['queries']} queries, top {result['k']}",
        "nDCG@10: graded gains 2^g-1; Recall@5: cards graded >= 1; MRR: first grade-2 card (0 if not in the top 10)",
        "",
    ]
    for metric in METRICS:
        lines += [f"{metric:<18} {'n':>3}  {head}"]
        for name, data in result["metrics"].items():
            lines.append(f"{name:<18} {data['n']:>3}  " + " ".join(f"{data[r][metric]:>11.3f}" for r in RANKINGS))
        lines.append("")
    if per_query:
        lines += [f"{'query':<20} {'type':<15}  nDCG@10: {head}"]
        for row in result["per_query"]:
            lines.append(
                f"{row['id']:<20} {row['type']:<15}           "
                + " ".join(f"{row[r]['ndcg@10']:>11.3f}" for r in RANKINGS)
            )
    return "\n".join(line.rstrip() for line in lines).rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--per-query", action="store_true", help="also print one row per query")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        result = evaluate()
    except SetError as exc:
        print(f"recall eval: the evaluation set is inconsistent: {exc}", file=sys.stderr)
        return 2
    if args.json:
        if not args.per_query:
            result.pop("per_query")
        print(json.dumps(result, indent=2))
    else:
        print(table(result, args.per_query))
    print(f"({time.perf_counter() - start:.2f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
