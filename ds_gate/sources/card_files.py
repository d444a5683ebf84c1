"""Where memory cards are: the files MemoryService would list or read, found without
following a link out of the home or quest and without mistaking an unreadable folder for
an empty one. Parsing a card is ``memory``'s job; this module only finds the files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.layout import MEMORY_KINDS
from ds_gate.model.findings import Finding
from ds_gate.sources.location import is_inside
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
    out: list[tuple[Path, str]] = []
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
        out.extend(_md_files(folder, kind, contain, base, findings, nested=kind == "ideas"))
    return out


def _md_files(folder: Path, kind: str, contain: Path, base: Path | None, findings: list[Finding],
              nested: bool) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        findings.append(unreadable_card(display_path(folder, base), exc))
        return out
    for entry in entries:
        path = Path(entry.path)
        if entry.name.endswith(".md"):
            if not _contained(path, contain, display_path(path, base), findings):
                continue
            try:
                if stat.S_ISREG(os.stat(path).st_mode):  # never a FIFO or device: reading would block
                    out.append((path, kind))
            except OSError as exc:
                findings.append(unreadable_card(display_path(path, base), exc))
        elif nested and entry.is_dir() and _contained(path, contain, display_path(path, base), findings):
            out.extend(_md_files(path, kind, contain, base, findings, nested=False))
    return out


def unreadable_card(display: str, exc: OSError) -> Finding:
    return unreadable(display, exc, CARD_UNREADABLE)
