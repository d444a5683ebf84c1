"""ds-gate's one persistent cache: a SQLite file in the user's cache folder, opened, versioned
and sealed here for both of its uses (the gate's folders, ``engine.record_store``; recall's
cards, ``recall.cache``). A cache only ever saves time: one that cannot be used is not used.
Where it may lie and its seal (keyed BLAKE2b, a secret of this user's only): docs/threat-model.md.

- **Version**: ds-gate's, Python's and marshal's, the size and ``mtime_ns`` of every file of the
  package and its schemas (an edited checkout never reuses what older code made), and the
  caller's parts. A file of another version, damaged, or not a database, is made again once.
- **Stat key**: size, ``mtime_ns``, ``ctime_ns``, inode and device (``ctime`` cannot be set back,
  so a same-size rewrite with the old ``mtime`` put back still differs); a row is written only
  for files older than the run's start by ``GRANULARITY`` (racy-safe, as git's index).
"""

from __future__ import annotations

import functools
import marshal
import os
import sqlite3
import stat
import struct
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ds_gate.io.places import PIN_CACHE, agent_writable, env_cache_dir, pinned
from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.resources import data_path
from ds_gate.kernel.version import __version__

GRANULARITY = 2_000_000_000  # ns: FAT's 2 s, and more than a coarse kernel clock's lag
SEAL = 16  # bytes of a row's seal
SECRET_NAME = "cache-secret"  # 32 random bytes, this user's only: every cache row is sealed with it
SECRET_BYTES = 32

StatKey = bytes  # size, mtime_ns, ctime_ns, inode and device, 64 bits each
_KEY = struct.Struct("<QqqQQ")


def stat_key(st: os.stat_result) -> StatKey:
    """The five fields packed: two stats give the same key only when all five match."""
    return _KEY.pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def file_key(path: str, dir_fd: int | None = None) -> StatKey | None:
    """The key of a regular file (links followed, as the readers follow them), else None.
    ``dir_fd``: ``path`` is relative to that open folder (~1.8x faster a stat than the whole path)."""
    try:
        st = os.stat(path, dir_fd=dir_fd)
        return stat_key(st) if stat.S_ISREG(st.st_mode) else None
    except (OSError, ValueError, struct.error):
        return None


def user_cache_dir() -> Path | None:
    """The cache folder, or None when it lies where a quest's agent can write (not used at all)."""
    folder = pinned(PIN_CACHE) or env_cache_dir()
    return None if agent_writable(folder) is not None else Path(folder)


def cache_name(prefix: str, key: Path | str, suffix: str = ".sqlite3") -> str:
    """A file name per cached thing (a home, a quest), from its resolved path."""
    return f"{prefix}-{blake2b(os.fsencode(str(key)), digest_size=8).hexdigest()}{suffix}"


def trusted(folder: Path, name: str) -> bool:
    """The cache folder is a real folder of this user, writable by no one else, and the cache
    file ``name`` in it (and its journals) is not a symbolic link."""
    try:
        info = os.lstat(folder)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            return False
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            return False
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                if stat.S_ISLNK(os.lstat(folder / f"{name}{suffix}").st_mode):
                    return False
            except FileNotFoundError:
                pass
    except OSError:
        return False
    return True


def secret(folder: Path) -> bytes | None:
    """The key rows are sealed with (made on first use, ``0600``, never through a link), or None
    when it cannot be had (then nothing is cached). Whoever can read this file can also write
    the trusted configuration beside it."""
    path = folder / SECRET_NAME
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
        try:
            os.write(fd, os.urandom(SECRET_BYTES))
        finally:
            os.close(fd)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
        try:
            info = os.fstat(fd)
            if (
                not stat.S_ISREG(info.st_mode)
                or info.st_mode & 0o077
                or (hasattr(os, "getuid") and info.st_uid != os.getuid())
            ):
                return None
            key = os.read(fd, SECRET_BYTES + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    return key if len(key) == SECRET_BYTES else None


@functools.cache
def code_stamp() -> bytes:
    """The size and ``mtime_ns`` of every ``.py`` file of the ``ds_gate`` package and every
    shipped schema (files stat'ed, nothing imported): what ds-gate's code and schemas were."""
    digest = blake2b(digest_size=16)
    for top, suffix in (
        (os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".py"),
        (data_path("schemas"), ".json"),
    ):
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(suffix):
                    try:
                        st = os.stat(os.path.join(folder, name))
                        digest.update(f"{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "replace"))
                    except OSError:
                        digest.update(f"{folder}/{name}\0?\n".encode("utf-8", "replace"))
    return digest.digest()


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
        folder: Path | None,
        name: str,
        parts: Sequence[bytes],
        tables: Callable[[sqlite3.Connection], None],
        *,
        durable: bool,
    ) -> None:
        self.version = blake2b(
            b"\0".join(
                (__version__.encode(), sys.version.encode(), str(marshal.version).encode(), code_stamp(), *parts)
            ),
            digest_size=32,
        ).digest()
        self.settled = time.time_ns() - GRANULARITY
        self.db = _open(folder, name, self.version, tables, durable) if folder is not None else None
        self.secret = (secret(folder) if folder is not None and self.db is not None else None) or b""
        if self.db is not None and not self.secret:  # rows nothing can seal: no cache
            self.close()

    def settles(self, st: os.stat_result) -> bool:
        """Whether a file with this stat is old enough to be cached (a time before 1970 never is)."""
        return 0 <= st.st_mtime_ns < self.settled and 0 <= st.st_ctime_ns < self.settled

    def seal(self, *parts: bytes) -> bytes:
        mac = blake2b(self.version, key=self.secret, digest_size=SEAL, person=b"ds-gate-cache")
        for part in parts:
            mac.update(len(part).to_bytes(8, "little") + part)
        return mac.digest()

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
