"""BLAKE2b, the one digest ds-gate computes on its hot paths (record contents, the caches'
keys and guards), without ``hashlib``: importing ``hashlib`` loads OpenSSL (``_hashlib``)
at every command's start (bench/RESULTS.md, import costs), and BLAKE2 is built into CPython
as ``_blake2``."""

from __future__ import annotations

import os

try:
    from _blake2 import blake2b
except ImportError:  # a Python built without it: hashlib's (OpenSSL's) is the same function
    from hashlib import blake2b

__all__ = ["blake2b", "content_key"]


def content_key(name: str, raw: bytes) -> bytes:
    """A record file's name and bytes as one 16-byte key (a file name holds no NUL, so the
    two never blur): worktree copies of a record share one parse by it."""
    digest = blake2b(os.fsencode(name) + b"\0", digest_size=16)
    digest.update(raw)
    return digest.digest()
