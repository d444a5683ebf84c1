"""A persistent map from a file's stat to what the gate kept of it, so a repeated run stats
the quest's files instead of reading them. It only ever saves time.

One SQLite file per quest in the user's cache folder (``io.cache_dir.open_db``, as recall's
cache; never the quest, never through a symbolic link, only in a folder no one else may
write), from a quest's second run on (the first only notes that it was asked, so a one-off run
writes nothing). A row holds one folder's entries (a record's name, or an index's path, to its stat
and the caller's row of plain values), so a run reads and writes a folder at a time and
never holds the whole cache. Why it cannot change a verdict:

- an entry is used only when the file's size, ``mtime_ns``, ``ctime_ns``, inode and device
  all still match (``ctime`` cannot be set back, so a same-size file put in place with the
  old ``mtime`` still misses);
- racy-safe as git's index: an entry is stored only when the file's ``mtime`` and ``ctime``
  are older than the moment this run started by more than ``GRANULARITY`` (file systems
  stamp times coarsely: an edit in the same tick as the read would keep the stat unchanged);
  a younger file is read again next time;
- the file holds a version (ds-gate's, Python's, the schemas' and the rules' code, the
  caller's key): another version's rows are dropped; a damaged file is removed and made
  again, a row that does not decode is empty, and the caller checks each row's shape;
- each row is sealed (keyed BLAKE2b over the version, the folder's path and the row) with
  the cache folder's secret (``io.cache_dir.secret``, this user's only): a row edited by hand
  (a completed run set to running), copied from another folder or quest, or damaged, is not
  sealed and is read again, so it costs time, never the verdict; nothing unsealed is decoded;
- SQLite writes each batch of rows in one transaction, so two processes writing at once
  leave whole rows, each of which is checked by stat on use. It never waits for the disk
  (a power cut may lose rows, or damage the file, which is then made again).
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import stat
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ds_gate.io.cache_dir import open_db, secret
from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.version import __version__

GRANULARITY = 2_000_000_000  # ns: FAT's 2 s, and more than a coarse kernel clock's lag
MAX_ROW = 64 << 20  # a folder's row over this is not kept: its files are read each time
FLUSH = 1 << 20  # bytes of rows held before they are written
SEAL = 16  # bytes of a row's seal

StatKey = bytes  # size, mtime_ns, ctime_ns, inode and device, 64 bits each
Entry = tuple[StatKey, Any]
_KEY = struct.Struct("<QqqQQ")
T = TypeVar("T")


def stat_key(st: os.stat_result) -> StatKey:
    """The five fields packed (two stats give the same key only when all five match): a tuple
    of five ints was ~170 bytes more per entry, and one int of them three times slower to make."""
    return _KEY.pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def file_key(path: str, dir_fd: int | None = None) -> StatKey | None:
    """The key of a regular file (links followed, as the reader follows them), else None.
    ``dir_fd``: ``path`` is relative to that open folder, which spares the kernel walking
    the whole path again for each of a folder's files (~1.8x faster a stat)."""
    try:
        st = os.stat(path, dir_fd=dir_fd)
        return stat_key(st) if stat.S_ISREG(st.st_mode) else None
    except (OSError, ValueError, struct.error):
        return None


class Shelf:
    """One folder's entries for one run: ``get`` moves a matching entry to ``kept``, ``put``
    keeps a new one; what this run never asked for drops out when the shelf is stored."""

    __slots__ = ("folder", "held", "kept", "changed", "settled")  # one Shelf per folder: no __dict__

    def __init__(self, folder: str, held: dict[str, Entry], settled: int) -> None:
        self.folder = folder
        self.held = held
        self.kept: dict[str, Entry] = {}
        self.changed = False
        self.settled = settled

    def get(self, name: str, key: StatKey) -> Any:
        """The row kept for ``name`` if its stat is still ``key``, else None."""
        entry = self.held.pop(name, None)
        if entry is None:
            return None
        if type(entry) is not tuple or len(entry) != 2 or entry[0] != key:
            self.changed = True
            return None
        self.kept[name] = entry
        return entry[1]

    def drop(self, name: str) -> None:
        """An entry whose row the caller could not use (or a file no longer kept): read again, rewritten."""
        if self.kept.pop(name, None) is not None:
            self.changed = True

    def put_read(self, name: str, st: os.stat_result, row: Callable[[T], Any], value: T) -> None:
        """``put`` for a file just read with stat ``st``: ``row(value)`` is made only when kept."""
        if self._settles(st.st_mtime_ns, st.st_ctime_ns):
            try:
                key = stat_key(st)
            except struct.error:
                return
            self.kept[name] = (key, row(value))
            self.changed = True

    def _settles(self, mtime_ns: int, ctime_ns: int) -> bool:
        return 0 <= mtime_ns < self.settled and 0 <= ctime_ns < self.settled  # a time before 1970 never settles

    def put(self, name: str, key: StatKey, row: Any) -> None:
        """Keep ``row`` for ``name`` read with stat ``key`` (taken at the read), unless the file
        is too young to be told apart from an edit in the same tick."""
        _, mtime_ns, ctime_ns, _, _ = _KEY.unpack(key)
        if self._settles(mtime_ns, ctime_ns):
            self.kept[name] = (key, row)
            self.changed = True


