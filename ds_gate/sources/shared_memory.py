"""The cards a review's neighbour decisions may name, found as DeepScientist main's MemoryService
finds them (``memory/service.py``), for ``rules.neighbours``.

Main names a card in its listings by ``document_id``: ``memory::<path under memory/>`` for a card
of the quest's own memory or of the global one, and ``sharedmemory::<quest>::<path under memory/>``
for another quest's card, which main lists only when the home's ``memory.read_visibility_mode``
(``<home>/config/config.yaml``) is ``shared_across_quests``; then the quest also sees its siblings'
cards (``<home>/quests/*/`` with a ``quest.yaml``). A path is relative, without ``..``; the file is a
regular card reached without a link out of that quest's memory folder, which is no link itself, in
a quest folder that is no link (``card_files``); every read is bounded (``kernel.fs``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ds_gate.kernel.errors import shown
from ds_gate.model.records import Card, same_quest
from ds_gate.sources.card_files import display_path, inside_memory, read_listed
from ds_gate.sources.home import valid_quest_id
from ds_gate.sources.memory import parse_card, read_cards
from ds_gate.sources.visibility import INDEPENDENT, SHARED, read_visibility, sibling_quests

SHARED_PREFIX, OWN_PREFIX = "sharedmemory::", "memory::"


@dataclass(frozen=True, slots=True)
class DocumentId:
    """A ``memory::`` (``quest`` None) or ``sharedmemory::`` id, read as main reads it."""

    quest: str | None
    rel: str  # the card's path under that memory folder, posix, relative


def document_id(text: str) -> DocumentId | str | None:
    """The main document id ``text`` spells; None for a plain card id; the reason when it is one
    that cannot name a card (main's ``parse_shared_document_id``, then ds-gate's path rules)."""
    raw = text.strip()
    if raw.startswith(SHARED_PREFIX):
        _, quest, rel = (raw.split("::", 2) + ["", "", ""])[:3]
        quest, rel = quest.strip(), rel.lstrip("/")
        if not quest or not rel:
            return f"{shown(raw)} is not main's sharedmemory::<quest>::<path under memory/>"
        if not valid_quest_id(quest):
            return f"{shown(quest)} is not a quest id (one folder name, no '/' or '..')"
    elif raw.startswith(OWN_PREFIX):
        quest, rel = None, raw[len(OWN_PREFIX) :].lstrip("/")
    else:
        return None
    parts = PurePosixPath(rel).parts
    if not parts or ".." in parts or "\0" in rel:
        return f"{shown(rel)} is not a path under memory/ (relative, without '..')"
    return DocumentId(quest, rel)


class Neighbourhood:
    """What one quest's neighbour decisions may name: its own cards, the global ones (None when
    no home was read), and in a shared home its siblings' (read once, on first use)."""

    def __init__(
        self,
        home: Path,
        home_exists: bool,
        quest_root: Path,
        quest_id: str,
        own: Sequence[Card],
        global_cards: Sequence[Card] | None,
    ) -> None:
        self.home, self.home_exists = home, home_exists
        self.quest_root, self.quest_id = quest_root, quest_id
        self.own, self.global_cards = own, global_cards
        self._mode: str | None = None
        self._siblings: list[Card] | None = None

    @property
    def mode(self) -> str:
        """The home's visibility mode, read once (no home: ``independent``, main's default)."""
        if self._mode is None:
            self._mode = read_visibility(self.home).mode if self.home_exists else INDEPENDENT
        return self._mode

    def is_own(self, quest_id: str) -> bool:
        """Whether a ``sharedmemory::`` quest is this one (main's active quest is its folder's name)."""
        return quest_id == self.quest_root.name or same_quest(quest_id, self.quest_id)

    def at_path(self, scope: str, rel: str) -> Card | None:
        """The card read from ``<memory>/<rel>`` of the quest (``quest``) or the home (``global``)."""
        cards = self.own if scope == "quest" else self.global_cards or ()
        root = self.quest_root if scope == "quest" else self.home
        wanted = os.path.normpath(root / "memory" / rel)
        return next((card for card in cards if os.path.normpath(card.path) == wanted), None)

    def shared_path(self, quest_id: str, rel: str) -> Path:
        return self.home / "quests" / quest_id / "memory" / rel

    def shared_card(self, quest_id: str, rel: str) -> Card | str:
        """Another quest's card at ``<home>/quests/<quest_id>/memory/<rel>``, or why there is none."""
        path = self.shared_path(quest_id, rel)
        display = display_path(path, self.quest_root)
        folder = self.home / "quests" / quest_id
        if any(os.path.islink(p) for p in (self.home / "quests", folder, folder / "memory")):
            return f"{display_path(folder, self.quest_root)} or its memory folder is a symbolic link; not followed"
        real = os.path.realpath(path)
        if not inside_memory(real, os.path.realpath(folder / "memory")):
            return f"{display} leads out of that quest's memory folder (a symbolic link); not followed"
        try:
            listed = os.lstat(real)  # ``real`` is resolved: a link there now is a swap
            if not stat.S_ISREG(listed.st_mode):
                return f"{display} is not a regular file"
            # read_listed's device and inode check refuses the file, or a folder above it, swapped since
            raw = read_listed(real, listed)
            if os.path.realpath(path) != real:
                return f"{display} changed while it was read (a folder or file swapped); not followed"
        except (FileNotFoundError, NotADirectoryError):
            return f"there is no {display}"
        except OSError as exc:
            return f"{display} cannot be read: {exc.strerror or exc}"
        kind = PurePosixPath(rel).parts[0]
        card = parse_card(raw, path=path, display=display, scope="shared_quest", kind=kind)
        return card if card is not None else f"{display} is no memory card (no frontmatter)"

    def siblings(self) -> list[Card]:
        """The cards of every other quest of the home with a ``quest.yaml`` (main's
        ``_iter_initialized_quest_roots``), when the home shares memory across quests; else none."""
        if self._siblings is None:
            self._siblings = []
            folders = sibling_quests(self.home, self.quest_root)[0] if self.mode == SHARED else []
            for folder in folders:
                if self.is_own(folder.name):
                    continue
                cards, _ = read_cards(folder / "memory", scope="shared_quest", base=self.quest_root)
                self._siblings.extend(cards)  # what is wrong in another quest's memory is its own report's
        return self._siblings
