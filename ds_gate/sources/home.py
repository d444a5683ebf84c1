"""A DeepScientist home as the card checks see it: global cards, and other quests' runs.

Everything here is read lazily and at most once per process: a quest check that names no
global card never reads the home, and a lineage that names the same quest a hundred
times loads that quest once.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.fs import is_inside
from ds_gate.model.findings import Finding
from ds_gate.model.records import Card, Quest, same_quest
from ds_gate.sources.card_files import display_path
from ds_gate.sources.home_cards import GlobalCards, SharedCards, read_global
from ds_gate.sources.memory import read_cards, resolve_home

T = TypeVar("T")


def valid_quest_id(value: str) -> bool:
    """One path component: a lineage entry must never lead a path out of ``<home>/quests``
    (``²`` is a digit to ``str.isdigit`` but not to ``int``; names past 255 bytes make
    every file-system call fail)."""
    return (
        bool(value)
        and value not in (".", "..")
        and not any(c in value for c in "/\\\0")
        and value == value.strip()
        and len(value.encode("utf-8", "surrogateescape")) <= 255
    )


LoadQuest = Callable[[Path], Quest]


class Home:
    def __init__(
        self,
        path: Path | str | None = None,
        *,
        base: Path | None = None,
        load: LoadQuest | None = None,
        quest: Path | None = None,
        shared: SharedCards | None = None,
    ) -> None:
        """``base``: the folder card paths are shown relative to (absolute outside it).
        ``load``: reads another quest of the home (its runs), when a lineage names one.
        ``quest``: a quest root, whose own home is the default (see ``resolve_home``).
        ``shared``: the global cards already read for another quest of this run, if any."""
        self.path = resolve_home(path, quest)
        self.base = base
        self.load = load
        self.shared = shared
        self._cards: list[Card] | None = None
        self._read: GlobalCards | None = None
        self.findings: list[Finding] = []
        self._quests: dict[str, Quest | str] = {}
        self._loaded: list[Quest] = []

    def register(self, quest: Quest) -> None:
        """A quest already loaded answers for its own id, wherever it lies (no second read)."""
        self._loaded.append(quest)

    @property
    def exists(self) -> bool:
        """A home is there when its memory or quests folder is, or when one is present but
        hidden (the card reader then says it cannot read it, never "no cards")."""
        memory, quests = self.path / "memory", self.path / "quests"
        return fs.is_dir(memory) or fs.is_dir(quests) or fs.hidden(memory) is not None

    @property
    def cards(self) -> list[Card]:
        """The global cards (``<home>/memory``), read on first use (or taken from ``shared``)."""
        if self._cards is None:
            read = (read_global if self.shared is None else self.shared.cards)(self.path, self.base)
            self._read, self._cards = read, list(read.cards)
            self.findings.extend(read.findings)
        return self._cards

    def index(self, build: Callable[[Sequence[Card]], T]) -> T:
        """``build(self.cards)`` (an index of the global cards): made once for every quest of a
        run when the read is shared, since the cards are the same ones."""
        cards = self.cards
        if self.shared is None or self._read is None:
            return build(cards)
        return self.shared.made(self._read, build)

    def own(self, card: Card) -> Card:
        """A global card this quest hands on (its report, a plugin's context), as its own copy
        when the card is shared with other quests: what one quest's plugin changes in it
        never reaches another quest's verdict."""
        if self.shared is None or card.scope != "global":
            return card
        return dataclasses.replace(card, meta=copy.deepcopy(card.meta), findings=list(card.findings))

    def display(self, path: Path) -> str:
        return display_path(path, self.base)

    def quest(self, quest_id: str) -> Quest | str:
        """``<home>/quests/<quest_id>`` (its runs), or why it cannot be read; each read once."""
        key = quest_id.strip()
        for quest in self._loaded:
            if same_quest(key, quest.quest_id):
                return quest
        if key not in self._quests:
            self._quests[key] = self._load(key)
        return self._quests[key]

    def _load(self, quest_id: str) -> Quest | str:
        if not valid_quest_id(quest_id):
            return f"{shown(quest_id)} is not a quest id (it must be one folder name, with no '/' or '..')"
        quests = self.path / "quests"
        folder = quests / quest_id
        if not fs.is_dir(folder) and quest_id.isascii() and quest_id.isdigit():  # `quest: 1` for the folder 001
            folder = next(
                (
                    p
                    for p in sorted(_subfolders(quests))
                    if p.name.isascii() and p.name.isdigit() and int(p.name) == int(quest_id)
                ),
                folder,
            )
        if not fs.is_dir(folder):
            if fs.hidden(folder) is not None:
                return f"{self.display(folder)} cannot be read: {fs.hidden(folder)}"
            return f"no quest {quest_id} in {self.display(quests)}"
        real = Path(os.path.realpath(folder))
        if not is_inside(self.path, real):
            return f"{self.display(folder)} is a symbolic link out of the home; not followed"
        if self.load is None:
            return f"quest {quest_id} was not read (no loader given)"
        try:
            return self.load(folder)
        except QuestError as exc:
            return f"quest {quest_id} cannot be read: {exc}"


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.is_dir()]
    except OSError:
        return []


def quest_cards(quest: Quest, base: Path | None = None) -> tuple[list[Card], list[Finding]]:
    """The quest's own memory cards (``<quest_root>/memory``)."""
    return read_cards(quest.root / "memory", scope="quest", base=base or quest.root)
