"""The user's cache folder, as every use of it sees it: where it is, whether it may be trusted,
its secret, the version and the seal of what is kept in it, and the stat key a kept thing is
checked by. The kernel's, so that recall's kept answers (``kernel.answers``) are served before
anything else loads; the SQLite files in the folder are ``io.cache_file``'s.

- **Where**: the folder the hooks pinned at install, else ``$DS_GATE_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/ds-gate``, else ``~/.cache/ds-gate``; never one a quest's agent can write
  (``kernel.places``). Where it may lie and its seal (keyed BLAKE2b, a secret of this user's
  only): docs/threat-model.md.
- **Version**: ds-gate's, Python's and marshal's, the size and ``mtime_ns`` of every file of the
  package and its schemas (an edited checkout never reuses what older code made), and the
  caller's parts.
- **Stat key**: size, ``mtime_ns``, ``ctime_ns``, inode and device (``ctime`` cannot be set back,
  so a same-size rewrite with the old ``mtime`` put back still differs); a thing is kept only
  while what it was made from is older than the run's start by ``GRANULARITY`` (racy-safe, as
  git's index).
"""

from __future__ import annotations

import functools
import marshal
import os
import stat
import struct
import sys

from ds_gate.kernel.digest import blake2b
from ds_gate.kernel.places import PIN_CACHE, agent_writable, env_cache_dir, pinned
from ds_gate.kernel.resources import data_path
from ds_gate.kernel.version import __version__

GRANULARITY = 2_000_000_000  # ns: FAT's 2 s, and more than a coarse kernel clock's lag
SEAL = 16  # bytes of a kept thing's seal
SECRET_NAME = "cache-secret"  # 32 random bytes, this user's only: everything kept is sealed with it
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


def user_cache_dir() -> str | None:
    """The cache folder, or None when it lies where a quest's agent can write (not used at all)."""
    folder = pinned(PIN_CACHE) or env_cache_dir()
    return None if agent_writable(folder) is not None else folder


def trusted(folder: str | os.PathLike[str], name: str) -> bool:
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
                if stat.S_ISLNK(os.lstat(os.path.join(folder, f"{name}{suffix}")).st_mode):
                    return False
            except FileNotFoundError:
                pass
    except OSError:
        return False
    return True


def secret(folder: str | os.PathLike[str], *, make: bool = True) -> bytes | None:
    """The key things are sealed with (made on first use when ``make``, ``0600``, never through
    a link), or None when it cannot be had (then nothing is cached). Whoever can read this file
    can also write the trusted configuration beside it."""
    path = os.path.join(folder, SECRET_NAME)
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    if make:
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
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | nofollow)  # a FIFO planted there never blocks
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


def version(parts: tuple[bytes, ...]) -> bytes:
    """The version of a kept thing: this code's (``code_stamp``), Python's, marshal's, and the caller's ``parts``."""
    return blake2b(
        b"\0".join((__version__.encode(), sys.version.encode(), str(marshal.version).encode(), code_stamp(), *parts)),
        digest_size=32,
    ).digest()


def seal(version: bytes, secret: bytes, parts: tuple[bytes, ...]) -> bytes:
    """``SEAL`` bytes binding ``parts`` (each length-prefixed) to this version and this folder's secret."""
    mac = blake2b(version, key=secret, digest_size=SEAL, person=b"ds-gate-cache")
    for part in parts:
        mac.update(len(part).to_bytes(8, "little") + part)
    return mac.digest()
