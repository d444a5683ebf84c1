"""ds-gate's one persistent cache: a SQLite file in the user's cache folder, opened, versioned
and sealed here for both of its uses (the gate's folders, ``engine.record_store``; recall's
cards, ``recall.cache``). A cache only ever saves time: one that cannot be used is not used.
The folder, its trust, its secret, the version, the seal and the stat key are
``kernel.cache_folder``'s (recall's kept answers are read there before anything else loads).

- **Version**: ``kernel.cache_folder.version`` with the caller's parts. A file of another
  version, damaged, or not a database, is made again once.
- **Racy-safe**: a row is written only for files older than the run's start by ``GRANULARITY``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ds_gate.kernel.cache_folder import GRANULARITY, SEAL, seal, secret, trusted, version
from ds_gate.kernel.digest import blake2b


def cache_name(prefix: str, key: Path | str, suffix: str = ".sqlite3") -> str:
    """A file name per cached thing (a home, a quest), from its resolved path."""
    return f"{prefix}-{blake2b(os.fsencode(str(key)), digest_size=8).hexdigest()}{suffix}"


class _Stale(sqlite3.DatabaseError):
    """A cache file of another version: made again, as a damaged one is."""


class CacheFile:
    """One cache file, open (``db``; None when the cache is off or cannot be used), versioned
    and able to seal its rows. ``tables`` makes the caller's tables; ``durable=False`` never
    waits for the disk (``synchronous=OFF``) and writes in place with a rollback journal (a WAL
    would write every row twice): a write is still whole for every other process, and only a
    power cut may lose it or damage the file, which is then made again."""

    def __init__(
        self,
        folder: str | os.PathLike[str] | None,
        name: str,
        parts: Sequence[bytes],
        tables: Callable[[sqlite3.Connection], None],
        *,
        durable: bool,
    ) -> None:
        self.version = version(tuple(parts))
        self.settled = time.time_ns() - GRANULARITY
        self.db = _open(Path(folder), name, self.version, tables, durable) if folder is not None else None
        self.secret = (secret(folder) if folder is not None and self.db is not None else None) or b""
        if self.db is not None and not self.secret:  # rows nothing can seal: no cache
            self.close()

    def settles(self, st: os.stat_result) -> bool:
        """Whether a file with this stat is old enough to be cached (a time before 1970 never is)."""
        return 0 <= st.st_mtime_ns < self.settled and 0 <= st.st_ctime_ns < self.settled

    def seal(self, *parts: bytes) -> bytes:
        return seal(self.version, self.secret, parts)

    def unseal(self, value: object, *parts: bytes) -> bytes | None:
        """``value`` without its seal when this cache sealed it for ``parts``, else None."""
        if type(value) is not bytes or len(value) < SEAL:
            return None
        body = value[SEAL:]
        return body if value[:SEAL] == self.seal(*parts, body) else None  # no timing to hide: a local file

    def write(self, sql: str, rows: Iterable[Sequence[object]]) -> bool:
        """``sql`` for each row in one transaction; False when it could not be written (another
        process held the file longer than the timeout: a later run writes it)."""
        if self.db is None:
            return False
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany(sql, rows)
        except sqlite3.Error:
            return False
        return True

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


def _open(
    folder: Path, name: str, version: bytes, tables: Callable[[sqlite3.Connection], None], durable: bool
) -> sqlite3.Connection | None:
    """The file ``name`` in ``folder`` (made ``0700``; the file ``0600``), of ``version``, with
    the caller's ``tables``; None when the folder is not ``trusted`` or cannot be written."""
    path = folder / name
    for attempt in range(2):
        db = None
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not trusted(folder, name):
                return None
            # this user's only (SQLite gives its -wal and -shm files the same mode); never through a link
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
            # check_same_thread: the MCP server runs tool calls on worker threads, one call at a time
            # (its lock); a connection one call opened serves the next, whichever thread it is on
            db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
            if not durable:  # before the journal mode: making a new file waits for the disk otherwise
                db.execute("PRAGMA synchronous=OFF")
            db.execute(f"PRAGMA journal_mode={'WAL' if durable else 'DELETE'}")
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB)")
            held = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            if held is None:  # a new file (two processes making it at once write the same row)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('version', ?)", (version,))
                held = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            if held != (version,):
                raise _Stale(name)
            tables(db)
            return db
        except sqlite3.DatabaseError:  # another version, corrupt, or not a database: made again once
            if db is not None:
                db.close()
            if attempt == 0:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    try:
                        os.unlink(f"{path}{suffix}")
                    except OSError:
                        pass
        except OSError:
            if db is not None:
                db.close()
            return None  # a read-only home: it works, uncached
    return None
