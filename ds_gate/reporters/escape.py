"""The one place text from a quest is made safe to show: every reporter and the CLI's own
messages pass quest text through here.

A quest's names and values may hold a newline, ESC, or bytes that are not UTF-8 (surrogate-
escaped): printed raw, a name splits a line, a lone surrogate makes writing fail, an ANSI
sequence rewrites what the committer sees. ``printable`` is for output read as lines;
``json_safe`` for serialized JSON, which escapes controls itself. Text that needs nothing
(nearly all) is returned as it came, after one regular expression search.
"""

from __future__ import annotations

import re

from ds_gate.kernel.jsonout import dumps

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


def json_text(value: object) -> str:
    """``value`` as compact JSON (``kernel.jsonout``) that always encodes as UTF-8."""
    return json_safe(dumps(value, ensure_ascii=False))


def json_safe(serialized: str) -> str:
    """Serialized JSON that encodes as UTF-8: each lone surrogate becomes the visible ``\\xff``."""
    if _SURROGATE.search(serialized) is None:
        return serialized
    return _SURROGATE.sub(lambda match: _spelled(match.group()).replace("\\", "\\\\"), serialized)


def workflow_data(text: str) -> str:
    """A workflow command's message: GitHub's own escapes for ``%`` and the line breaks the
    reporter puts there (quest text reaches here through ``printable`` already)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
# what GitHub's Markdown turns into a link or a reference with no syntax at all: `www.`, `scheme://`,
# `mailto:` / `xmpp:`, an e-mail address or @mention (every `@`: GFM links `1@.a` too), an issue number (`#1`)
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?=://)|(?<=mailto)(?=:)|(?<=xmpp)(?=:)|(?<=@)|(?<=#)(?=\d)")
WORD_JOINER = "\u2060"  # invisible, and no autolink rule reads across it
# what starts a block where a line or list item begins: indentation (code), `#` (a heading), `+`/`-` (a
# list, a rule), `=` (a setext underline), `1.` / `1)` (an ordered list); `>`, `*`, backticks are escaped anyway
_BLOCK_START = re.compile(r"^( *)(?:([#+=-])|(\d{1,9})([.)]))?")


def _inline(match: re.Match[str]) -> str:
    spaces, mark, digits, closer = match.groups()
    lead = "&#32;" * len(spaces)
    return lead + (f"\\{mark}" if mark else f"{digits}\\{closer}" if digits else "")


def md(text: str) -> str:
    """``text`` inert in Markdown and HTML, on one line: its special characters escaped, and an
    invisible word joiner inside each autolink trigger (GFM links bare URLs, e-mail addresses and
    @mentions, which escaping cannot stop: a quest could otherwise draw a link in a step summary), and
    what would start a block escaped at its start (a list item or line that begins with it)."""
    safe = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BLOCK_START.sub(_inline, _MD_SPECIAL.sub(r"\\\1", _AUTOLINK.sub(WORD_JOINER, safe)))
