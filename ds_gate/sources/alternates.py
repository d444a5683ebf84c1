"""Git objects borrowed from outside the quest: ``objects/info/alternates``.

``git clone --shared``/``--reference`` leaves one, and git reads objects from the folders it
names: a pointer out of the quest (the agent could plant one), so ``engine.unseen`` stops the
gate on it. Read as git reads it, so no spelling git understands hides a folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from ds_gate.kernel.fs import is_inside, read_file
from ds_gate.sources.clone import CloneConfig

ALTERNATES = os.path.join("objects", "info", "alternates")
DISSOCIATE = "git repack -a -d && rm .git/objects/info/alternates (copies the borrowed objects in; git clone --dissociate does the same)"


def _alternate_entries(raw: bytes) -> list[str]:
    """The folders an alternates file names, read as git reads it (``odb.c``): one a line, a
    line whose first byte is ``#`` a comment (a leading space makes it a path), a line opening
    with ``"`` C-unquoted (taken as written when the quoting is broken), nothing stripped."""
    out = []
    for line in raw.split(b"\n"):
        if not line or line.startswith(b"#"):
            continue
        if line.startswith(b'"'):
            line = _c_unquoted(line) or line
        out.append(os.fsdecode(line))
    return out


_C_ESCAPES = {
    ord(k): v for k, v in {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}.items()
}


def _c_unquoted(quoted: bytes) -> bytes | None:
    """git's ``unquote_c_style``: the bytes between the quotes, escapes undone; None if broken."""
    out, i = bytearray(), 1
    while i < len(quoted):
        byte = quoted[i]
        if byte == 34:  # the closing quote
            return bytes(out)
        if byte != 92:
            out.append(byte)
            i += 1
            continue
        nxt = quoted[i + 1 : i + 2]
        if nxt and nxt[0] in _C_ESCAPES:
            out.append(_C_ESCAPES[nxt[0]])
            i += 2
        elif len(quoted) >= i + 4 and all(48 <= b <= 55 for b in quoted[i + 1 : i + 4]):
            out.append(int(quoted[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            return None
    return None


def borrowed_objects(root: Path) -> str | None:
    """Where the repository borrows git objects from outside the quest (``objects/info/alternates``,
    as ``git clone --shared``/``--reference`` writes it, followed through the alternates of
    alternates), said as "git objects from <folder>", or None. What git reads from there is a
    pointer out of the quest, which ds-gate never follows; an alternates file it cannot read
    whole (over the size limit, unreadable) counts as one, since git reads it all."""
    config = CloneConfig(root)
    if config.common is None:
        return None
    quest = Path(os.path.realpath(root))
    seen: set[str] = set()
    todo = [os.path.join(config.common, "objects")]
    while todo and len(seen) < 16:
        objects = todo.pop()
        seen.add(objects)
        listed = os.path.join(objects, "info", "alternates")
        try:
            raw = read_file(listed)
        except FileNotFoundError:
            continue
        except OSError as exc:  # TooLarge included
            return f"git objects through {listed}, which cannot be read whole ({exc.__class__.__name__})"
        for entry in _alternate_entries(raw):
            borrowed = os.path.realpath(os.path.join(objects, entry))
            if not is_inside(quest, Path(borrowed)):
                return f"git objects from {borrowed}"
            if borrowed not in seen:
                todo.append(borrowed)
    return None
