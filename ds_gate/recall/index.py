"""Every recallable card of some memory roots, in memory, ranked on demand: tag overlap
through postings and a heap, recency as a precomputed order, SQLite FTS5 ``bm25()`` for
the lexical fallback (built on first use). Revalidated from the stamps of the memory
folders and their ``_index.jsonl`` (MemoryService appends to it on every write)."""

from __future__ import annotations

import heapq
import os
import re
import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ds_gate.kernel import fs
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.recall.cache import Cache
from ds_gate.recall.entries import Budget, Entry, decode, encode, entry_from_card
from ds_gate.recall.jsonl import read_jsonl
from ds_gate.sources.card_files import card_files
from ds_gate.sources.memory import parse_card

_WORD = re.compile(r"\w+", re.UNICODE)


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
        self._fts: sqlite3.Connection | None = None
        self._postings: dict[str, list[int]] = {}
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
        findings: list[Any] = []
        files: list[tuple[Path, str, str]] = []
        for root in self.roots:
            files.extend((path, kind, root.scope) for path, kind in card_files(root.memory, root.contain, None, findings))
        cached = self.cache.load([str(p) for p, _, _ in files])
        fresh: list[tuple[str, int, int, int, str]] = []
        entries: list[Entry] = []
        budget = Budget()
        for path, kind, scope in files:
            key = str(path)
            try:
                st = os.stat(path)
            except OSError:
                continue
            row = cached.get(key)
            entry, fresh_read = None, True
            if row is not None and row[:3] == (st.st_mtime_ns, st.st_size, st.st_ino) and isinstance(row[3], str):
                try:
                    entry, fresh_read = decode(row[3], scope, key), False
                except (ValueError, RecursionError):  # a row this version did not write: read the card instead
                    pass
            if fresh_read:
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
        self.cache.forget([r.memory for r in self.roots], {str(p) for p, _, _ in files})
        for source in self.jsonl:
            entries.extend(read_jsonl(source, budget))
        self.entries = _dedupe(entries)
        self._postings = {}
        for i, entry in enumerate(self.entries):
            for tag in entry.norm:
                self._postings.setdefault(tag, []).append(i)
        self._recency = sorted(range(len(self.entries)), key=lambda i: self.entries[i].order())
        self._fts = None
        self.stamp = self.signature()

    def rank(self, tags: tuple[str, ...], kind: str | None, limit: int, query: str | None) -> list[dict[str, Any]]:
        wanted = set(tags)
        entries = self.entries
        ok_kind = (lambda e: True) if kind is None else (lambda e: e.kind == kind)
        ordered: list[tuple[Entry, int, tuple[str, ...]]] = []
        none: tuple[str, ...] = ()
        skip: set[int] = set()
        if not wanted:
            if not query:  # with only a query, the lexical ranking below is the answer
                ordered = [(entries[i], 0, none) for i in self._recency if ok_kind(entries[i])][:limit]
        else:
            hits: dict[int, int] = {}
            for tag in wanted:
                for i in self._postings.get(tag, ()):
                    hits[i] = hits.get(i, 0) + 1
            chosen = [i for i in hits if ok_kind(entries[i])] if kind is not None else list(hits)
            # the best `limit` of a total order: a heap, not a sort of every match
            top = heapq.nsmallest(limit, chosen, key=lambda i: (-hits[i], *entries[i].order()))
            ordered = [(entries[i], hits[i], tuple(t for t in tags if t in entries[i].norm)) for i in top]
            skip = {id(entries[i]) for i in chosen}
        out = [e.summary(n, m) for e, n, m in ordered]
        if query and len(out) < limit:
            for entry, score in self.lexical(query):
                if len(out) >= limit:
                    break
                if id(entry) not in skip and ok_kind(entry):
                    out.append(entry.summary(0, (), round(score, 6)))
        return out

    def counts(self, tags: tuple[str, ...], kind: str | None, query: str | None) -> dict[str, int]:
        """How many cards are in scope, of ``kind``, and eligible for ``rank`` (a shared tag or a
        text match; every card of the kind when neither tags nor a query is given), so a caller
        can say how many the filters and the limit left out."""
        of_kind = [e for e in self.entries if kind is None or e.kind == kind]
        wanted = set(tags)
        if not wanted and not query:
            eligible = len(of_kind)
        else:
            ids = {id(e) for e in of_kind if wanted & e.norm}
            if query:
                ids.update(id(e) for e, _ in self.lexical(query) if kind is None or e.kind == kind)
            eligible = len(ids)
        return {"cards": len(self.entries), "of_kind": len(of_kind), "eligible": eligible}

    def lexical(self, query: str) -> list[tuple[Entry, float]]:
        words = [w for w in _WORD.findall(unicodedata.normalize("NFKC", query).casefold()) if len(w) > 1]
        if not words or not self.entries:
            return []
        if self._fts is None:
            db = sqlite3.connect(":memory:")
            db.execute("CREATE VIRTUAL TABLE fts USING fts5(title, claim, body, tokenize='porter unicode61')")
            db.executemany("INSERT INTO fts(rowid, title, claim, body) VALUES (?, ?, ?, ?)",
                           [(i, e.title or "", e.claim or "", e.text) for i, e in enumerate(self.entries)])
            self._fts = db
        match = " OR ".join('"' + w.replace('"', "") + '"' for w in dict.fromkeys(words))
        rows = self._fts.execute("SELECT rowid, bm25(fts, 3.0, 3.0, 1.0) FROM fts WHERE fts MATCH ?", (match,)).fetchall()
        # bm25 is lower-is-better; ties by the same total order as everything else
        rows.sort(key=lambda r: (r[1], *self.entries[r[0]].order()))
        return [(self.entries[i], -score) for i, score in rows]


def _dedupe(entries: list[Entry]) -> list[Entry]:
    """One summary per card id: the global copy of a promoted card, else the first found."""
    rank = {"global": 0, "quest": 1, "shared_quest": 2, "jsonl": 3}
    best: dict[str, Entry] = {}
    for entry in sorted(entries, key=lambda e: (rank.get(e.scope, 9), e.path)):
        best.setdefault(entry.card_id, entry)
    return sorted(best.values(), key=lambda e: e.path)
