"""A built index in the cache file, so a new process ranks 10,000 cards without making 10,000
entries: what ranking needs is one JSON value, and an entry is made only when it is shown, from
its card's row (a JSONL record's row is kept inline); docs/recall-ranking.md.

Keyed by a digest of everything the index is made from (the roots, every card file's path, kind
and stat, every JSONL source's stat), so any change to a card file changes it; any change to a
``cards`` row deletes the snapshot (triggers, ``cache._tables``). One that does not decode, or
names a missing row, is ignored and the index built the ordinary way (``Stale``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any, overload

from ds_gate.kernel.cache_folder import stat_key
from ds_gate.recall.entries import Entry, encode, from_data
from ds_gate.recall.jsonl import SourceProblem
from ds_gate.recall.tags import bare, match_key


class Stale(ValueError):
    """A snapshot's entry could not be made (its row changed or went): rebuild without it."""


def digest(
    roots: Sequence[tuple[str, str]],
    files: Sequence[tuple[str, str, str, os.stat_result]],
    sources: Sequence[tuple[str, str]],
    version: str,
) -> str:
    """What the index is made from, hashed (the stat of the file sources, each (path, reader,
    lenient), taken here: a file's reader, and whether it is read leniently, are part of what it gives)."""
    h = hashlib.sha256(repr((version, list(roots))).encode("utf-8", "surrogatepass"))
    h.update(
        "\n".join(f"{p}\0{k}\0{s}\0{stat_key(st).hex()}\0{st.st_mode}" for p, k, s, st in files).encode(
            "utf-8", "surrogatepass"
        )
    )
    for source, reader in sources:
        try:
            st = os.stat(source)
            h.update(f"\n{reader}\0{source}\0{stat_key(st).hex()}\0{st.st_mode}".encode("utf-8", "surrogatepass"))
        except OSError:
            h.update(f"\n{reader}\0{source}\0-".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def pack(entry: Entry) -> list[Any]:
    """An entry kept inline (a JSONL record, or a card whose row is not in ``cards``)."""
    return [json.loads(encode(entry)), entry.scope, entry.path, entry.fields]


def unpack(data: Any) -> Entry:
    if type(data) is not list or len(data) != 4 or type(data[1]) is not str or type(data[2]) is not str:
        raise Stale("not a snapshot row")
    fields = data[3]
    if fields is not None and not (type(fields) is dict and all(type(v) is str for v in fields.values())):
        raise Stale("not a snapshot row")
    entry = from_data(data[0], data[1], data[2])
    if entry is None:
        raise Stale("not a snapshot row")
    entry.fields = fields
    return entry


class Stored(Sequence[Entry]):
    """The entries of a snapshot, each made when first asked for."""

    def __init__(self, rows: Any, table: Any, refs: list[Any], scopes: list[str]) -> None:
        self._rows = rows  # path -> the cards row's entry text (a callable: one query per entry shown)
        self._table = table  # () -> every row's entry text by path (one query, to make them all)
        self._refs = refs  # per entry: its card's path (row in ``cards``) or its packed row
        self._scopes = scopes
        self._made: dict[int, Entry] = {}

    def __len__(self) -> int:
        return len(self._refs)

    @overload
    def __getitem__(self, i: int) -> Entry: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Entry]: ...

    def __getitem__(self, i: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        made = self._made.get(i)
        if made is None:
            ref = self._refs[i]
            if type(ref) is str:
                text = self._rows(ref)
                try:
                    made = from_data(json.loads(text), self._scopes[i], ref) if isinstance(text, str) else None
                except (ValueError, RecursionError) as exc:
                    raise Stale(str(exc)) from None
                if made is None:
                    raise Stale(f"no row for {ref}")
            else:
                made = unpack(ref)
            self._made[i] = made
        return made

    def __iter__(self) -> Iterator[Entry]:
        if len(self._made) < len(self):  # all of them (an FTS5 table to make): one query, not one each
            table = self._table()
            rows, self._rows = self._rows, table.get
            try:
                yield from (self[i] for i in range(len(self)))
            finally:
                self._rows = rows
        else:
            yield from (self[i] for i in range(len(self)))


def state_of(entries: Sequence[Entry], in_cards: set[str], problems: Sequence[SourceProblem] = ()) -> dict[str, Any]:
    """What a snapshot keeps of a full build besides what ``derive`` computes from the entries
    (and what the JSONL sources' reading skipped, said again by every recall made from it)."""
    return {
        "refs": [e.path if e.scope != "jsonl" and e.path in in_cards else pack(e) for e in entries],
        "scopes": [e.scope for e in entries],
        "problems": [[p.path, p.line, p.why] for p in problems],
    }


def check(state: Any) -> dict[str, Any]:
    """A decoded snapshot, its shape checked (positions in range), or Stale."""
    try:
        n = len(state["refs"])
        ok = (
            len(state["scopes"]) == len(state["kinds"]) == len(state["groups"]) == len(state["who"]) == n
            and sorted(state["recency"]) == list(range(n))
            and all(
                type(v) is list and all(type(i) is int and 0 <= i < n for i in v)
                for v in (*state["postings"].values(), *state["by_value"].values(), *state["members"])
            )
            and all(type(g) is int for g in state["groups"])
            and all(type(t) is str for v in (state["kinds"], state["who"], state["known"], state["scopes"]) for t in v)
            and all(type(r) in (str, list) for r in state["refs"])
            and all(
                type(p) is list
                and len(p) == 3
                and type(p[0]) is str
                and (p[1] is None or type(p[1]) is int)
                and type(p[2]) is str
                for p in state["problems"]
            )
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise Stale(str(exc)) from None
    if not ok:
        raise Stale("not a snapshot")
    return dict(state)


def derive(entries: Sequence[Entry]) -> dict[str, Any]:
    """What ranking needs, from the entries: postings, recency, kinds, content groups."""
    postings: dict[str, list[int]] = {}
    by_value: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        for key in {_key(tag) for tag in entry.norm}:
            postings.setdefault(key, []).append(i)
            if not bare(key):
                by_value.setdefault(key.rpartition(":")[2], []).append(i)
    orders = [e.order() for e in entries]  # each card's place among equals, made once
    ids: dict[str, int] = {}
    groups = [ids.setdefault(e.dup or e.content_key(), len(ids)) for e in entries]
    members: dict[int, list[int]] = {}
    for j, g in enumerate(groups):
        members.setdefault(g, []).append(j)
    return {
        "postings": postings,
        "by_value": by_value,
        "kinds": [e.kind for e in entries],
        "groups": groups,
        "recency": sorted(range(len(entries)), key=orders.__getitem__),
        "members": [v for v in members.values() if len(v) > 1],
        "who": [e.quest_id or e.scope for e in entries],
        "known": sorted({t for e in entries for t in e.norm}),
    }


@functools.lru_cache(maxsize=65536)
def _key(tag: str) -> str:
    return match_key(tag)
