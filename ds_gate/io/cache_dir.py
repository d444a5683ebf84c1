"""Where ds-gate may write: the user's cache folder, never a quest or a DeepScientist home.

``$DS_GATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ds-gate``, else ``~/.cache/ds-gate``. A
cache only saves time: one that cannot be written is simply not used.
"""

from __future__ import annotations

import os
import stat
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
