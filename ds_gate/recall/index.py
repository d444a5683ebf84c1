"""Every recallable card of some memory roots, in memory, ranked on demand: tag overlap through postings
and a heap, recency precomputed, FTS5 ``bm25()`` for queries and the fill (built on first use).
Revalidated from the stamps of the memory folders and their ``_index.jsonl`` (appended on every write)."""

from __future__ import annotations

import gc
import heapq
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.kernel.answers import before
from ds_gate.kernel.cache_folder import stat_key
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.recall import snapshot
from ds_gate.recall.cache import Cache
from ds_gate.recall.entries import Budget, Entry, Ranking, decode_many, dedupe, encode, entry_from_card, from_data
from ds_gate.recall.files import Source, SourceProblem, read_sources
from ds_gate.recall.tags import bare, closest, match_key
from ds_gate.recall.text import FTS5_MISSING, TextIndex, idf, tag_text, words
from ds_gate.sources.card_files import card_stats, read_listed
from ds_gate.sources.memory import parse_card
from ds_gate.sources.problems import PATH_SYMLINK_OUTSIDE_QUEST

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

ORDERS = ("rfc", "relevance")  # with tags only: shared-tag count then recency (the RFC), or the shared tags' rarity
# everywhere (CLI, API, MCP, integration): the RFC's, as issues 29 and 38 pin; one value to switch
DEFAULT_ORDER = "rfc"
STAGE_ORDER = "relevance"  # `recall --for-stage` (its tags assembled by ds-gate): chosen on eval/recall's mixed home


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        return (st := os.stat(path)).st_mtime_ns, st.st_size
    except OSError:
        return None


@dataclass(slots=True)
class Root:
    """A memory folder, which contains its cards (``card_files``), and the folder holding it."""

    memory: Path
    scope: str
    owner: Path


