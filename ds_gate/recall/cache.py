"""Parsed cards by (path, mtime_ns, size), in SQLite in the user's cache folder; never required.

SQLite makes it atomic and safe with two processes at once; a corrupt cache is rebuilt,
an unwritable home only costs speed.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

CACHE_NAME = "recall-cache.sqlite3"
CACHE_VERSION = 2


class Cache:
    """Parsed cards by (path, mtime_ns, size), in SQLite in the user's cache folder; never required."""

    def __init__(self, folder: Path | None, name: str = CACHE_NAME) -> None:
        self.db: sqlite3.Connection | None = None
        if folder is None:
            return
        path = folder / name
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
