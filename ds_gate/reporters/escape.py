"""The one place text from a quest is made safe to show: every reporter and the CLI's own
messages pass quest text through here.

A quest is written by an agent. Its file names may hold a newline or bytes that are not
UTF-8 (decoded with ``surrogateescape``, so they still open the file, but no encoder
accepts them), and its records may hold ESC or CR: printed raw, a name splits a line in
two, a lone surrogate makes writing the output fail, and an ANSI sequence rewrites what
the committer sees. So:

- ``printable`` is for output read as lines (text, GitHub workflow commands, stderr): C0
  and C1 control characters and DEL become ``\\n``, ``\\r``, ``\\t`` or ``\\x1b``, and
  each byte that was not UTF-8 becomes ``\\xff``, the way Python and git spell them;
- ``json_safe`` is for serialized JSON: JSON already escapes control characters, so only
  lone surrogates (which no UTF-8 text can hold) become the visible ``\\xff``.

Text that needs nothing (nearly all) is returned as it came: one regular expression
search, so output for ordinary quests stays byte-identical. ``re`` is already loaded by
``argparse``, so the commit hook pays no import for this module's needs.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and every surrogate (U+DC80-U+DCFF are surrogate-escaped bytes)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _spelled(char: str) -> str:
    """How one unsafe character is written: named, as the byte it was, or as its code point."""
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` on one line, every character a terminal or a line-based reader acts on escaped."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda match: _spelled(match.group()), text)


def json_safe(serialized: str) -> str:
    """Serialized JSON (``ensure_ascii=False``) that encodes as UTF-8: each lone surrogate,
    which can only stand inside a string there, becomes the visible escape ``\\xff`` (its
    backslash doubled, as JSON wants)."""
    if _SURROGATE.search(serialized) is None:
        return serialized
    return _SURROGATE.sub(lambda match: _spelled(match.group()).replace("\\", "\\\\"), serialized)
