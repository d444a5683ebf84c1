"""Recall's use of ds-gate's cache file (``io.cache_file``: where it lives, its version, seals and
stat key): each parsed card by its path and stat key, and the built indexes (``recall.snapshot``).
Never required: an unwritable home only costs speed. A row is used only while the card's stat key
matches and its seal (the cache folder's secret) holds, so a row edited by hand costs time, never
what recall shows. (The full-text table, ``recall.text``, is not sealed: it only orders results.)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ds_gate.io.cache_file import CacheFile
from ds_gate.kernel.cache_folder import SEAL, StatKey

SNAPSHOTS = 4  # built indexes kept in one cache file (one per scope recalled lately)
SEAL_TEXT = 2 * SEAL  # hex digits of a row's seal, before its text


def _tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS cards (path TEXT PRIMARY KEY, stat BLOB, entry TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS snapshot (digest TEXT PRIMARY KEY, roots TEXT, state TEXT)")
    for event in ("INSERT", "UPDATE", "DELETE"):  # a changed row, by recall or anyone: the snapshots made from it go
        db.execute(
            f"CREATE TRIGGER IF NOT EXISTS cards_{event.lower()} AFTER {event} ON cards "
            "BEGIN DELETE FROM snapshot; DELETE FROM meta WHERE key='fts'; END"
        )
    db.execute("SELECT count(*) FROM cards").fetchone()


class Cache:
    """Parsed cards by path and stat key, and built indexes, in the user's cache folder; never required."""

    def __init__(self, folder: str | os.PathLike[str] | None, name: str = "recall-cache.sqlite3") -> None:
        self.file = CacheFile(folder, name, (b"recall",), _tables, durable=True)
        self.db = self.file.db
        self.version = self.file.version.hex()

    def seal(self, *parts: object) -> str:
        """The seal of a row's values (``SEAL_TEXT`` hex digits), with this cache folder's secret."""
        return self.file.seal(
            *(p if isinstance(p, bytes) else str(p).encode("utf-8", "surrogatepass") for p in parts)
        ).hex()

    def unseal(self, text: object, *parts: object) -> str | None:
        """``text`` without its seal when the seal is this cache's for ``parts``, else None."""
        if not isinstance(text, str) or len(text) < SEAL_TEXT:
            return None
        body = text[SEAL_TEXT:]
        return body if text[:SEAL_TEXT] == self.seal(*parts, body) else None

    def load(self, paths: Sequence[str]) -> dict[str, tuple[object, str]]:
        """Sealed rows as (stat key, entry text): the caller compares each key with the file's."""
        if self.db is None or not paths:
            return {}
        try:
            rows = self.db.execute("SELECT path, stat, entry FROM cards").fetchall()
        except sqlite3.DatabaseError:
            return {}
        out: dict[str, tuple[object, str]] = {}
        for path, key, entry in rows:
            body = self.unseal(entry, path, key) if isinstance(path, str) and isinstance(key, bytes) else None
            if body is not None:
                out[path] = (key, body)
        return out

    def forget(self, roots: list[Path], present: set[str], stored: set[str] | None = None) -> None:
        """Drop the rows of cards that were removed from the folders just scanned. ``stored``:
        the paths ``load`` returned, when the caller has them (no second pass over the table)."""
        if self.db is None:
            return
        try:
            known = stored if stored is not None else {p for (p,) in self.db.execute("SELECT path FROM cards")}
            gone = [(p,) for p in known - present if any(p.startswith(f"{r}{os.sep}") for r in roots)]
            if gone:
                with self.db:
                    self.db.execute("BEGIN IMMEDIATE")
                    self.db.executemany("DELETE FROM cards WHERE path=?", gone)
        except sqlite3.Error:
            pass

    def store(self, rows: list[tuple[str, StatKey, str]]) -> set[str] | None:
        """Store the rows (path, stat key, entry text): the paths whose row is now in the table,
        None when it could not be written (the next run stores them)."""
        rows = [row for row in rows if _is_utf8(row[0])]
        if self.db is None or not rows:
            return set()
        if not self.file.write(
            "INSERT OR REPLACE INTO cards VALUES (?, ?, ?)",
            [(path, key, self.seal(path, key, entry) + entry) for path, key, entry in rows],
        ):
            return None
        return {row[0] for row in rows}

    def snapshot(self, digest: str) -> str | None:
        """The snapshot made from exactly these files (``recall.snapshot``), as stored."""
        found = self._one("SELECT state FROM snapshot WHERE digest=?", digest)
        return self.unseal(found[0], digest) if found is not None else None

    def keep(self, digest: str, roots: str, state: str) -> None:
        """Keep this snapshot in place of the last one of the same roots (a scope), and at most
        ``SNAPSHOTS`` in all: the quests of a ``visible`` scope change as quests are added."""
        if self.db is None:
            return
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute(
                    "DELETE FROM snapshot WHERE roots=? OR rowid NOT IN "
                    "(SELECT rowid FROM snapshot ORDER BY rowid DESC LIMIT ?)",
                    (roots, SNAPSHOTS - 1),
                )
                self.db.execute(
                    "INSERT OR REPLACE INTO snapshot VALUES (?, ?, ?)",
                    (digest, roots, self.seal(digest, state) + state),
                )
        except sqlite3.Error:
            pass

    def rows(self) -> dict[str, object]:
        """Every card's stored entry text by path."""
        return {path: row[1] for path, row in self.load(["*"]).items()}

    def row(self, path: str) -> object:
        """One card's stored entry text (a snapshot's entry, made when shown), if its seal holds."""
        found = self._one("SELECT stat, entry FROM cards WHERE path=?", path)
        return self.unseal(found[1], path, found[0]) if found is not None else None

    def _one(self, sql: str, key: str) -> tuple[object, ...] | None:
        """The one row ``sql`` finds for ``key``; None when there is no row, no cache or a
        database error (the caller then builds without the cache)."""
        if self.db is None:
            return None
        try:
            found: tuple[object, ...] | None = self.db.execute(sql, (key,)).fetchone()
        except sqlite3.Error:
            return None
        return found


def _is_utf8(path: str) -> bool:
    """SQLite holds UTF-8 text: a card whose file name has a byte that is not UTF-8 (a lone
    surrogate here) is not cached, only read again each time."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
