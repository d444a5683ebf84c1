"""Every recallable card of some memory roots, in memory, ranked on demand: tag overlap
through postings and a heap, recency as a precomputed order, SQLite FTS5 ``bm25()`` for
the lexical fallback (built on first use). Revalidated from the stamps of the memory
folders and their ``_index.jsonl`` (MemoryService appends to it on every write)."""

from __future__ import annotations

import functools
import gc
import heapq
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ds_gate.kernel import fs
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.recall.cache import Cache
from ds_gate.recall.entries import (
    Budget,
    Entry,
    decode_many,
    dedupe,
    encode,
    entry_from_card,
    from_data,
)
from ds_gate.recall.jsonl import read_jsonl
from ds_gate.recall.tags import bare, closest, match_key
from ds_gate.recall.text import FTS5_MISSING, TextIndex, idf, words
from ds_gate.sources.card_files import card_stats
from ds_gate.sources.memory import parse_card


@dataclass(slots=True)
class Root:
    memory: Path
    scope: str
    contain: Path


class Index:
    """Every recallable card of some memory roots, ranked on demand."""

    def __init__(self, roots: list[Root], cache: Cache, jsonl: Sequence[Path]) -> None:
        self.roots = roots
        self.cache = cache
        self.jsonl = list(jsonl)
        self.entries: list[Entry] = []
        self.stamp: tuple[Any, ...] = ()
        self._fts: TextIndex | None = None
        self._postings: dict[str, list[int]] = {}  # match_key -> entry positions
        self._by_value: dict[str, list[int]] = {}  # a prefixed tag's value key -> entry positions (for bare query tags)
        self._groups: list[str] | None = None  # content_key per entry, computed on the first rank
        self._members: dict[str, list[int]] = {}  # content_key -> positions, for keys held by two entries or more
        self._recency: list[int] = []

    def signature(self) -> tuple[Any, ...]:
        """Stamps that change when MemoryService writes (each kind folder and its index),
        when a quest is added (``<home>/quests``), and when a JSONL source grows."""
        out: list[Any] = [tuple(str(r.memory) for r in self.roots)]
        for path in self.jsonl:
            try:
                st = os.stat(path)
                out.append((st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        for root in self.roots:
            for kind in MEMORY_KINDS:
                for path in (root.memory / kind, root.memory / kind / "_index.jsonl"):
                    try:
                        st = os.stat(path)
                        out.append((st.st_mtime_ns, st.st_size))
                    except OSError:
                        out.append(None)
        return tuple(out)

    def build(self) -> None:
        """Every card of the roots (from the cache where its stat still matches) and the JSONL
        records. The collector is paused meanwhile: 10,000 entries are made and all kept, so
        its passes over them find nothing to free and cost a fifth of the build."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._build()
        finally:
            if enabled:
                gc.enable()

    def _build(self) -> None:
        findings: list[Any] = []
        files: list[tuple[str, str, str, os.stat_result]] = []
        for root in self.roots:
            files.extend((path, kind, root.scope, st)
                         for path, kind, st in card_stats(root.memory, root.contain, None, findings))
        cached = self.cache.load([p for p, _, _, _ in files])
        fresh: list[tuple[str, int, int, int, str]] = []
        entries: list[Entry] = []
        budget = Budget()
        valid = [(n, row[3]) for n, (key, _, _, st) in enumerate(files) if (row := cached.get(key)) is not None
                 and row[:3] == (st.st_mtime_ns, st.st_size, st.st_ino) and isinstance(row[3], str)]
        parsed = decode_many([text for _, text in valid])
        known: dict[int, Any] = dict(zip((n for n, _ in valid), parsed, strict=True)) if parsed is not None else {}
        texts = dict(valid)
        for n, (key, kind, scope, st) in enumerate(files):
            entry, fresh_read = None, True
            if n in texts:
                try:
                    data = known[n] if n in known else json.loads(texts[n])
                    entry, fresh_read = from_data(data, scope, key), False
                except (ValueError, RecursionError):  # a row this version did not write: read the card instead
                    pass
            if fresh_read:
                path = Path(key)
                try:
                    raw = fs.read_file(path)
                except OSError:  # unreadable or over the size limit: `check` reports it, recall skips it
                    continue
                card = parse_card(raw, path=path, display=key, scope=scope, kind=kind)
                entry = entry_from_card(card, scope) if card is not None else None
                fresh.append((key, st.st_mtime_ns, st.st_size, st.st_ino, encode(entry)))
            if entry is not None:
                budget.spend(entry)
                entries.append(entry)
        self.cache.store(fresh)
        self.cache.forget([r.memory for r in self.roots], {p for p, _, _, _ in files})
        for source in self.jsonl:
            entries.extend(read_jsonl(source, budget))
        self.entries = dedupe(entries)
        self._postings, self._by_value = {}, {}
        for i, entry in enumerate(self.entries):
            for key in {_key(tag) for tag in entry.norm}:
                self._postings.setdefault(key, []).append(i)
                if not bare(key):
                    self._by_value.setdefault(key.rpartition(":")[2], []).append(i)
        self._groups, self._members = None, {}
        self._recency = sorted(range(len(self.entries)), key=lambda i: self.entries[i].order())
        self._fts = None
        self.stamp = self.signature()

    def rank(self, tags: tuple[str, ...], kind: str | None, limit: int, query: str | None,
             support: bool = False, order: str = "rfc") -> Ranking:
        """The best ``limit`` results, duplicates collapsed (see ``recall/__init__``): tags only
        -> the RFC's order (``order="relevance"``: the tags as text, each shared tag weighted by
        its rarity); a query, or tags matching no card -> text and tags together."""
        entries = self.entries
        keys = {tag: match_key(tag) for tag in tags}
        hits: dict[int, list[str]] = {}
        unmatched: list[str] = []
        for tag, key in keys.items():
            found = self._matches(key)
            if not found:
                unmatched.append(tag)
            for i in found:
                hits.setdefault(i, []).append(tag)
        out = Ranking(mode="recent", unmatched=[{"tag": t, "closest": closest(t, self._known())} for t in unmatched])
        as_text = tags and (not hits or order == "relevance")
        text = query or (_tag_text(tags) if as_text else "")
        ok = (lambda i: True) if kind is None else (lambda i: entries[i].kind == kind)
        scores: dict[int, float] = {}
        if text:
            out.mode = "text" if query else "relevance" if hits else "text (no tag matched)"
            lexical = self.hybrid(text, tags, {} if query else hits)
            if lexical is not None:
                scores = lexical
            else:  # no FTS5 in this Python: tags and recency, said so
                out.notes.append(FTS5_MISSING)
                out.mode = "tags" if hits else "recent"
        first: Callable[[int], float]
        if out.mode in ("text", "relevance", "text (no tag matched)"):
            chosen, first = [i for i in scores if ok(i)], (lambda i: -scores[i])
        elif hits:
            out.mode = "tags"
            chosen, first = [i for i in hits if ok(i)], (lambda i: -len(hits[i]))
        else:
            chosen, first = [i for i in self._recency if ok(i)], (lambda i: 0.0)
        out.eligible = len(chosen)
        if support:
            def key_of(i: int) -> tuple[Any, ...]:
                return (first(i), -self._support(i), *entries[i].order())
        else:
            def key_of(i: int) -> tuple[Any, ...]:
                return (first(i), *entries[i].order())
        out.collapsed = len(chosen) - len({self._group(i) for i in chosen})
        for i in self._best(chosen, key_of, limit, presorted=out.mode == "recent" and not support):
            matched = hits.get(i, [])
            row = entries[i].summary(len(matched), matched, round(scores[i], 6) if i in scores else None)
            members = self._members.get(self._group(i), [i])
            if len(members) > 1:
                row["copies"] = [entries[j].copy_ref() for j in members]
            row["support"] = self._support(i)
            out.rows.append(row)
        return out

    def _best(self, chosen: list[int], key_of: Callable[[int], tuple[Any, ...]], limit: int,
              presorted: bool) -> list[int]:
        """The first ``limit`` of ``chosen`` in ``key_of``'s total order, one per lesson (the
        best-ranked copy stands for the rest): a heap of a few more than ``limit``, widened
        while copies use up the places, never a sort of every match."""
        want = limit * 2 + 8
        while True:
            top = chosen[:want] if presorted else heapq.nsmallest(want, chosen, key=key_of)
            picked: list[int] = []
            seen: set[str] = set()
            for i in top:
                group = self._group(i)
                if group not in seen:
                    seen.add(group)
                    picked.append(i)
                    if len(picked) == limit:
                        return picked
            if want >= len(chosen):
                return picked
            want *= 4

    def _matches(self, key: str) -> list[int]:
        found = self._postings.get(key, [])
        if bare(key):  # "learning-rate" matches topic:learning-rate, task:learning-rate, ...
            found = sorted({*found, *self._by_value.get(key, [])})
        return found

    def _known(self) -> list[str]:
        return sorted({t for e in self.entries for t in e.norm})

    def hybrid(self, text: str, tags: tuple[str, ...], hits: dict[int, list[str]]) -> dict[int, float] | None:
        """Text and tags in one score: BM25 of the query's words and the tags' words over
        title, tags, claim and body; with ``hits`` (tags only, ``order="relevance"``), plus,
        for each query tag a card carries, that tag's BM25 weight (its inverse document
        frequency): a rare shared tag (``task:kd-temperature``) counts like a rare word, a tag
        every card of the stage shares (``stage:experiment``) nearly not at all. With a query
        the tags count as its words only: they are then most often the stage-entry tags, which
        say where the agent is rather than what the lesson is about. A card that only the
        text finds is never left out for one that only shares a tag: both are in one ranking."""
        if self._fts is None:
            self._fts = TextIndex(self.entries)
        if not self._fts.available:
            return None
        tag_words = _tag_text(tags)
        scores = self._fts.search(words(f"{text} {tag_words}" if text != tag_words else text))
        n = len(self.entries)
        weight = {tag: idf(len(self._matches(match_key(tag))), n) for tag in tags}
        for i, matched in hits.items():
            scores[i] = scores.get(i, 0.0) + sum(weight[t] for t in matched)
        return scores

    def _group(self, i: int) -> str:
        if self._groups is None:
            self._groups = [e.dup or e.content_key() for e in self.entries]
            members: dict[str, list[int]] = {}
            for j, key in enumerate(self._groups):
                members.setdefault(key, []).append(j)
            self._members = {k: v for k, v in members.items() if len(v) > 1}
        return self._groups[i]

    def _support(self, i: int) -> int:
        """How many quests hold a copy of this lesson (the home's global memory counts as one)."""
        members = self._members.get(self._group(i), [i])
        return len({self.entries[j].quest_id or self.entries[j].scope for j in members})

    def counts(self, tags: tuple[str, ...], kind: str | None, query: str | None) -> dict[str, int]:
        """How many cards are in scope, of ``kind``, and eligible for ``rank`` (a shared tag or a
        text match; every card of the kind when neither tags nor a query is given), so a caller
        can say how many the filters and the limit left out."""
        of_kind = sum(1 for e in self.entries if kind is None or e.kind == kind)
        ranking = self.rank(tags, kind, 1, query)
        return {"cards": len(self.entries), "of_kind": of_kind, "eligible": ranking.eligible}


@dataclass(slots=True)
class Ranking:
    """What ``Index.rank`` found: the rows, how they were ranked, and what a caller should be told."""

    mode: str  # recent | tags | text | text (no tag matched)
    rows: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)  # {tag, closest}: a query tag no card carries
    eligible: int = 0  # cards of the kind that a tag or the text matched (every card of the kind for "recent")
    collapsed: int = 0  # copies folded into a result above them
    notes: list[str] = field(default_factory=list)


def _tag_text(tags: tuple[str, ...]) -> str:
    """Tags as words of a text query: their values only (``topic:`` says what kind of tag it
    is, and every card has one, so it would match every card)."""
    return " ".join(t.rpartition(":")[2].replace("-", " ") for t in tags)


@functools.lru_cache(maxsize=65536)
def _key(tag: str) -> str:
    return match_key(tag)
