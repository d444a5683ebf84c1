"""Where memory cards are: the files MemoryService would list or read, found without
following a link out of the home or quest and without mistaking an unreadable folder for
an empty one. Parsing a card is ``memory``'s job; this module only finds the files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.findings import Finding
from ds_gate.sources.problems import CARD_UNREADABLE, symlink_outside, unreadable


def display_path(path: Path, base: Path | None) -> str:
    """Relative to the report's base folder when inside it, else absolute."""
    if base is not None and is_inside(base, path):
        return path.relative_to(base).as_posix()
    return str(path)


# ---------------------------------------------------------------- values


def _contained(path: Path, contain: Path, display: str, findings: list[Finding]) -> bool:
    """True when the real path (symbolic links resolved) stays inside ``contain``; else a finding."""
    real = Path(os.path.realpath(path))
    if not is_inside(contain, real):
        findings.append(symlink_outside(display, str(real), str(contain), "memory cards"))
        return False
    return True


def card_files(root: Path, contain: Path, base: Path | None, findings: list[Finding]) -> list[tuple[Path, str]]:
    """(file, kind) of every ``*.md`` MemoryService would list or read, in a stable order."""
    return [(Path(path), kind) for path, kind, _ in card_stats(root, contain, base, findings)]


def card_stats(
    root: Path, contain: Path, base: Path | None, findings: list[Finding], seen: list[str] | None = None
) -> list[tuple[str, str, os.stat_result]]:
    """``card_files`` with each file's path as text and its stat, for a caller that reads
    thousands (recall): the stat is the one the containment check made, and a path object
    per card is not built. ``seen`` gets every folder listed and every entry passed over that
    could become a card (a kept recall answer re-stats them, ``kernel.answers``)."""
    out: list[tuple[str, str, os.stat_result]] = []
    if not fs.is_dir(root):
        problem = fs.hidden(root)
        if problem is not None:  # a home under a folder the user may not enter: never "no cards"
            findings.append(unreadable_card(display_path(root, base), problem))
        return out
    if not _contained(root, contain, display_path(root, base), findings):
        return out
    for kind in MEMORY_KINDS:
        folder = root / kind
        try:
            if not folder.is_dir():
                continue
        except OSError as exc:  # the memory folder cannot be entered: say so, never "no cards"
            findings.append(unreadable_card(display_path(root, base), exc))
            return out
        if not _contained(folder, contain, display_path(folder, base), findings):
            continue
        out.extend(_md_files(folder, kind, contain, base, findings, kind == "ideas", seen))
    return out


def _md_files(
    folder: Path,
    kind: str,
    contain: Path,
    base: Path | None,
    findings: list[Finding],
    nested: bool,
    seen: list[str] | None,
) -> list[tuple[str, str, os.stat_result]]:
    """The ``*.md`` files of a folder whose real path lies inside ``contain``: only links are
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
                if link and not _contained(Path(entry.path), contain, display_path(Path(entry.path), base), findings):
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
            if _contained(path, contain, display_path(path, base), findings):
                out.extend(_md_files(path, kind, contain, base, findings, False, seen))
            else:
                passed.append(entry.path)
        elif nested and entry.is_symlink():  # a link to nothing yet, or to a file: it may come to lead to a folder
            passed.append(entry.path)
    if seen is not None:
        seen.extend(passed)
    return out


def unreadable_card(display: str, exc: OSError) -> Finding:
    return unreadable(display, exc, CARD_UNREADABLE)
