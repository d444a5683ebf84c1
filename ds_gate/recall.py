"""Recall of lessons: the RFC's ``memory.list_knowledge_summaries(domain_tags, kind, limit)``.

DeepScientist never implemented it: its memory search is one substring match ordered by
time, over the last 500 files only. Here:

- **One tag normalisation** for cards and queries (``normalize_tag``): NFKC, casefold,
  strip, runs of spaces/underscores to ``-``; ``stage:``/``topic:`` prefixes stay.
- **A total, deterministic order**: tag overlap (descending), ``updated_at`` (descending),
  card id, path. Empty ``domain_tags``: recency, same tie-breaks. ``kind`` filters before
  ``limit``; nothing is truncated before ranking; every card file is read.
- **A lexical fallback** (``query=``): cards with no tag overlap rank after every
  overlapping card, by SQLite FTS5 ``bm25()`` over title, claim and body.
- **Speed**: cards are parsed with the C YAML loader; a cache under the home
  (``<home>/.ds-gate/recall-cache.sqlite3``) keeps each parsed card keyed by (path,
  ``mtime_ns``, size). SQLite makes it atomic and safe with two processes at once; a
  corrupt cache is rebuilt. Within a process the index stays in memory and is revalidated
  from the stamps of the memory folders and their ``_index.jsonl`` (MemoryService appends
  to it on every write); ``refresh=True`` re-stats every file.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import re
import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import QuestError
from .model import timestamp
from .sources.paths import MEMORY_KINDS
from .sources.memory import card_files, card_tags, parse_card, resolve_home

SCOPES = ("global", "quest", "visible")
MAX_LIMIT = 200
CACHE_NAME = "recall-cache.sqlite3"
CACHE_VERSION = 2
_RUN = re.compile(r"[\s_]+")
_COLON = re.compile(r"\s*:\s*")
_DASHES = re.compile(r"-{2,}")
_WORD = re.compile(r"\w+", re.UNICODE)


def normalize_tag(tag: Any) -> str:
    """``" Topic: Learning_Rate "`` -> ``"topic:learning-rate"``; the same for cards and queries.

    NFKC, casefold, strip; spaces around ``:`` dropped; runs of spaces, underscores and
    hyphens become one ``-``."""
    text = unicodedata.normalize("NFKC", str(tag)).casefold().strip()
    text = _COLON.sub(":", text)  # "Topic: Reward Hacking" is topic:reward-hacking
    return _DASHES.sub("-", _RUN.sub("-", text))  # "data - dedup" is data-dedup


def normalize_tags(tags: Iterable[Any]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for tag in tags:
        norm = normalize_tag(tag)
        if norm:
            out.setdefault(norm, None)
    return tuple(out)


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


def _entry_from_card(card: Any, scope: str) -> Entry | None:
    if card.broken or not card.card_id:
        return None
    meta = card.meta
    tags = card_tags(meta.get("tags"))
    claim = meta.get("claim") if isinstance(meta.get("claim"), str) else None
    updated = meta.get("updated_at") if isinstance(meta.get("updated_at"), str) else None
    kind = meta.get("type") if meta.get("type") in MEMORY_KINDS else card.kind
    return Entry(card.card_id, card.title, claim, tags, frozenset(normalize_tags(tags)), kind, scope, card.quest_id, updated,
                 str(card.path), card.body, timestamp(updated))


# ---------------------------------------------------------------- the cache


class Cache:
    """Parsed cards by (path, mtime_ns, size), in SQLite under the home; never required."""

    def __init__(self, folder: Path | None) -> None:
        self.db: sqlite3.Connection | None = None
        if folder is None:
            return
        path = folder / CACHE_NAME
        for attempt in range(2):
            try:
                folder.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=10, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                db.execute("CREATE TABLE IF NOT EXISTS cards (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, "
                           "entry TEXT)")
                row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
                if row is None:
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(CACHE_VERSION),))
                elif row[0] != str(CACHE_VERSION):
                    db.execute("DELETE FROM cards")
                    db.execute("UPDATE meta SET value=? WHERE key='version'", (str(CACHE_VERSION),))
                db.execute("SELECT count(*) FROM cards").fetchone()
                self.db = db
                return
            except sqlite3.DatabaseError:  # corrupt (or not a database): rebuild it once
                if attempt == 0:
                    for suffix in ("", "-wal", "-shm"):
                        try:
                            os.unlink(f"{path}{suffix}")
                        except OSError:
                            pass
            except OSError:
                return  # a read-only home: recall works, uncached

    def load(self, paths: Sequence[str]) -> dict[str, tuple[int, int, str]]:
        if self.db is None or not paths:
            return {}
        try:
            rows = self.db.execute("SELECT path, mtime_ns, size, entry FROM cards").fetchall()
        except sqlite3.DatabaseError:
            return {}
        return {p: (m, s, e) for p, m, s, e in rows}

    def forget(self, roots: list[Path], present: set[str]) -> None:
        """Drop the rows of cards that were removed from the folders just scanned."""
        if self.db is None:
            return
        try:
            gone = [(p,) for (p,) in self.db.execute("SELECT path FROM cards")
                    if p not in present and any(p.startswith(f"{r}{os.sep}") for r in roots)]
            if gone:
                with self.db:
                    self.db.execute("BEGIN IMMEDIATE")
                    self.db.executemany("DELETE FROM cards WHERE path=?", gone)
        except sqlite3.Error:
            pass

    def store(self, rows: list[tuple[str, int, int, str]]) -> None:
        if self.db is None or not rows:
            return
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error:
            pass  # another process holds it longer than the timeout: the next run stores them


def _encode(entry: Entry | None) -> str:
    if entry is None:
        return "null"
    return json.dumps([entry.card_id, entry.title, entry.claim, list(entry.tags), entry.kind, entry.quest_id,
                       entry.updated_at, entry.text])


def _decode(text: str, scope: str, path: str) -> Entry | None:
    data = json.loads(text)
    if data is None:
        return None
    card_id, title, claim, tags, kind, quest_id, updated, body = data
    tags = tuple(tags)
    return Entry(card_id, title, claim, tags, frozenset(normalize_tags(tags)), kind, scope, quest_id, updated, path, body,
                 timestamp(updated))


# ---------------------------------------------------------------- the index


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
        fresh: list[tuple[str, int, int, str]] = []
        entries: list[Entry] = []
        for path, kind, scope in files:
            key = str(path)
            try:
                st = os.stat(path)
            except OSError:
                continue
            hit = cached.get(key)
            if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
                entry = _decode(hit[2], scope, key)
            else:
                try:
                    raw = path.read_bytes()
                except OSError:
                    continue
                card = parse_card(raw, path=path, display=key, scope=scope, kind=kind)
                entry = _entry_from_card(card, scope) if card is not None else None
                fresh.append((key, st.st_mtime_ns, st.st_size, _encode(entry)))
            if entry is not None:
                entries.append(entry)
        self.cache.store(fresh)
        self.cache.forget([r.memory for r in self.roots], {str(p) for p, _, _ in files})
        for source in self.jsonl:
            entries.extend(read_jsonl(source))
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


# ---------------------------------------------------------------- the API

_INDEXES: dict[tuple[Any, ...], Index] = {}


def _roots(home: Path, quest: Path | None, scope: str) -> list[Root]:
    roots: list[Root] = []
    if scope in ("global", "visible"):
        roots.append(Root(home / "memory", "global", home))
    if scope in ("quest", "visible") and quest is not None:
        roots.append(Root(quest / "memory", "quest", quest))
    if scope == "visible":
        try:
            others = sorted(p for p in (home / "quests").iterdir() if p.is_dir())
        except OSError:
            others = []
        roots.extend(Root(p / "memory", "shared_quest", p) for p in others if quest is None or p.resolve() != quest)
    return roots


def list_knowledge_summaries(
    domain_tags: Iterable[str] | str | None = (),
    kind: str | None = None,
    limit: int = 20,
    *,
    home: Path | str | None = None,
    quest: Path | str | None = None,
    scope: str = "visible",
    query: str | None = None,
    jsonl: Sequence[Path | str] = (),
    refresh: bool = False,
    cache: bool = True,
) -> list[dict[str, Any]]:
    """Cards whose tags overlap ``domain_tags``, best first (see the module docstring)."""
    if isinstance(domain_tags, str):
        domain_tags = domain_tags.split(",")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise QuestError(f"limit must be an integer from 1 to {MAX_LIMIT}, not {limit!r}")
    if scope not in SCOPES:
        raise QuestError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    if kind is not None and kind not in MEMORY_KINDS and not jsonl:
        raise QuestError(f"kind must be one of {', '.join(MEMORY_KINDS)}, not {kind!r}")
    home_path = resolve_home(home)
    quest_path = None
    if quest is not None:
        from .sources.location import locate

        quest_path = locate(quest).root
    if scope == "quest" and quest_path is None:
        raise QuestError("scope 'quest' needs a quest (--quest PATH)")
    sources = [Path(p) for p in jsonl]
    for source in sources:
        if not source.is_file():
            raise QuestError(f"cannot read {source}: no such file")
    key = (str(home_path), str(quest_path), scope, tuple(str(p) for p in sources), cache)
    roots = _roots(home_path, quest_path, scope)  # each call: a quest added since is seen
    index = _INDEXES.get(key)
    if index is None:
        index = Index(roots, Cache(home_path / ".ds-gate" if cache else None), sources)
        index.build()
        _INDEXES[key] = index
    else:
        index.roots = roots
        if refresh or index.signature() != index.stamp:
            index.build()
    return index.rank(normalize_tags(domain_tags or ()), kind, limit, query)


# ---------------------------------------------------------------- ScienceClaw's JSONL

JSONL_TYPES = ("finding", "ideation", "strategy", "pitfall")
_TEXT_KEYS = ("content", "text", "finding", "summary", "description", "insight", "title")


def read_jsonl(path: Path) -> list[Entry]:
    """ScienceClaw's evolving memory (``findings.jsonl``) as cards: one record per line,
    ``type`` in finding/ideation/strategy/pitfall, with ``tags``, ``date``, ``project``.
    A record without an id gets a deterministic one from its content."""
    import hashlib

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise QuestError(f"cannot read {path}: {exc.strerror or exc}") from exc
    out = []
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        text = next((data[k] for k in _TEXT_KEYS if isinstance(data.get(k), str) and data[k].strip()), "")
        kind = data.get("type") or data.get("kind") or "finding"
        given = data.get("id")
        card_id = given if isinstance(given, str) and given.strip() else \
            f"{kind}-{hashlib.sha256(line.strip().encode()).hexdigest()[:8]}"
        tags = card_tags(data.get("tags"))
        date = data.get("date") if isinstance(data.get("date"), str) else None
        title = data.get("title") if isinstance(data.get("title"), str) else text[:80]
        project = data.get("project")
        out.append(Entry(card_id, title, text, tags, frozenset(normalize_tags(tags)), str(kind), "jsonl",
                         str(project) if project is not None else None, date, f"{path}:{number}", text, timestamp(date)))
    return out


def tags_for_stage(quest: Path | str, stage: str) -> tuple[list[str], bool]:
    """The RFC's stage-entry tags: the quest's domains (``brief.domains`` or ``domains`` in
    quest.yaml, also under ``startup_contract``) and ``stage:<stage>``; and whether the
    quest turned ``recall_priors`` on."""
    from .sources.location import locate
    from .sources.quest_yaml import coerce_toggle, read_quest_yaml

    meta, _ = read_quest_yaml(locate(quest).root)
    raw_contract = meta.get("startup_contract")
    contract: dict[str, Any] = raw_contract if isinstance(raw_contract, dict) else {}
    domains: list[str] = []
    for holder in (meta, contract):
        brief = holder.get("brief")
        for found in (holder.get("domains"), brief.get("domains") if isinstance(brief, dict) else None):
            if isinstance(found, list):
                domains.extend(str(d) for d in found if isinstance(d, (str, int)))  # never a nested value
            elif isinstance(found, str):
                domains.extend(found.split(","))
    tags = list(normalize_tags([*domains, f"stage:{stage}"]))
    return tags, coerce_toggle(contract.get("recall_priors"))
