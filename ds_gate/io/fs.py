"""File-system questions that answer rather than raise.

On Python 3.11 ``Path.is_dir()`` raises ``PermissionError`` when a parent folder cannot be
entered, which turned a home under a private folder into exit 3. These say "no" for a
path that is missing and tell a path that is present but hidden apart, so a reader can
report "cannot be read" instead of mistaking it for "empty".
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_MISSING = {errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP}


def is_dir(path: Path | str) -> bool:
    """A folder the user can see (symbolic links followed); never raises."""
    return os.path.isdir(path)


def is_file(path: Path | str) -> bool:
    """A regular file the user can see (symbolic links followed); never raises."""
    return os.path.isfile(path)


def hidden(path: Path | str) -> OSError | None:
    """Why ``path`` cannot even be looked at (a parent folder the user may not enter), or
    None when it can, or is simply not there."""
    try:
        os.stat(path)
    except OSError as exc:
        return None if exc.errno in _MISSING else exc
    return None


def is_regular(path: Path | str) -> bool:
    """A regular file, never a FIFO or device (reading one could block or never end)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
