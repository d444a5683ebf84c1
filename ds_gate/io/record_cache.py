"""A persistent map from a record file's stat to what the gate kept of it, so a repeated run
stats the quest's files instead of reading them. It only ever saves time.

One file per quest in the user's cache folder (``io.cache_dir``; never the quest, never
through a symbolic link, only in a folder no one else may write). Why it cannot change a
verdict:

- an entry is used only when the file's size, ``mtime_ns``, ``ctime_ns``, inode and device
  all still match (``ctime`` cannot be set back, so a same-size file put in place with the
  old ``mtime`` still misses);
- racy-safe as git's index: an entry is stored only when the file's ``mtime`` and ``ctime``
  are older than the moment this run started by more than ``GRANULARITY`` (file systems
  stamp times coarsely: an edit in the same tick as the read would keep the stat unchanged);
  a younger file is read again next time;
- the file holds a version (ds-gate's, Python's, the schemas' and the rules' code, the
  caller's key) and a digest of its payload: another version, a truncated or corrupt file,
  or a value of the wrong shape is ignored whole;
- it is written to a temporary file and renamed over the old one, so two processes writing
  at once leave one of the two complete files, never a mix.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import Any

from ds_gate.io.cache_dir import trusted
from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.version import __version__

MAGIC = b"ds-gate records 4\n"  # 2: written in chunks, the digest at the end; 3: one int per stat;
# 4: a slim's third field holds every per-copy finding (an unknown kind read by its folder, an id mismatch)
CHUNK = 4096  # entries per marshalled chunk
GRANULARITY = 2_000_000_000  # ns: FAT's 2 s, and more than a coarse kernel clock's lag
MAX_ENTRIES = 1_000_000  # a bigger quest is read, not cached: the cache stays bounded
MAX_BYTES = 256 << 20

StatKey = int  # size, mtime_ns, ctime_ns, inode and device, 64 bits each, as one number
_BITS = (1 << 64) - 1


def stat_key(st: os.stat_result) -> StatKey:
    """The five fields as one int (no field can spill into another, so two stats give the same
    key only when all five match): a tuple of five ints was ~170 bytes more per entry, 17 MB
    of a repeated run's memory at 100,000 runs."""
    return (st.st_size & _BITS | (st.st_mtime_ns & _BITS) << 64 | (st.st_ctime_ns & _BITS) << 128
            | (st.st_ino & _BITS) << 192 | st.st_dev << 256)


class RecordCache:
    """Entries by absolute path; ``get`` and ``put`` move what this run saw to ``new``, ``save``
    keeps exactly those (files gone from the quest drop out)."""

    def __init__(self, file: Path | None, version: bytes, valid: Callable[[object], bool]) -> None:
        self.file = file
        self.version = blake2b(version, digest_size=32).digest()
        self.valid = valid
        self.started = time.time_ns()
        self.old: dict[str, tuple[StatKey, Any]] = self._load() if file is not None else {}
        self.loaded = bool(self.old)  # whether a stat can find anything here (``old`` empties as it is used)
        self.new: dict[str, tuple[StatKey, Any]] = {}
        self.changed = False

    @staticmethod
    def stat_key(path: str, dir_fd: int | None = None) -> StatKey | None:
        """The key of a regular file (links followed, as the reader follows them), else None.
        ``dir_fd``: ``path`` is relative to that open folder, which spares the kernel walking
        the whole path again for each of a folder's files (~1.8x faster a stat)."""
        try:
            st = os.stat(path, dir_fd=dir_fd)
        except (OSError, ValueError):
            return None
        return stat_key(st) if stat.S_ISREG(st.st_mode) else None

    def get(self, path: str, key: StatKey, valid: Callable[[object], bool] | None = None) -> Any:
        """The value kept for ``path`` if its stat is still ``key``. The entry moves from ``old``
        to ``new`` (under this run's path string: two copies of every path were ~20 MB at
        100,000 runs); one that does not match is dropped, and the file rewritten."""
        entry = self.old.pop(path, None)
        if entry is None:
            return None
        if type(entry) is not tuple or len(entry) != 2 or entry[0] != key or not (valid or self.valid)(entry[1]):
            self.changed = True  # checked here, for the entries used
            return None
        self.new[path] = entry
        return entry[1]

    def put(self, path: str, key: StatKey, slim: Any) -> None:
        """Keep ``slim`` for ``path`` read with stat ``key`` (taken before the read), unless the
        file is too young to be told apart from an edit in the same tick."""
        settled = self.started - GRANULARITY
        if (key >> 64) & _BITS < settled and (key >> 128) & _BITS < settled:  # a time before 1970 never settles
            self.new[path] = (key, slim)
            self.changed = True

    def _load(self) -> dict[str, tuple[StatKey, Any]]:
        """The entries, read a chunk at a time (never the whole file at once), used only if the
        digest at the end matches every chunk read."""
        assert self.file is not None
        try:
            fd = os.open(self.file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return {}
        entries: dict[str, tuple[StatKey, Any]] = {}
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES + (1 << 20):  # + the chunks' headers
                return {}
            with os.fdopen(fd, "rb", closefd=False) as handle:
                if handle.read(len(MAGIC) + 32) != MAGIC + self.version:
                    return {}
                digest = blake2b(digest_size=32)
                while True:
                    size = int.from_bytes(handle.read(8), "little")
                    if size == 0:
                        break
                    if size > MAX_BYTES:
                        return {}
                    chunk = handle.read(size)
                    digest.update(chunk)
                    part = marshal.loads(chunk)
                    if type(part) is not dict:
                        return {}
                    entries.update(part)
                if handle.read(33) != digest.digest():  # the end: the digest, and nothing after it
                    return {}  # truncated or corrupt
        except (OSError, ValueError, EOFError, TypeError):
            return {}
        finally:
            os.close(fd)
        return entries

    def save(self) -> None:
        """Write what this run saw, when it differs from what was read; never raises. In
        chunks of ``CHUNK`` entries: marshalling all at once held a second copy of the whole
        cache (57 MB at 100,000 runs) at the run's peak."""
        if self.file is None or not (self.changed or self.old):  # ``old`` holds what this run never saw
            return
        if len(self.new) > MAX_ENTRIES:
            return
        self.old = {}  # no longer needed: its memory is free before anything is written

        folder = self.file.parent
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not trusted(folder, self.file.name):
                return
            # tempfile.mkstemp's guarantees (a new file, this user's only) without importing
            # tempfile and random (~3 ms of a first run)
            tmp = str(folder / f".{self.file.name}.{os.getpid()}.{os.urandom(6).hex()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                self._write(handle)
            os.replace(tmp, self.file)
        except (OSError, ValueError):  # ValueError: a value marshal cannot hold, or too large
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def _write(self, handle: Any) -> None:
        handle.write(MAGIC + self.version)
        digest, written = blake2b(digest_size=32), 0
        entries = iter(self.new.items())
        while part := dict(islice(entries, CHUNK)):
            chunk = marshal.dumps(part)
            written += len(chunk)
            if written > MAX_BYTES:
                raise ValueError("the cache would exceed its size bound")
            digest.update(chunk)
            handle.write(len(chunk).to_bytes(8, "little"))
            handle.write(chunk)
        handle.write(bytes(8))
        handle.write(digest.digest())


def version_of(*parts: bytes) -> bytes:
    """ds-gate's version, Python's and marshal's, plus the caller's parts (schemas, code, rules)."""
    return b"\0".join((__version__.encode(), sys.version.encode(), str(marshal.version).encode(), *parts))
