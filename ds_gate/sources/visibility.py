"""How far a DeepScientist home lets one quest see: ``memory.read_visibility_mode``, read where
DeepScientist main reads it (``<home>/config/config.yaml``: ``config/service.py`` ``path_for``,
``memory/service.py`` ``read_visibility_mode``), normalised as main normalises it, and the sibling
quests ``shared_across_quests`` opens (``memory/service.py`` ``_iter_initialized_quest_roots``).

The home is untrusted input: the file is read by the bounded reader and safe YAML, never through a
link out of the home. Where main would raise (a YAML error, bytes that are not UTF-8) or could not
read at all, ds-gate reads the narrower ``independent`` and says why: a quest never sees more
than its home allows because a file could not be read. Read on every call (one small file), so
a changed setting applies to the next recall.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.io.yamldoc import YamlError, load_yaml
from ds_gate.kernel import fs
from ds_gate.kernel.errors import shown
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import HOME_CONFIG, QUEST_YAML

if TYPE_CHECKING:
    from ds_gate.kernel.answers import Watch

INDEPENDENT, SHARED = "independent", "shared_across_quests"
MODES = (INDEPENDENT, SHARED)  # memory/service.py MEMORY_READ_VISIBILITY_MODES
ALL = "all"  # a human's widening (`recall --visibility all`): every quest folder; never the home's, never an agent's
KEY = "memory.read_visibility_mode"


@dataclass(frozen=True)
class Visibility:
    """The mode one recall applies and where it came from: ``config`` (the home's key), ``default``
    (no file, or no key: main's default), ``fallback`` (the file could not be read: the narrower
    view) or ``caller`` (a flag or argument of a human's). ``note``: what the reader should know."""

    mode: str
    origin: str
    config: str
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "origin": self.origin, "config": self.config}


def normalize_mode(value: object) -> str:
    """Main's ``normalize_read_visibility_mode`` for any YAML value: stripped, lower case, anything
    else ``independent``. Only a string can name a mode (``str()`` of a 5,000-digit integer raises,
    and no other value's text is a mode), so nothing else is turned into text."""
    if not isinstance(value, str):
        return INDEPENDENT
    text = value.strip().lower()
    return text if text in MODES else INDEPENDENT


def read_visibility(home: Path) -> Visibility:
    """The home's ``memory.read_visibility_mode`` (see the module's docstring)."""
    path = home / HOME_CONFIG
    where = str(path)

    def fallback(why: str) -> Visibility:
        return Visibility(
            INDEPENDENT,
            "fallback",
            where,
            f"{where} {why}; recall shows this quest's own and the global cards only ({KEY} read as {INDEPENDENT})",
        )

    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return Visibility(INDEPENDENT, "default", where)
    except OSError as exc:
        return fallback(f"cannot be read ({exc.strerror or exc})")
    real = os.path.realpath(path)
    if not is_inside(os.path.realpath(home), real):
        return fallback(f"is a symbolic link out of the home (to {real}), which ds-gate does not follow")
    try:
        text = fs.read_file(real, follow=False).decode("utf-8")
    except FileNotFoundError:  # a link to nothing: main sees no file either
        return Visibility(INDEPENDENT, "default", where)
    except OSError as exc:
        return fallback(f"cannot be read ({exc.strerror or exc})")
    except UnicodeDecodeError as exc:
        return fallback(f"is not UTF-8 text (byte {exc.start})")
    try:
        data = load_yaml(text)
    except YamlError as exc:
        return fallback(f"is not valid YAML ({exc})")
    if not isinstance(data, dict):  # main reads its defaults
        note = None if data is None else f"{where} holds no mapping; DeepScientist reads its defaults ({INDEPENDENT})"
        return Visibility(INDEPENDENT, "default", where, note)
    memory = data.get("memory")
    if not isinstance(memory, dict) or "read_visibility_mode" not in memory:
        return Visibility(INDEPENDENT, "default", where)
    value = memory["read_visibility_mode"]
    mode = normalize_mode(value)
    note = None
    if value is not None and value != "" and (not isinstance(value, str) or value.strip().lower() not in MODES):
        note = (
            f"{where}: {KEY} is {shown(value, 60)}, not one of {', '.join(MODES)}; "
            f"read as {INDEPENDENT}, as DeepScientist does"
        )
    return Visibility(mode, "config", where, note)


def sibling_quests(
    home: Path, quest: Path | None, *, initialized: bool = True, watch: Watch | None = None
) -> tuple[list[Path], list[str]]:
    """The other quests of the home, by name, and a note for each folder passed over. ``initialized``
    (the mode's rule): a folder holding a ``quest.yaml``, as main's ``_iter_initialized_quest_roots``;
    else (``--visibility all``) every folder. A folder that is a symbolic link, or lies out of the
    home, is never a sibling (main's glob would follow it: ds-gate never follows a link in the home),
    nor one whose ``quest.yaml`` links out of it. ``watch`` is told the quests folder, and each
    entry and its ``quest.yaml`` before they are looked at (a kept recall answer, ``kernel.answers``)."""
    folder = home / "quests"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        entries = []
    if watch is not None:
        watch.look(folder)
        for entry in entries:
            watch.kind(entry.path)
            watch.kind(os.path.join(entry.path, QUEST_YAML))
    if not entries:
        return [], []
    inside = os.path.realpath(home)
    mine = os.path.realpath(quest) if quest is not None else None
    out: list[Path] = []
    notes: list[str] = []
    for entry in entries:
        try:
            if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                if entry.is_symlink():
                    notes.append(f"{entry.path} is a symbolic link; ds-gate does not follow it, so it is no sibling")
                continue
        except OSError:
            continue
        real = os.path.realpath(entry.path)
        if real == mine:
            continue
        if not is_inside(inside, real):
            notes.append(f"{entry.path} lies out of the home (in {real}); its cards are not read")
            continue
        if initialized and not _initialized(Path(real)):
            continue
        out.append(Path(entry.path))
    return out, notes


def _initialized(root: Path) -> bool:
    """A ``quest.yaml`` that is a file of this quest (a link to one inside it counts; out of it, not)."""
    real = os.path.realpath(root / QUEST_YAML)
    return is_inside(str(root), real) and fs.is_file(real)
