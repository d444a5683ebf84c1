"""Where memory cards are: the files MemoryService would list or read, found without following
a link out of their memory folder and without mistaking an unreadable folder for an empty one.
Parsing a card is ``memory``'s job; this module only finds the files.

Every memory root is contained by itself: ``<home>/memory`` holds the global cards,
``<quest>/memory`` a quest's, and a card, kind folder or idea folder whose real path leaves its
own memory folder is reported and never followed, even when the target lies in the same home or
quest (``<home>/memory/knowledge/x.md -> ../../quests/B/memory/...`` would show B's card as a
global one). A memory folder that is itself a symbolic link is not read: it could name any
other memory folder. Hard links cannot be told from files and are read (docs/threat-model.md).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.findings import Finding
from ds_gate.sources.problems import CARD_UNREADABLE, PATH_SYMLINK_OUTSIDE_QUEST, unreadable

LINK_HINT = "a memory card lives in its own memory folder; replace the link with the card itself"


def display_path(path: Path, base: Path | None) -> str:
    """Relative to the report's base folder when inside it, else absolute."""
    if base is not None and is_inside(base, path):
        return path.relative_to(base).as_posix()
    return str(path)


def linked_out(display: str, memory: str) -> Finding:
    """A link out of its memory folder: named by the link, never by what it points to (the target
    may be another quest's card, whose very file name is that quest's)."""
    return PATH_SYMLINK_OUTSIDE_QUEST.at(
        display, f"{display} is a symbolic link out of its memory folder {memory}; not followed", hint=LINK_HINT
    )


def memory_folder(root: Path, base: Path | None, findings: list[Finding]) -> str | None:
    """The real path of the memory folder ``root``, which contains its cards; None (with a finding)
    when the folder is itself a symbolic link."""
    if os.path.islink(root):
        findings.append(
            PATH_SYMLINK_OUTSIDE_QUEST.at(
                display_path(root, base),
                f"{display_path(root, base)} is a symbolic link; a memory folder is read only where it lies, "
                "so its cards are not read",
                hint="replace the link with the memory folder itself",
            )
        )
        return None
    return os.path.realpath(root)


def inside_memory(path: str | Path, memory: str) -> bool:
    """Whether ``path``'s real path (every link resolved) lies in the memory folder ``memory`` (real)."""
    return is_inside(memory, os.path.realpath(path))


def card_files(root: Path, base: Path | None, findings: list[Finding]) -> list[tuple[Path, str, os.stat_result]]:
    """(file, kind, its stat as listed) of every ``*.md`` MemoryService would list or read, in a
    stable order; read each with ``read_listed``."""
    return [(Path(path), kind, st) for path, kind, st in card_stats(root, base, findings)]


class ChangedSinceListed(OSError):
    """The file opened is not the one listed: it, or a folder above it, was swapped since."""


def read_listed(path: Path | str, listed: os.stat_result) -> bytes:
    """A card's bytes, only from the very file ``card_stats`` listed and contained (the same device
    and inode): a card or folder swapped for a link between that check and this read (a race the
    agent can run) is refused, never followed out of its memory folder."""
    raw, st = fs.read_with_stat(path)
    if (st.st_dev, st.st_ino) != (listed.st_dev, listed.st_ino):
        raise ChangedSinceListed(0, "it was replaced while being read (a file or folder swapped since listed)")
    return raw


def card_stats(
    root: Path, base: Path | None, findings: list[Finding], seen: list[str] | None = None
) -> list[tuple[str, str, os.stat_result]]:
    """``card_files`` with each file's path as text and its stat, for a caller that reads
    thousands (recall): the stat is the one the containment check made, and a path object
    per card is not built. ``seen`` gets every folder listed and every entry passed over that
    could become a card (a kept recall answer looks at them again, ``kernel.answers``)."""
    out: list[tuple[str, str, os.stat_result]] = []
    if not fs.is_dir(root):
        problem = fs.hidden(root)
        if problem is not None:  # a home under a folder the user may not enter: never "no cards"
            findings.append(unreadable_card(display_path(root, base), problem))
        return out
    memory = memory_folder(root, base, findings)
    if memory is None:
        return out
    for kind in MEMORY_KINDS:
        folder = root / kind
        try:
            if not folder.is_dir():
                continue
        except OSError as exc:  # the memory folder cannot be entered: say so, never "no cards"
            findings.append(unreadable_card(display_path(root, base), exc))
            return out
        if not _contained(folder, memory, base, findings):
            continue
        out.extend(_md_files(folder, kind, memory, base, findings, kind == "ideas", seen))
    return out


def _contained(path: Path, memory: str, base: Path | None, findings: list[Finding]) -> bool:
    """True when the real path stays inside the memory folder; else a finding naming the link."""
    if inside_memory(path, memory):
        return True
    findings.append(linked_out(display_path(path, base), display_path(Path(memory), base)))
    return False


def _md_files(
    folder: Path,
    kind: str,
    memory: str,
    base: Path | None,
    findings: list[Finding],
    nested: bool,
    seen: list[str] | None,
) -> list[tuple[str, str, os.stat_result]]:
    """The ``*.md`` files of a folder whose real path lies inside ``memory``: only links are
    resolved (``scandir`` tells them without a system call); the rest cost one ``lstat``, their ``stat``."""
    out: list[tuple[str, str, os.stat_result]] = []
    passed: list[str] = [str(folder)]  # the folder, and each entry passed over that could become a card
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        findings.append(unreadable_card(display_path(folder, base), exc))
        entries = []
    for entry in entries:
        if entry.name.endswith(".md"):
            try:
                link = entry.is_symlink()
                if link and not _contained(Path(entry.path), memory, base, findings):
                    passed.append(entry.path)
                    continue
                st = os.stat(entry.path) if link else entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode):  # never a FIFO or device: reading would block
                    out.append((entry.path, kind, st))
                else:
                    passed.append(entry.path)
            except OSError as exc:
                findings.append(unreadable_card(display_path(Path(entry.path), base), exc))
                passed.append(entry.path)
        elif nested and entry.is_dir():
            path = Path(entry.path)
            if _contained(path, memory, base, findings):
                out.extend(_md_files(path, kind, memory, base, findings, False, seen))
            else:
                passed.append(entry.path)
        elif nested and entry.is_symlink():  # a link to nothing yet, or to a file: it may come to lead to a folder
            passed.append(entry.path)
    if seen is not None:
        seen.extend(passed)
    return out


def unreadable_card(display: str, exc: OSError) -> Finding:
    return unreadable(display, exc, CARD_UNREADABLE)
