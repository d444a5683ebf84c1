"""What one recall reads: the caller's ``scope`` within what the home's ``memory.read_visibility_mode``
shows the asking quest (``sources.visibility``), as DeepScientist's own memory tools show it.

- ``independent`` (the default): the global cards and the asking quest's own; with no quest, the
  global cards only.
- ``shared_across_quests``: also the sibling quests' cards (``shared_quest``, with main's
  ``sharedmemory::<quest>::<path under memory/>`` id) and the home's quirks files (``recall.quirks``).
- ``all``: every quest folder and the quirks files: a human's widening (``recall --visibility all``,
  the API's ``visibility="all"``), never read from the home and never offered to an agent's tool.

``scope`` keeps its meaning inside the mode: ``global`` the home's cards, ``quest`` the asking
quest's own, ``visible`` everything the mode shows.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.layout import HOME_CONFIG, QUIRKS_FILES
from ds_gate.recall.files import Source
from ds_gate.recall.index import Root
from ds_gate.recall.quirks import QUIRKS_KIND, read_quirks
from ds_gate.sources.visibility import ALL, INDEPENDENT, KEY, MODES, Visibility, read_visibility, sibling_quests

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

FOLLOW = "follow"  # the home's own setting: what every agent route passes
FLAG_CHOICES = (*MODES, ALL)  # what a human may name instead of the home's setting (`recall --visibility`)
VISIBILITIES = (FOLLOW, *FLAG_CHOICES)
SHARED_PREFIX = "sharedmemory::"  # memory/service.py SHARED_MEMORY_DOCUMENT_PREFIX


@dataclass
class Plan:
    """The roots and files one recall reads, the mode that chose them, and what to tell the caller."""

    visibility: Visibility
    roots: list[Root] = field(default_factory=list)
    quirks: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def sources(self) -> list[Source]:
        return [Source(path, read_quirks) for path in self.quirks]

    def as_dict(self) -> dict[str, Any]:
        """The result's ``visibility``: the mode, where it came from, the file it is read from, the quirks files read."""
        return {**self.visibility.as_dict(), "quirks": [str(p) for p in self.quirks]}

    def kind_note(self, kind: str | None) -> list[str]:
        if kind != QUIRKS_KIND or self.visibility.mode != INDEPENDENT:
            return []
        return [
            f"kind 'quirks': the home's quirks files are recalled only where {KEY} is shared_across_quests "
            f"(this recall: {INDEPENDENT}, {self.visibility.origin})"
        ]


def plan(home: Path, quest: Path | None, scope: str, visibility: str, watch: Watch | None = None) -> Plan:
    """What ``scope`` reads under ``visibility`` (``follow``: the home's setting, read now);
    ``watch`` gets what deciding it read (a kept recall answer, ``kernel.answers``)."""
    if visibility not in VISIBILITIES:
        raise QuestError(f"visibility must be one of {', '.join(VISIBILITIES)}, not {shown(visibility, 60)}")
    if watch is not None and visibility == FOLLOW:
        watch.look(home / HOME_CONFIG)
    seen = read_visibility(home) if visibility == FOLLOW else Visibility(visibility, "caller", str(home / HOME_CONFIG))
    out = Plan(seen, notes=[seen.note] if seen.note else [])
    if scope in ("global", "visible"):
        out.roots.append(Root(home / "memory", "global", home))
    if scope in ("quest", "visible") and quest is not None:
        out.roots.append(Root(quest / "memory", "quest", quest))
    if scope != "visible":
        return out
    if seen.mode == INDEPENDENT:
        if quest is None:
            out.notes.append(
                f"no quest given, and {KEY} is {INDEPENDENT} here ({seen.origin}): the global cards only; "
                "pass --quest PATH (quest=) for a quest's own cards too"
            )
        return out
    others, skipped = sibling_quests(home, quest, initialized=seen.mode != ALL, watch=watch)
    out.roots.extend(Root(p / "memory", "shared_quest", p) for p in others)
    out.notes.extend(skipped)
    for name in QUIRKS_FILES:
        out.quirks.extend(_quirks_file(home / name, out.notes))
        if watch is not None:
            watch.look(home / name)
    if seen.mode == ALL:
        out.notes.append(
            f"visibility all: every quest folder of the home is read, wider than its {KEY}; "
            "a human's flag, which no agent tool offers"
        )
    return out


def _quirks_file(path: Path, notes: list[str]) -> list[Path]:
    """``[path]`` when the quirks file is there to read, else ``[]`` (with a note when it is there but not read)."""
    try:
        st = os.lstat(path)
    except OSError:
        return []
    if stat.S_ISLNK(st.st_mode):
        notes.append(f"{path} is a symbolic link; ds-gate does not follow it, so it is not recalled")
    elif st.st_size > fs.max_file_bytes():
        notes.append(
            f"{path} is over {fs.megabytes(fs.max_file_bytes())}, so it is not recalled ({fs.MAX_FILE_VARIABLE})"
        )
    elif stat.S_ISREG(st.st_mode):
        return [path]
    return []


SHOWN_LINKS = 5  # linked files named in one recall's note; the rest counted


def linked_note(paths: list[str]) -> list[str]:
    """The note saying which card files (or kind and idea folders) were not recalled because they
    are symbolic links out of their memory folder: the link's own path, never what it points to."""
    if not paths:
        return []
    more = f" and {len(paths) - SHOWN_LINKS} more" if len(paths) > SHOWN_LINKS else ""
    return [
        f"not recalled: {', '.join(paths[:SHOWN_LINKS])}{more}: a symbolic link out of its memory folder "
        "(or a memory folder that is a link), which ds-gate never follows; replace the link with the card itself"
    ]


def add_document_ids(rows: list[dict[str, Any]], roots: list[Root]) -> None:
    """Main's ``document_id`` on each sibling quest's card: ``sharedmemory::<quest>::<path under
    memory/>``, the id ``memory.read_card(path=...)`` resolves in that quest's memory."""
    shared = [r for r in roots if r.scope == "shared_quest"]
    for row in rows:
        if row.get("scope") != "shared_quest":
            continue
        for root in shared:
            prefix = f"{root.memory}{os.sep}"
            if str(row["path"]).startswith(prefix):
                relative = str(row["path"])[len(prefix) :].replace(os.sep, "/")
                row["document_id"] = f"{SHARED_PREFIX}{root.owner.name}::{relative}"
                break
