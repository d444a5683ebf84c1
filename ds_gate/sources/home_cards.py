"""A home's global cards read once for many quests (``closure --all-quests``).

``SharedCards`` is that read, held by the caller for one run and passed down
(``Gate.shared_cards``), never a process-wide cache, so two runs or two tests never see each
other's cards. A quest must get what reading the home itself would give it, so a read is
reused only under the same key: the home's resolved path and its memory folders' stamps (a card
written, removed or renamed changes a stamp; one home's worth is held, the newest). A card
rewritten in place is seen as first read in this run: a run is one snapshot of the memory.
Card paths are shown whole, or relative to a quest that lies inside the home's memory or holds it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.findings import Finding
from ds_gate.model.records import Card
from ds_gate.sources.memory import read_cards

Stamp = tuple[tuple[int, int, int] | None, ...]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GlobalCards:
    """One read of a home's global memory: its cards and what the read found wrong (an
    unreadable card, a link out of the memory folder). Shared, so never changed: a quest that hands a
    card on (its report, a plugin) hands on its own copy (``Home.own``)."""

    cards: tuple[Card, ...]
    findings: tuple[Finding, ...]


def _stamp(folder: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def folder_stamps(memory: Path) -> Stamp:
    """The memory folder's, each kind folder's and each idea folder's (inode, mtime, ctime):
    a card added, removed or renamed, or a folder made unreadable, changes one of them."""
    stamps = [_stamp(memory), *(_stamp(memory / kind) for kind in MEMORY_KINDS)]
    try:
        ideas = sorted(e.path for e in os.scandir(memory / "ideas") if e.is_dir())
    except OSError:
        ideas = []
    return (*stamps, *(_stamp(Path(folder)) for folder in ideas))


@dataclass(slots=True)
class _Held:
    stamp: Stamp
    read: GlobalCards
    made: dict[Callable[..., Any], Any] = field(default_factory=dict)  # what each builder made of ``read``


class SharedCards:
    """Global cards read once per home for one run over many quests; see the module's docstring."""

    def __init__(self) -> None:
        self._held: dict[Path, _Held] = {}

    def cards(self, home: Path, base: Path | None) -> GlobalCards:
        """``<home>/memory``'s cards as ``read_cards`` gives them with ``base``, read at most
        once while the memory folders do not change."""
        memory = home / "memory"
        if base is not None and (is_inside(base, memory) or is_inside(memory, base)):
            return read_global(home, base)  # paths shown relative to this quest: its own read, not held
        stamp = folder_stamps(memory)  # taken before the read: a change during it is seen next time
        held = self._held.get(home)
        if held is None or held.stamp != stamp:
            held = _Held(stamp, read_global(home, None))  # paths shown whole, as for any quest outside the memory
            self._held[home] = held
        return held.read

    def made(self, read: GlobalCards, build: Callable[[Sequence[Card]], T]) -> T:
        """``build(read.cards)`` (an index of the cards), made once while ``read`` is the read
        held, so every quest sharing the read shares what is made of it; a read not held (a
        quest inside the memory) gets its own."""
        held = next((h for h in self._held.values() if h.read is read), None)
        if held is None:
            return build(read.cards)
        if build not in held.made:
            held.made[build] = build(read.cards)
        made: T = held.made[build]
        return made


def read_global(home: Path, base: Path | None) -> GlobalCards:
    """``<home>/memory``'s cards, their paths shown relative to ``base`` (whole outside it):
    the one read of the global memory, shared or not."""
    cards, found = read_cards(home / "memory", scope="global", base=base)
    return GlobalCards(tuple(cards), tuple(found))
