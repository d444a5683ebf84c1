"""The home's quirks files (``framework_quirks.md``, ``system_quirks.md``) as recallable entries,
read only where the home's ``memory.read_visibility_mode`` is ``shared_across_quests``: main's
prompt points agents at them in that mode alone (``prompts/builder.py``
``_cross_quest_recall_policy_block``).

No code of main's parses them: ``home.py`` ``ensure_home_layout`` writes a title and a fixed
preamble, and agents append free Markdown entries. So an entry is a section under a heading
(``##``, ``###``, or a ``#`` other than main's title), up to the next such heading; text outside
such sections is split at blank lines, one entry per block; the title line and any block that
is a paragraph of main's preamble (``PREAMBLES``) are dropped. Fenced code never splits an entry.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.recall.entries import Budget, Entry
from ds_gate.recall.jsonl import SourceProblem

QUIRKS_KIND = "quirks"  # the entries' kind (``--kind quirks``)
QUIRKS_SCOPE = "home_quirks"
TITLE_CHARS = 80

# home.py ensure_home_layout at DeepScientist 1.6.0 (b366244): the title and preamble paragraphs
PREAMBLES = {
    "framework": (
        "# Framework Quirks",
        "Append-only durable file for framework-layer pitfalls (validator path quirks, closure-protocol gotchas, "
        "anything that cannot or will not be fixed in code and that future quests should know about before "
        "exercising the same surfaces).",
        "Each entry should name the surface, the symptom, and the workaround in 2-5 lines. Stage skills (idea, "
        "decision, finalize) instruct agents to read this file before committing to a route that would touch the "
        "relevant surface.",
        "If a quirk should instead be fixed at the framework level, file an issue and fix the code; do not add it "
        "here as a permanent shim.",
    ),
    "system": (
        "# System Quirks",
        "Append-only durable file for confirmed DeepScientist runtime or system bugs that may help future "
        "admin/debug issue reports.",
        "Each entry should include: expected behavior, actual behavior, reproduction, impact, workaround, suggested "
        "fix, evidence paths, and status. Keep entries redacted: do not store secrets, tokens, private hostnames, "
        "raw logs, or private paths unless they are necessary and already safe to disclose.",
        "Prefer fixing code over recording permanent quirks. Use this file for confirmed system behavior that is "
        "not yet fixed or for a short-lived workaround while the fix lands.",
    ),
}
_HEADING = re.compile(r"^ {0,3}(#{1,3})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _flat(text: str) -> str:
    return " ".join(text.split())


_PREAMBLE_TEXT = {_flat(part) for parts in PREAMBLES.values() for part in parts}


def which(path: Path) -> str:
    """``framework`` or ``system``: the file's part of the entries' ids and tags."""
    return "system" if path.name.startswith("system") else "framework"


def split_entries(text: str) -> list[tuple[int, str | None, str]]:
    """(first line number, heading or None, the entry's text) of each entry, preamble dropped."""
    out: list[tuple[int, str | None, str]] = []
    block: list[str] = []
    start, heading, fence = 0, None, ""

    def close() -> None:
        body = "\n".join(block).strip("\n")
        if body.strip() and (heading is not None or _flat(body) not in _PREAMBLE_TEXT):
            out.append((start, heading, body))
        block.clear()

    for number, line in enumerate(text.splitlines(), start=1):
        opened = _FENCE.match(line)
        found = None if fence or opened else _HEADING.match(line)
        if fence:  # inside fenced code: only its closing fence ends it
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif found is not None:  # a heading starts an entry; main's title only ends the one before
            close()
            start, heading = number, found.group(2).strip() or found.group(1)
            if _flat(line) in _PREAMBLE_TEXT:
                heading = None
                continue
        elif heading is None and not line.strip():  # loose text: one entry a block
            close()
            continue
        if not block:
            start = number
        block.append(line)
    close()
    return out


def read_quirks(path: Path, budget: Budget) -> tuple[list[Entry], list[SourceProblem]]:
    """The file's entries (none when it is missing), each spending ``budget``; the file is read by
    the bounded reader, never through a link (the caller names it inside the home)."""
    try:
        raw, st = fs.read_with_stat(path, follow=False)
    except (
        OSError
    ):  # gone, unreadable, a link, not a regular file, over the limit: ``recall.visible`` says which are read
        return [], []
    part = which(path)
    updated = datetime.fromtimestamp(st.st_mtime, timezone.utc).isoformat()
    out: list[Entry] = []
    for line, heading, body in split_entries(raw.decode("utf-8", "replace")):
        first = next(s for s in (x.strip() for x in body.splitlines()) if s)
        title = (heading or first.lstrip("#*-> ").strip() or first)[:TITLE_CHARS]
        digest = hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        tags = ("quirk", part)
        entry = Entry(
            f"quirk-{part}-{digest}",
            title,
            None,
            tags,
            frozenset(tags),
            QUIRKS_KIND,
            QUIRKS_SCOPE,
            None,
            updated,
            f"{os.fspath(path)}:{line}",
            body,
            st.st_mtime,
        )
        entry.dup = entry.content_key()
        budget.spend(entry)
        out.append(entry)
    return out, []
