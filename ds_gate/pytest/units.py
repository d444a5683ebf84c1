"""What ``--ds-gate`` paths name: one unit per quest and per home, from folder names only; its items'
node ids are ``<unit>::<check>``. Apart from ``items`` so that xdist's controller, which only
schedules, lists the units without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.kernel.layout import is_home
from ds_gate.pytest.guard import quest_folders
from ds_gate.reporters.escape import printable

if TYPE_CHECKING:
    from collections.abc import Iterable

QUEST_CHECKS = ("coverage", "records", "cards", "status")
HOME_CHECKS = ("lineage",)


@dataclass(frozen=True, slots=True)
class Unit:
    """What is read once: one quest, or one home's lineage. ``name`` is its node id's first part."""

    name: str
    path: Path
    kind: str  # "quest" or "home"
    home: str | None

    @property
    def checks(self) -> tuple[str, ...]:
        return QUEST_CHECKS if self.kind == "quest" else HOME_CHECKS


def units(paths: Iterable[Path], home: Path | str | None) -> list[Unit]:
    """Every quest and home the paths name, from folder names only (nothing is read); ``home``:
    the one asked for (``--ds-gate-home``), else a home given as a path is its quests'."""
    out: list[Unit] = []
    names: set[str] = set()

    def add(name: str, path: Path, kind: str, home: str | None) -> None:
        base, n = printable(name), 2  # ids are printed raw on the terminal: escaped
        name = base
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.add(name)
        out.append(Unit(name, path, kind, home))

    home = str(home) if home else None
    for given in paths:
        path = Path(given).expanduser().resolve()
        if is_home(path):
            for quest in quest_folders(path / "quests"):
                add(f"quest-{quest.name}", quest, "quest", home or str(path))
            add("home", path, "home", home or str(path))
        else:
            add(f"quest-{path.name}", path, "quest", home)
    return out
