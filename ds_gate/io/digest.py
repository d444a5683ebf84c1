"""BLAKE2b, the one digest ds-gate computes on its hot paths (record contents, the caches'
keys and guards), without ``hashlib``: importing ``hashlib`` loads OpenSSL (``_hashlib``,
~5 ms of every command's start), and BLAKE2 is built into CPython as ``_blake2``."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # a Python built without it: hashlib's (OpenSSL's) is the same function
    from hashlib import blake2b

__all__ = ["blake2b"]
