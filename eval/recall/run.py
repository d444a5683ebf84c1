#!/usr/bin/env python
"""Recall evaluation: the plain RFC ranking against ds-gate's ``list_knowledge_summaries``.

Writes every card of ``cards.jsonl`` into a temporary DeepScientist home as a real
MemoryService card file (``<home>/memory/knowledge/<slug(title)>.md``, YAML frontmatter
dumped with ``yaml.safe_dump`` in MemoryService key order, one ``_index.jsonl`` line per
card), then runs every query of ``queries.json`` through two rankings:

- ``rfc``: the RFC's recall as DeepScientist would have it: exact (case-sensitive,
  un-normalised) tag-overlap count descending, then ``updated_at`` descending, then path;
  cards with no overlap are dropped; the free-text query is not used.
- ``ds-gate``: ``list_knowledge_summaries(domain_tags, limit=10, home=..., scope="global",
  query=..., cache=False)``.

Metrics, over the top 10 of each ranking: nDCG@10 with graded gains (2^grade - 1),
Recall@5 of the cards graded 1 or 2, and MRR of the first grade-2 card (the lesson asked for).

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
    from ds_gate.recall import list_knowledge_summaries
except ImportError:  # run from a checkout without the project installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from ds_gate.recall import list_knowledge_summaries

HERE = Path(__file__).resolve().parent
K = 10
RECALL_AT = 5
TYPES = ("exact-tag", "tag-variant", "paraphrase")
RANKINGS = ("rfc", "ds-gate")
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


def materialise(cards: list[dict[str, Any]], home: Path) -> None:
    """Each card as ``MemoryService.write_card(scope="global", metadata={claim, lineage})``
    writes it: caller metadata first, then id, type, kind, title, quest_id, tags,
    created_at, updated_at, scope."""
    folder = home / "memory" / "knowledge"
    folder.mkdir(parents=True)
    index_lines = []
    for card in cards:
        digest = hashlib.sha256(card["id"].encode()).hexdigest()
        quest_id = f"{int(digest[:8], 16) % 24 + 1:03d}"  # a fixed producing quest per card
        meta: dict[str, Any] = {
            "claim": card["claim"],
            "lineage": [{"quest": quest_id, "run": f"run-{digest[8:16]}"}],
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
        path = folder / f"{slug(card['title'])}.md"
        text = f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{card['body']}\n"
        path.write_text(text, encoding="utf-8")
        index_lines.append({"id": card["id"], "title": card["title"], "type": "knowledge", "path": str(path),
                            "quest_id": quest_id, "scope": "global", "tags": meta["tags"],
                            "updated_at": card["updated_at"], "excerpt": card["body"].splitlines()[0]})
    with open(folder / "_index.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in index_lines)


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
    for path in sorted((home / "memory" / "knowledge").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        _, front, _ = text.split("---\n", 2)
        meta = yaml.safe_load(front)
        out.append({"id": meta["id"], "tags": ds_tags(meta.get("tags")), "when": moment(meta.get("updated_at")),
                    "path": str(path)})
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


def ds_gate_rank(home: Path, query: dict[str, Any], limit: int) -> list[str]:
    found = list_knowledge_summaries(query["domain_tags"], limit=limit, home=home, scope="global",
                                     query=query["query"], cache=False)
    return [row["card_id"] for row in found]


# ---------------------------------------------------------------- metrics


def ndcg(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    dcg = sum((2 ** relevant.get(cid, 0) - 1) / math.log2(i + 2) for i, cid in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(ranked: list[str], relevant: dict[str, int], k: int = RECALL_AT) -> float:
    wanted = {cid for cid, grade in relevant.items() if grade >= 1}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def mrr(ranked: list[str], relevant: dict[str, int], k: int = K) -> float:
    for i, cid in enumerate(ranked[:k]):
        if relevant.get(cid, 0) == 2:
            return 1.0 / (i + 1)
    return 0.0


def score(ranked: list[str], relevant: dict[str, int]) -> dict[str, float]:
    return {"ndcg@10": ndcg(ranked, relevant), "recall@5": recall(ranked, relevant), "mrr": mrr(ranked, relevant)}


# ---------------------------------------------------------------- the run


def evaluate(folder: Path = HERE) -> dict[str, Any]:
    cards, queries = load_set(folder)
    check_set(cards, queries)
    with tempfile.TemporaryDirectory(prefix="ds-gate-recall-eval-") as tmp:
        home = Path(tmp).resolve() / "DeepScientist"
        materialise(cards, home)
        home_cards = read_home(home)
        rows = []
        for query in queries:
            rfc = rfc_rank(home_cards, query["domain_tags"], K)
            ours = ds_gate_rank(home, query, K)
            rows.append({"id": query["id"], "type": query["type"], "rankings": {"rfc": rfc, "ds-gate": ours},
                         "scores": {"rfc": score(rfc, query["relevant"]), "ds-gate": score(ours, query["relevant"])}})
    slices: dict[str, Any] = {}
    for name in ("all", *TYPES):
        chosen = [row for row in rows if name == "all" or row["type"] == name]
        slices[name] = {"n": len(chosen)}
        for ranking in RANKINGS:
            slices[name][ranking] = {m: round(sum(r["scores"][ranking][m] for r in chosen) / len(chosen), 4)
                                     for m in METRICS}
    return {"cards": len(cards), "queries": len(queries), "k": K, "metrics": slices,
            "per_query": [{"id": r["id"], "type": r["type"],
                           **{rk: {m: round(v, 4) for m, v in r["scores"][rk].items()} for rk in RANKINGS}}
                          for r in rows]}


def table(result: dict[str, Any], per_query: bool = False) -> str:
    lines = [
        f"Recall evaluation: {result['cards']} cards, {result['queries']} queries, top {result['k']}",
        "nDCG@10: graded gains 2^g-1; Recall@5: cards graded >= 1; MRR: first grade-2 card (0 if not in the top 10)",
        "",
        f"{'slice':<12} {'n':>3}   {'nDCG@10':^15}   {'Recall@5':^15}   {'MRR':^15}",
        f"{'':<12} {'':>3}   " + "   ".join(f"{'rfc':>6} {'ds-gate':>8}" for _ in METRICS),
    ]
    for name, data in result["metrics"].items():
        cells = "   ".join(f"{data['rfc'][m]:>6.3f} {data['ds-gate'][m]:>8.3f}" for m in METRICS)
        lines.append(f"{name:<12} {data['n']:>3}   {cells}")
    if per_query:
        lines += ["", f"{'query':<12} {'type':<12}   " + "   ".join(f"{'rfc':>6} {'ds-gate':>8}" for _ in METRICS)]
        for row in result["per_query"]:
            cells = "   ".join(f"{row['rfc'][m]:>6.3f} {row['ds-gate'][m]:>8.3f}" for m in METRICS)
            lines.append(f"{row['id']:<12} {row['type']:<12}   {cells}")
    return "\n".join(line.rstrip() for line in lines)


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