def _setup(version: bytes) -> Any:
    def setup(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS folders (path BLOB PRIMARY KEY, entries BLOB) WITHOUT ROWID")
        row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        if row is None or row[0] != version:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM folders")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (version,))
    return setup


class RecordCache:
    """Shelves by folder path, read when a run reaches the folder and written in batches."""

    def __init__(self, file: Path | None, version: bytes) -> None:
        self.version = blake2b(version, digest_size=32).digest()
        self.settled = time.time_ns() - GRANULARITY
        # not durable: the cache waits for no disk (as the file renamed into place before it never did)
        self.db = open_db(file.parent, file.name, _setup(self.version), durable=False) if file is not None else None
        self.secret = (secret(file.parent) if file is not None and self.db is not None else None) or b""
        if self.db is not None and not self.secret:  # rows nothing can seal: no cache
            self.db.close()
            self.db = None
        self.seen: set[bytes] = set()
        self.empty = self._empty()  # a first run asks no folder's row
        # A quest is cached from its second run on: the first only notes that it was asked, so a
        # one-off run (a CI job on a fresh clone) pays nothing for rows it would never read.
        self.admitted = self._admit()
        self.pending: list[tuple[bytes, bytes]] = []
        self.pending_bytes = 0

    def _empty(self) -> bool:
        if self.db is None:
            return True
        try:
            return self.db.execute("SELECT 1 FROM folders LIMIT 1").fetchone() is None
        except sqlite3.Error:
            return True

    def _admit(self) -> bool:
        if self.db is None:
            return False
        try:
            if self.db.execute("SELECT 1 FROM meta WHERE key='asked'").fetchone() is not None:
                return True
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('asked', 1)")
        except sqlite3.Error:
            pass
        return False

    def shelf(self, folder: str) -> Shelf:
        """The entries kept for ``folder`` (none when the cache is off, the row is damaged, or
        the database cannot be read)."""
        key = os.fsencode(folder)
        self.seen.add(key)
        held: Any = {}
        if self.db is not None and not self.empty:
            try:
                row = self.db.execute("SELECT entries FROM folders WHERE path=?", (key,)).fetchone()
                blob = self._unseal(key, row[0]) if row is not None else b""
                held = {} if row is None else marshal.loads(blob) if blob is not None else None
            except (sqlite3.Error, ValueError, EOFError, TypeError):
                held = None
        shelf = Shelf(folder, held if type(held) is dict else {}, self.settled if self.admitted else 0)  # 0: nothing settles
        shelf.changed = type(held) is not dict  # a damaged row is written again
        return shelf

    def _seal(self, folder: bytes, blob: bytes) -> bytes:
        mac = blake2b(self.version, key=self.secret, digest_size=SEAL, person=b"ds-gate-records")
        mac.update(len(folder).to_bytes(8, "little") + folder)
        mac.update(blob)
        return mac.digest()

    def _unseal(self, folder: bytes, value: object) -> bytes | None:
        """The row's bytes when this cache's secret sealed them for this folder, else None."""
        if type(value) is not bytes or len(value) < SEAL:
            return None
        blob = value[SEAL:]
        return blob if value[:SEAL] == self._seal(folder, blob) else None  # no timing to hide: a local file

    def store(self, shelf: Shelf) -> None:
        """Write ``shelf`` if this run changed it; never raises."""
        if self.db is None or not (shelf.changed or shelf.held):
            return
        try:
            value = marshal.dumps(shelf.kept)
        except ValueError:  # a value marshal cannot hold
            return
        if len(value) > MAX_ROW:
            return
        folder = os.fsencode(shelf.folder)
        self.pending.append((folder, self._seal(folder, value) + value))
        self.pending_bytes += len(value)
        if self.pending_bytes > FLUSH:
            self._flush()

    def _flush(self) -> None:
        rows, self.pending, self.pending_bytes = self.pending, [], 0
        if self.db is None or not rows:
            return
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("INSERT OR REPLACE INTO folders VALUES (?, ?)", rows)
        except sqlite3.Error:
            pass  # another process holds it longer than the timeout: the next run writes them

    def save(self) -> None:
        """Write what is pending, drop the rows of folders this run did not read, and close."""
        if self.db is None:
            return
        self._flush()
        try:
            gone = [(path,) for (path,) in self.db.execute("SELECT path FROM folders") if path not in self.seen]
            if gone:
                with self.db:
                    self.db.execute("BEGIN IMMEDIATE")
                    self.db.executemany("DELETE FROM folders WHERE path=?", gone)
        except sqlite3.Error:
            pass
        finally:
            self.db.close()
            self.db = None


def version_of(*parts: bytes) -> bytes:
    """ds-gate's version, Python's and marshal's, plus the caller's parts (schemas, code, rules)."""
    return b"\0".join((__version__.encode(), sys.version.encode(), str(marshal.version).encode(), *parts))
