"""Where ds-gate may write: the user's cache folder, never a quest or a DeepScientist home.

The folder the installed hooks or the DeepScientist integration pinned (``io.places``), else
``$DS_GATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ds-gate``, else ``~/.cache/ds-gate``; never one
inside a quest or a DeepScientist home (a runner's ``HOME`` may lie there): then there is no
cache, and nothing is written. A cache only saves time: one that cannot be written is simply not used. Both of ds-gate's
caches (recall's cards, the gate's records) are SQLite files opened by ``open_db``.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from ds_gate.io.places import PIN_CACHE, agent_writable, env_cache_dir, pinned
from ds_gate.kernel.digest import blake2b


def user_cache_dir() -> Path | None:
    """The cache folder, or None when it lies where a quest's agent can write (not used at all)."""
    folder = pinned(PIN_CACHE) or env_cache_dir()
    return None if agent_writable(folder) is not None else Path(folder)


def cache_name(prefix: str, key: Path | str, suffix: str = ".sqlite3") -> str:
    """A file name per cached thing (a home, a quest), from its resolved path."""
    return f"{prefix}-{blake2b(os.fsencode(str(key)), digest_size=8).hexdigest()}{suffix}"


def trusted(folder: Path, name: str) -> bool:
    """The cache folder is a real folder of this user, writable by no one else, and the cache
    files in it are not symbolic links: a quest's agent must not be able to point a cache at
    a file it wants overwritten, or hand ds-gate rows it wrote itself."""
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


SECRET_NAME = "cache-secret"  # 32 random bytes, this user's only: the caches' rows are sealed with it
SECRET_BYTES = 32


def secret(folder: Path) -> bytes | None:
    """The key the caches seal their rows with (made on first use, ``0600``, never through a
    link), or None when it cannot be had (then nothing is cached). A row the key does not seal
    (damaged, or edited by hand: a completed run set to running) is not used: it costs time only.
    Whoever can read this file can also write the trusted configuration beside it."""
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
            if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or (
                    hasattr(os, "getuid") and info.st_uid != os.getuid()):
                return None
            key = os.read(fd, SECRET_BYTES + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    return key if len(key) == SECRET_BYTES else None


def open_db(folder: Path, name: str, setup: Callable[[sqlite3.Connection], None], *,
            durable: bool = True) -> sqlite3.Connection | None:
    """The SQLite cache ``name`` in ``folder`` (made ``0700``; the file ``0600``), ``setup`` run on it (tables,
    version); None when the folder is not ``trusted`` or cannot be written. SQLite makes
    each write atomic and two processes at once safe; a damaged file (or not a database) is
    removed and made again once, so it only costs speed. ``durable=False`` never waits for
    the disk (``synchronous=OFF``) and writes in place with a rollback journal (a WAL would
    write every row twice, once more when the last connection closes): a write is still
    whole for every other process, and only a power cut may lose it, or damage the file,
    which is then made again."""
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
            setup(db)
            return db
        except sqlite3.DatabaseError:  # corrupt (or not a database): rebuild it once
            if db is not None:
                db.close()
            if attempt == 0:
                for suffix in ("", "-wal", "-shm"):
                    try:
                        os.unlink(f"{path}{suffix}")
                    except OSError:
                        pass
        except OSError:
            if db is not None:
                db.close()
            return None  # a read-only home: it works, uncached
    return None
