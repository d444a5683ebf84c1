"""A DeepScientist home as the card checks see it: global cards, and other quests' runs.

Everything here is read lazily and at most once per process: a quest check that names no
global card never reads the home, and a lineage that names the same quest a hundred
times loads that quest once.
"""

from __future__ import annotations

import os
from pathlib import Path

from ds_gate.checks.coverage import RunIndex
from ds_gate.errors import QuestError
from ds_gate.model import Card, Finding, Quest, same_quest
from ds_gate.sources.memory import display_path, read_cards, resolve_home
from ds_gate.sources.quest import is_inside


class QuestRuns(RunIndex):
    """The runs of one quest, by artifact id and by experiment run_id, as lineage names them."""

    def __init__(self, quest: Quest) -> None:
        super().__init__(quest)
        self.quest_id = quest.quest_id

    def resolve(self, name: str) -> str | None:
        """The artifact id a lineage ``run`` names (its artifact id or its experiment run_id)."""
        if name in self.runs:
            return name
        same = self.by_run_id.get(name)
        return sorted(same)[0] if same else None

    def close_match(self, name: str) -> str | None:
        import difflib

        found = difflib.get_close_matches(name, [*self.runs, *self.by_run_id], n=1, cutoff=0.8)
        return found[0] if found else None


def valid_quest_id(value: str) -> bool:
    """One path component: a lineage entry must never lead a path out of ``<home>/quests``."""
    return bool(value) and value not in (".", "..") and not any(c in value for c in "/\\\0") and value == value.strip()


class Home:
    def __init__(self, path: Path | str | None = None, *, base: Path | None = None) -> None:
        """``base``: the folder card paths are shown relative to (absolute outside it)."""
        self.path = resolve_home(path)
        self.base = base
        self._cards: list[Card] | None = None
        self.findings: list[Finding] = []
        self._quests: dict[str, QuestRuns | str] = {}
        self._loaded: list[Quest] = []

    def register(self, quest: Quest) -> None:
        """A quest already loaded answers for its own id, wherever it lies (no second read)."""
        self._loaded.append(quest)

    @property
    def exists(self) -> bool:
        return (self.path / "memory").is_dir() or (self.path / "quests").is_dir()

    @property
    def cards(self) -> list[Card]:
        """The global cards (``<home>/memory``), read on first use."""
        if self._cards is None:
            self._cards, found = read_cards(self.path / "memory", scope="global", contain=self.path, base=self.base)
            self.findings.extend(found)
        return self._cards

    def display(self, path: Path) -> str:
        return display_path(path, self.base)

    def quest_runs(self, quest_id: str) -> QuestRuns | str:
        """The runs of ``<home>/quests/<quest_id>``, or why they cannot be read."""
        key = quest_id.strip()
        for quest in self._loaded:
            if same_quest(key, quest.quest_id):
                return self._quests.setdefault(key, QuestRuns(quest))
        if key not in self._quests:
            self._quests[key] = self._load(key)
        return self._quests[key]

    def _load(self, quest_id: str) -> QuestRuns | str:
        if not valid_quest_id(quest_id):
            return f"{quest_id!r} is not a quest id (it must be one folder name, with no '/' or '..')"
        quests = self.path / "quests"
        folder = quests / quest_id
        if not folder.is_dir() and quest_id.isdigit():  # `quest: 1` for the folder 001
            folder = next((p for p in sorted(_subfolders(quests)) if p.name.isdigit() and int(p.name) == int(quest_id)),
                          folder)
        if not folder.is_dir():
            return f"no quest {quest_id} in {self.display(quests)}"
        real = Path(os.path.realpath(folder))
        if not is_inside(self.path, real):
            return f"{self.display(folder)} is a symbolic link out of the home; not followed"
        from ds_gate.loader import load_quest

        try:
            quest = load_quest(folder, runs_only=True)
        except QuestError as exc:
            return f"quest {quest_id} cannot be read: {exc}"
        return QuestRuns(quest)


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.is_dir()]
    except OSError:
        return []


def quest_cards(quest: Quest, base: Path | None = None) -> tuple[list[Card], list[Finding]]:
    """The quest's own memory cards (``<quest_root>/memory``), read once per Quest."""
    if quest.cards is not None:
        return quest.cards, []
    cards, findings = read_cards(quest.root / "memory", scope="quest", contain=quest.root, base=base or quest.root)
    quest.cards = cards
    return cards, findings