class Index:
    """Every recallable card of some memory roots, ranked on demand."""

    def __init__(self, roots: list[Root], cache: Cache, sources: Sequence[Source]) -> None:
        self.roots = roots
        self.cache = cache
        self.sources = list(sources)
        self.problems: list[SourceProblem] = []  # what the file sources' reading skipped, and why
        self.linked: list[str] = []  # card files and folders not read: links out of their memory folder
        self.entries: Sequence[Entry] = []
        self.stamp: tuple[Any, ...] = ()
        self._fts: TextIndex | None = None
        self._postings: dict[str, list[int]] = {}  # match_key -> entry positions
        self._by_value: dict[str, list[int]] = {}  # a prefixed tag's value key -> entry positions (for bare query tags)
        self._groups: list[int] = []  # per entry: its content key's number (copies of one lesson share it)
        self._members: dict[int, list[int]] = {}  # group -> positions, for groups of two entries or more
        self._recency: list[int] = []  # positions, most recent first (then card id, path)
        self._place: list[int] = []  # per entry: its place in that order (the tie-break among equals)
        self._kinds: list[str] = []
        self._who: list[str] = []  # per entry: its quest (or scope), for support
        self._known_tags: list[str] = []
        self.digest = ""
        self.kinds: Counter[str] = Counter()  # entries per kind
        self.files: list[tuple[str, str, str, os.stat_result]] = []  # each card: path, kind, scope, stat before read
        self._seen: list[str] = []  # the folders listed and the entries passed over (``watched``)
        self._before: dict[str, bytes] = {}  # each stamped path's token before the build read it

    def _stamped(self) -> list[Path]:
        folders = [r.memory / kind for r in self.roots for kind in MEMORY_KINDS]
        return [*(s.path for s in self.sources), *(p for folder in folders for p in (folder, folder / "_index.jsonl"))]

    def signature(self) -> tuple[Any, ...]:
        """Stamps that change when MemoryService writes (a kind folder, its index), a quest is added, or a file source changes."""
        return (tuple(str(r.memory) for r in self.roots), *map(_stamp, self._stamped()))

    def watched(self, watch: Watch) -> None:
        """What it was made from (a kept answer, ``kernel.answers``): roots, stamped paths, listings, cards' stats."""
        watch.look(*(r.memory for r in self.roots), *self._seen)
        for path in map(str, self._stamped()):
            watch.looked(path, self._before.get(path) or before(path))
        watch.stats.extend((path, st) for path, _, _, st in self.files)

    def build(self, snapshot: bool = True) -> None:
        """Every card of the roots (cached where its stat matches) and the file sources, or the
        cache's snapshot of exactly these files (``recall.snapshot``); the collector paused: its
        passes over 10,000 kept entries find nothing to free and cost a fifth of the build."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._build(snapshot)
        finally:
            if enabled:
                gc.enable()
        self._fts, self.stamp = None, self.signature()

    def _build(self, use_snapshot: bool) -> None:
        findings: list[Any] = []
        files: list[tuple[str, str, str, os.stat_result]] = []
        self.files, self._seen = files, []
        self._before = {
            str(p): before(p) for p in self._stamped()
        }  # JSONL and index files: their tokens before the read
        for r in self.roots:
            files.extend((p, k, r.scope, st) for p, k, st in card_stats(r.memory, None, findings, self._seen))
        self.linked = [f.path for f in findings if f.rule == PATH_SYMLINK_OUTSIDE_QUEST.id and f.path]
        # a file's reader, and whether it is read leniently, are part of what it gives
        sources = [(str(s.path), f"{s.read.__name__}{'?' if s.lenient else ''}") for s in self.sources]
        roots = [(str(r.memory), r.scope) for r in self.roots]
        self.digest = snapshot.digest(roots, files, sources, self.cache.version)
        stored = self.cache.snapshot(self.digest) if use_snapshot else None
        if stored is not None:
            try:
                state = snapshot.check(json.loads(stored))
                self.entries = snapshot.Stored(self.cache.row, self.cache.rows, state["refs"], state["scopes"])
                self.problems = [SourceProblem(*p) for p in state["problems"]]
                self._adopt(state)
                return
            except (ValueError, RecursionError):  # not one this version wrote: build it again
                pass
        cached = self.cache.load([p for p, _, _, _ in files])
        fresh: list[tuple[str, bytes, str]] = []
        entries: list[Entry] = []
        budget = Budget()
        rows = [cached.get(key) for key, _, _, _ in files]
        good = [row is not None and row[0] == stat_key(st) for row, (_, _, _, st) in zip(rows, files, strict=True)]
        parsed = decode_many([row[1] for row, ok in zip(rows, good, strict=True) if ok and row is not None])
        parsed_rows = iter(parsed or ())
        in_cards: set[str] = set()
        for (key, kind, scope, st), row, ok in zip(files, rows, good, strict=True):
            entry = None
            if ok and row is not None:
                try:
                    entry = from_data(next(parsed_rows) if parsed is not None else json.loads(row[1]), scope, key)
                    in_cards.add(key)
                except (ValueError, RecursionError):  # a row this version did not write: read the card instead
                    ok = False
            if not ok:
                path = Path(key)
                try:
                    raw = read_listed(path, st)  # the file card_stats contained, never one swapped in since
                except OSError:  # unreadable or over the size limit: `check` reports it, recall skips it
                    continue
                card = parse_card(raw, path=path, display=key, scope=scope, kind=kind)
                entry = entry_from_card(card, scope) if card is not None else None
                fresh.append((key, stat_key(st), encode(entry)))
            if entry is not None:
                budget.spend(entry)
                entries.append(entry)
        written = self.cache.store(fresh)
        self.cache.forget([r.memory for r in self.roots], {p for p, _, _, _ in files}, set(cached) if files else None)
        records, self.problems = read_sources(self.sources, budget)
        self.entries = dedupe([*entries, *records])
        state = snapshot.derive(self.entries)
        self._adopt(state)
        if self.cache.db is not None and written is not None:  # a card without its row is kept inline
            state.update(snapshot.state_of(self.entries, in_cards | written, self.problems))
            self.cache.keep(self.digest, repr(roots), json.dumps(state))

    def _adopt(self, state: dict[str, Any]) -> None:
        self._postings, self._by_value = state["postings"], state["by_value"]
        self._kinds, self._who, self._known_tags = state["kinds"], state["who"], state["known"]
        self._groups = state["groups"]
        self._members = {self._groups[v[0]]: v for v in state["members"]}
        self._recency = state["recency"]
        self._place = [0] * len(self._recency)  # a card's place in the recency order: its tie-break among equals
        for place, i in enumerate(self._recency):
            self._place[i] = place
        self.kinds = Counter(self._kinds)

    def rank(
        self,
        tags: tuple[str, ...],
        kind: str | None,
        limit: int,
        query: str | None,
        support: bool = False,
        order: str = DEFAULT_ORDER,
    ) -> Ranking:
        """The best ``limit`` results, duplicates collapsed (docs/recall-ranking.md). Tags only: the
        cards sharing a tag, by count (``order="relevance"``: by the rarity of the shared tags), then
        recency; when they are fewer than ``limit``, the fill: cards sharing none whose text matches
        the tags' words (BM25), after them. A query: text and tags' words as one BM25 ranking."""
        entries, place, kinds, groups = self.entries, self._place, self._kinds, self._groups
        hits: dict[int, list[str]] = {}
        unmatched: list[str] = []
        for tag in tags:
            found = self._matches(match_key(tag))
            if not found:
                unmatched.append(tag)
            for i in found:
                hits.setdefault(i, []).append(tag)
        out = Ranking(mode="recent", unmatched=[{"tag": t, "closest": closest(t, self._known_tags)} for t in unmatched])
        ok = (lambda i: True) if kind is None else (lambda i: kinds[i] == kind)
        scores: dict[int, float] = {}
        items: list[tuple[Any, ...]] = []
        presorted = False
        lexical = self.lexical(f"{query} {tag_text(tags)}") if query else None
        if query and lexical is None:
            out.notes.append(FTS5_MISSING)
        if lexical is not None:  # a query: one BM25 ranking of its words and the tags'
            out.mode, scores = "text", lexical
            items = [(-v, place[i], i) for i, v in scores.items() if ok(i)]
        elif tags:  # tags only: the RFC's list (or the rarity order), then the fill
            weight = self._weights(tags) if order == "relevance" else {}
            key = (lambda m: -sum(weight[t] for t in m)) if weight else (lambda m: -len(m))
            items = [(0, key(m), place[i], i) for i, m in hits.items() if ok(i)]
            out.mode = "relevance" if weight else "tags"
            fill = None
            if len({groups[it[-1]] for it in items}) < limit and not query:
                fill = self.lexical(tag_text(tags))
                if fill is None:
                    out.notes.append(FTS5_MISSING)
                else:  # cards sharing no tag, by their text's match of the tags' words, after the list
                    scores = {i: v for i, v in fill.items() if i not in hits}
                    items += [(1, -v, place[i], i) for i, v in scores.items() if ok(i)]
            if not hits and fill is not None:
                out.mode = "text (no tag matched)"
            elif not hits:  # no FTS5 and no tag matched: recency, as before
                out.mode, items, presorted = "recent", [(i,) for i in self._recency if ok(i)], True
        else:
            items, presorted = [(i,) for i in self._recency if ok(i)], True
        if support:  # the number of quests holding the lesson, before recency
            items = [(*it[:-2], -self._support(it[-1]), *it[-2:]) if len(it) > 1 else it for it in items]
            if presorted:
                items, presorted = [(-self._support(i), place[i], i) for (i,) in items], False
        out.eligible, out.collapsed = len(items), len(items) - len({groups[it[-1]] for it in items})
        for i in self._best(items, limit, presorted):
            matched = hits.get(i, [])
            row = entries[i].summary(len(matched), matched, round(scores[i], 6) if i in scores else None)
            row["matched_by"] = "tags" if matched else "text" if i in scores else "recent"
            members = self._members.get(groups[i], [i])
            if len(members) > 1:
                row["copies"] = [entries[j].copy_ref() for j in members]
            row["support"] = self._support(i)
            out.rows.append(row)
        return out

    def _best(self, items: list[tuple[Any, ...]], limit: int, presorted: bool) -> list[int]:
        """The first ``limit`` items' positions (an item's last element) in key order, one per lesson:
        a heap of a few more than ``limit``, widened while copies use up places, never a full sort."""
        groups = self._groups
        want = limit * 2 + 8
        while True:
            top = items[:want] if presorted else heapq.nsmallest(want, items)
            picked: list[int] = []
            seen: set[int] = set()
            for item in top:
                i = item[-1]
                if groups[i] not in seen:
                    seen.add(groups[i])
                    picked.append(i)
                    if len(picked) == limit:
                        return picked
            if want >= len(items):
                return picked
            want *= 4

    def _matches(self, key: str) -> list[int]:
        found = self._postings.get(key, [])
        if bare(key):  # "learning-rate" matches topic:learning-rate, task:learning-rate, ...
            found = sorted({*found, *self._by_value.get(key, [])})
        return found

    def lexical(self, text: str) -> dict[int, float] | None:
        """BM25 of ``text``'s words (each in both spellings) over every entry; None without FTS5."""
        if self._fts is None:
            self._fts = TextIndex(self.entries, self.cache.db, self.digest)
        if not self._fts.available:
            return None
        query = words(text)
        scores = self._fts.search(query)
        if scores is None:  # the cache file's table was made again for other cards: index these in memory
            self._fts = TextIndex(self.entries)
            scores = self._fts.search(query) or {}
        return scores

    def _weights(self, tags: tuple[str, ...]) -> dict[str, float]:
        """Each query tag's rarity: BM25's inverse document frequency over the cards' tags, so a
        shared ``task:kd-temperature`` outweighs a shared ``stage:experiment`` half the cards carry."""
        n = len(self.entries)
        return {tag: idf(len(self._matches(match_key(tag))), n) for tag in tags}

    def _support(self, i: int) -> int:
        """How many quests hold a copy of this lesson (the home's global memory counts as one)."""
        members = self._members.get(self._groups[i], [i])
        return len({self._who[j] for j in members})
