"""Where ds-gate may write: the user's cache folder, never a quest or a DeepScientist home.

``$DS_GATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ds-gate``, else ``~/.cache/ds-gate``. A
cache only saves time: one that cannot be written is simply not used. Both of ds-gate's
caches (recall's cards, the gate's records) are SQLite files opened by ``open_db``.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

from ds_gate.kernel.digest import blake2b


def user_cache_dir() -> Path:
    given = os.environ.get("DS_GATE_CACHE_DIR", "").strip()
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "ds-gate"


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
