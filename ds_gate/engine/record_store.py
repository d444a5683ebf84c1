"""The gate's cache of one quest (an ``io.cache_file``; docs/performance.md): each ``artifacts``
folder's verdict inputs (and ``quest.yaml``'s clean parse), so a repeated run stats files
instead of reading them.

A row per folder holds what reading it gave the collector, under the folder's *stamp*
(``engine.folder_rows``). A folder's own stat would not do: a file rewritten in place leaves it
unchanged. Rows are written only from a quest's second run, so a one-off CI run writes nothing.
What makes a row is decided by ds-gate's code and schemas (the cache file's version), the
quest's decision actions and plugins' rules (``key``), the kinds read and the file size limit.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
from pathlib import Path
from typing import Any

from ds_gate.io.cache_file import CacheFile, cache_name
from ds_gate.kernel import fs
from ds_gate.kernel.cache_folder import user_cache_dir

MAX_ROW = 64 << 20  # a folder's row over this is not kept: its files are read each time
FLUSH = 1 << 20  # bytes of rows held before they are written


def _tables(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE IF NOT EXISTS folders (path BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID")


class RecordStore:
    """The rows of one quest: read when the loader reaches a folder, written in batches."""

    def __init__(self, root: Path, key: bytes, kinds: tuple[str, ...]) -> None:
        # one file per quest and kinds read: lineage's runs-only reads never replace the gate's rows;
        # not durable: the cache waits for no disk
        self.file = CacheFile(
            user_cache_dir(),
            cache_name("records", f"{root}\0{','.join(kinds)}"),
            (key, "\0".join(kinds).encode(), str(fs.max_file_bytes()).encode()),
            _tables,
            durable=False,
        )
        self.seen: set[bytes] = set()
        self.pending: list[tuple[bytes, bytes]] = []
        self.pending_bytes = 0
        self.admitted = self._admit()

    def _admit(self) -> bool:
        """Whether the quest was asked before (then its rows are read and written); notes it if not."""
        db = self.file.db
        if db is None:
            return False
        try:
            if db.execute("SELECT 1 FROM meta WHERE key='asked'").fetchone() is not None:
                return True
        except sqlite3.Error:
            return False
        self.file.write("INSERT OR REPLACE INTO meta VALUES ('asked', 1)", [()])
        return False

    def get(self, path: str) -> tuple[bytes, Any] | None:
        """The ``(stamp, value)`` kept for ``path`` (a folder, or ``quest.yaml``), if this cache sealed it."""
        key = os.fsencode(path)
        self.seen.add(key)
        if not self.admitted or self.file.db is None:
            return None
        try:
            row = self.file.db.execute("SELECT value FROM folders WHERE path=?", (key,)).fetchone()
            blob = self.file.unseal(row[0], key) if row is not None else None
            held = marshal.loads(blob) if blob is not None else None
        except (sqlite3.Error, ValueError, EOFError, TypeError):
            return None
        return held if type(held) is tuple and len(held) == 2 and type(held[0]) is bytes else None

    def put(self, path: str, stamp: bytes, value: Any) -> None:
        """Keep ``value`` for ``path`` while its stamp is ``stamp`` (written in batches)."""
        if not self.admitted or self.file.db is None:
            return
        try:
            blob = marshal.dumps((stamp, value))
        except ValueError:  # a value marshal cannot hold
            return
        if len(blob) > MAX_ROW:
            return
        key = os.fsencode(path)
        self.seen.add(key)
        self.pending.append((key, self.file.seal(key, blob) + blob))
        self.pending_bytes += len(blob)
        if self.pending_bytes > FLUSH:
            self._flush()

    def _flush(self) -> None:
        rows, self.pending, self.pending_bytes = self.pending, [], 0
        if rows:
            self.file.write("INSERT OR REPLACE INTO folders VALUES (?, ?)", rows)

    def save(self) -> None:
        """Write what is pending, drop the rows of what this run did not read, and close."""
        if self.file.db is None:
            return
        self._flush()
        try:
            gone = [(path,) for (path,) in self.file.db.execute("SELECT path FROM folders") if path not in self.seen]
        except sqlite3.Error:
            gone = []
        if gone:
            self.file.write("DELETE FROM folders WHERE path=?", gone)
        self.file.close()
