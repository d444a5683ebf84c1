"""Where ds-gate may write: the user's cache folder, never a quest or a DeepScientist home.

``$DS_GATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ds-gate``, else ``~/.cache/ds-gate``. A
cache only saves time: one that cannot be written is simply not used.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def user_cache_dir() -> Path:
    given = os.environ.get("DS_GATE_CACHE_DIR", "").strip()
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "ds-gate"


def cache_name(prefix: str, key: Path | str) -> str:
    """A file name per cached thing (a home, a quest), from its resolved path."""
    return f"{prefix}-{hashlib.sha256(os.fsencode(str(key))).hexdigest()[:16]}.sqlite3"
