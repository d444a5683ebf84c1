"""Parsed cards by (path, mtime_ns, size, inode), in SQLite in the user's cache folder; never required.

SQLite (opened by ``io.cache_dir.open_db``, as the record cache is) makes it atomic and
safe with two processes at once; a corrupt cache is rebuilt, an unwritable home only costs speed. The cache is only used when neither its folder nor
its files are symbolic links and the folder is the user's own and not writable by others:
a quest's agent must not be able to point the cache at a file it wants overwritten, or
hand recall rows it wrote itself. A row is used only when the card file's stat still
matches it, and a row that does not decode is re-read from the card. Each card's row and each
snapshot is sealed with the cache folder's secret (``io.cache_dir.secret``, as the record
cache's rows are): one edited by hand is not used, so it costs time, never what recall shows.
(The full-text table, ``recall.text``, is not sealed: it only orders what ``--query`` finds.)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ds_gate.io.cache_dir import open_db, secret
from ds_gate.kernel.digest import blake2b

CACHE_NAME = "recall-cache.sqlite3"
SEAL = 32  # hex digits of a row's seal, before its text
SNAPSHOTS = 4  # built indexes kept in one cache file (one per scope recalled lately)
CACHE_VERSION = 8  # 8: rows and snapshots sealed; 7: a snapshot of the built index and its FTS5 table (``recall.snapshot``); 6: 6: each row keeps the card's content key, normalised tags and moment; 4: tags bounded


def _setup(db: sqlite3.Connection) -> None:
    """The tables, emptied when another version of ds-gate wrote them."""
    db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS cards (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, "
               "ino INTEGER, entry TEXT)")
    row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
    if row is None:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (str(CACHE_VERSION),))
    elif row[0] != str(CACHE_VERSION):
        db.execute("DROP TABLE cards")
        db.execute("CREATE TABLE cards (path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, ino INTEGER, "
                   "entry TEXT)")
        db.execute("DROP TABLE IF EXISTS snapshot")
        db.execute("DROP TABLE IF EXISTS fts")
        db.execute("DELETE FROM meta WHERE key='fts'")
        db.execute("UPDATE meta SET value=? WHERE key='version'", (str(CACHE_VERSION),))
    db.execute("CREATE TABLE IF NOT EXISTS snapshot (digest TEXT PRIMARY KEY, roots TEXT, state TEXT)")
    for event in ("INSERT", "UPDATE", "DELETE"):  # a changed row, by recall or anyone: the snapshots made from it go
        db.execute(f"CREATE TRIGGER IF NOT EXISTS cards_{event.lower()} AFTER {event} ON cards "
                   "BEGIN DELETE FROM snapshot; DELETE FROM meta WHERE key='fts'; END")
    db.execute("SELECT count(*) FROM cards").fetchone()


class Cache:
    """Parsed cards by (path, mtime_ns, size, inode), in SQLite in the user's cache folder; never required."""

    def __init__(self, folder: Path | None, name: str = CACHE_NAME) -> None:
        self.db = open_db(folder, name, _setup) if folder is not None else None
        self.secret = (secret(folder) if folder is not None and self.db is not None else None) or b""
        if self.db is not None and not self.secret:  # rows nothing can seal: no cache
            self.db.close()
            self.db = None

    def seal(self, *parts: object) -> str:
        """The seal of a row's values (``SEAL`` hex digits), with this cache folder's secret."""
        mac = blake2b(key=self.secret, digest_size=SEAL // 2, person=b"ds-gate-recall")
        for part in parts:
            data = str(part).encode("utf-8", "surrogatepass")
            mac.update(len(data).to_bytes(8, "little") + data)
        return mac.hexdigest()

    def unseal(self, text: object, *parts: object) -> str | None:
        """``text`` without its seal when the seal is this cache's for ``parts``, else None."""
        if not isinstance(text, str) or len(text) < SEAL:
            return None
        body = text[SEAL:]
        return body if text[:SEAL] == self.seal(*parts, body) else None

    def load(self, paths: Sequence[str]) -> dict[str, tuple[object, object, object, object]]:
        """Rows as stored: the caller compares each with the file's stat (a row may hold anything)."""
        if self.db is None or not paths:
            return {}
        try:
            rows = self.db.execute("SELECT path, mtime_ns, size, ino, entry FROM cards").fetchall()
        except sqlite3.DatabaseError:
            return {}
        out = {}
        for p, m, s, i, e in rows:
            body = self.unseal(e, p, m, s, i) if isinstance(p, str) else None
            if body is not None:
                out[p] = (m, s, i, body)
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

    def store(self, rows: list[tuple[str, int, int, int, str]]) -> set[str] | None:
        """Store the rows: the paths whose row is now in the table, None when it could not be written."""
        rows = [row for row in rows if _is_utf8(row[0])]
        if self.db is None or not rows:
            return set()
        rows = [(*row[:4], self.seal(*row) + row[4]) for row in rows]
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.Error:
            return None  # another process holds it longer than the timeout: the next run stores them
        return {row[0] for row in rows}

    def snapshot(self, digest: str) -> str | None:
        """The snapshot made from exactly these files (``recall.snapshot``), as stored."""
        return self.unseal(self._first("SELECT state FROM snapshot WHERE digest=?", digest), digest)

    def keep(self, digest: str, roots: str, state: str) -> None:
        """Keep this snapshot in place of the last one of the same roots (a scope), and at most
        ``SNAPSHOTS`` in all: the quests of a ``visible`` scope change as quests are added."""
        if self.db is None:
            return
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute("DELETE FROM snapshot WHERE roots=? OR rowid NOT IN "
                                "(SELECT rowid FROM snapshot ORDER BY rowid DESC LIMIT ?)", (roots, SNAPSHOTS - 1))
                self.db.execute("INSERT OR REPLACE INTO snapshot VALUES (?, ?, ?)",
                                (digest, roots, self.seal(digest, state) + state))
        except sqlite3.Error:
            pass

    def rows(self) -> dict[str, object]:
        """Every card's stored entry text by path."""
        return {path: row[3] for path, row in self.load(["*"]).items()}

    def row(self, path: str) -> object:
        """One card's stored entry text (a snapshot's entry, made when shown), if its seal holds."""
        if self.db is None:
            return None
        try:
            found = self.db.execute("SELECT mtime_ns, size, ino, entry FROM cards WHERE path=?", (path,)).fetchone()
        except sqlite3.Error:
            return None
        return self.unseal(found[3], path, *found[:3]) if found is not None else None

    def _first(self, sql: str, key: str) -> object:
        """The first column of the one row ``sql`` finds for ``key``; None when there is no
        row, no cache or a database error (the caller then builds without the cache)."""
        if self.db is None:
            return None
        try:
            found = self.db.execute(sql, (key,)).fetchone()
        except sqlite3.Error:
            return None
        return found[0] if found is not None else None


def _is_utf8(path: str) -> bool:
    """SQLite holds UTF-8 text: a card whose file name has a byte that is not UTF-8 (a lone
    surrogate here) is not cached, only read again each time."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
