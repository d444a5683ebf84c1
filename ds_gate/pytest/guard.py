"""Keep pytest from importing the gated quest's code: refuse a session that would.

A quest is written by an agent, and any ``conftest.py`` or test file pytest imports from it could
turn a failing check into a pass (or run anything with CI's secrets). So a session whose rootdir,
config file, current folder or a collected path lies inside a gated quest (or holds one) is
refused with exit 2 and the command to run instead. ``plugin`` asks here twice: in
``pytest_load_initial_conftests`` (a refusal switches conftests off before the first loads) and in
``pytest_configure`` with the final args (where ``pytest.exit`` prints no traceback). What pytest
does before any plugin runs cannot be stopped here: docs/pytest.md runs from an empty folder.
Imports nothing of ds-gate's beyond the kernel, so ``units`` shares how a home expands into quests.
"""

from __future__ import annotations

import glob
import os
import shlex
from collections.abc import Iterable
from pathlib import Path

import pytest

from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.layout import (
    is_home,  # the one test closure shares: a git work tree is never a home
)


def quest_folders(quests: Path) -> list[Path]:
    """The home's quest folders; a home the user cannot list is read as one quest path,
    whose evaluation then says what it cannot read."""
    try:
        return sorted(Path(e.path) for e in os.scandir(quests) if e.is_dir())
    except OSError:
        return [quests]


def _real(path: Path | str, base: Path) -> Path:
    return Path(os.path.realpath(base / Path(path).expanduser()))


def _quest_root(path: Path) -> Path | None:
    """The quest a path lies in, by its layout (``<root>/.ds/worktrees/<slug>``, ``quest.yaml``)."""
    parts = path.parts
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == ".ds" and parts[i + 1] == "worktrees":
            return Path(*parts[:i])
    return next((p for p in (path, *path.parents) if (p / "quest.yaml").is_file()), None)


def protected(paths: Iterable[Path | str], base: Path) -> list[tuple[Path, str]]:
    """Every folder the gate reads, named, the deepest first (a message names the quest
    rather than its home): each path given, the quest it lies in, and a home's quests
    (followed where a link leads, as the gate follows it)."""
    found: dict[Path, str] = {}
    for given in paths:
        path = _real(given, base)
        if is_home(path):
            found.setdefault(path, "the gated home")
            for quest in quest_folders(path / "quests"):
                found.setdefault(_real(quest, base), "the gated quest")
        else:
            found.setdefault(path, "the gated quest")
            if (root := _quest_root(path)) is not None:
                found.setdefault(root, "the gated quest")
    return sorted(found.items(), key=lambda item: -len(item[0].parts))


def collected(args: Iterable[str], base: Path, pyargs: bool) -> list[Path]:
    """The paths behind pytest's collection args: a node id's path part; under ``--pyargs``
    an arg that is no existing path (a module name) names no folder and is left out."""
    out = []
    for arg in args:
        path = arg.split("::", 1)[0]
        if path and (not pyargs or os.path.exists(base / path)):
            out.append(_real(path, base))
    return out


def _advice(paths: Iterable[Path | str], base: Path) -> str:
    given = " ".join(f"--ds-gate={shlex.quote(str(_real(p, base)))}" for p in paths)
    return (
        "Run pytest from an empty folder outside the quest, with no conftest and its rootdir there: "
        f'cd "$(mktemp -d)" && pytest -p no:cacheprovider --noconftest --rootdir=. {given}'
    )


def refusal(
    gated: Iterable[Path | str], *, base: Path, rootdir: Path, inifile: Path | None, args: Iterable[str], pyargs: bool
) -> str | None:
    """Why the session must not run (one paragraph: what lies where, and what to run
    instead), or None when it imports nothing from a gated quest. ``base``: the folder
    pytest was started in."""
    gated = list(gated)
    quests = protected(gated, base)
    seen: list[tuple[str, Path, bool]] = [
        ("pytest's rootdir", _real(rootdir, base), False),
        ("the current folder", _real(base, base), False),
    ]
    if inifile is not None:
        seen.append(("pytest's config file", _real(inifile, base), False))
    seen.extend(("the collected path", path, True) for path in collected(args, base, pyargs))
    for what, path, holds in seen:
        for quest, name in quests:
            if is_inside(quest, path) or (holds and is_inside(path, quest)):
                where = "lies inside" if is_inside(quest, path) else "holds"
                return (
                    f"ds-gate: refusing to run: {what} {path} {where} {name} {quest}, so pytest would "
                    "import the quest's conftest.py, config or test files, and they could change the verdict. "
                    + _advice(gated, base)
                )
    return None


FLAG = "--ds-gate"


def spaced(args: list[str]) -> str | None:
    """Why ``--ds-gate PATH`` (a separate argument) is refused, with the same command spelt
    ``--ds-gate=PATH``; None when every path is joined by ``=``. pytest picks its rootdir and its
    config file before any plugin's options are known, so a separate PATH is taken for a path to
    collect: the rootdir moves (node ids read ``../quest-001``) and the config file is looked for
    from the quest upward instead of the current folder (the lab's own ``pytest.ini`` is missed,
    a quest's may be read). No plugin can undo that choice, so the session is not run."""
    if FLAG not in args[:-1]:
        return None
    fixed: list[str] = []
    words = iter(args)
    for word in words:
        fixed.append(f"{FLAG}={next(words)}" if word == FLAG else word)
    return (
        f"ds-gate: refusing to run: {FLAG} PATH was given as two arguments, so pytest took PATH into account "
        "when it chose its rootdir and config file (before ds-gate's options were known): node ids and "
        f"settings would differ from {FLAG}=PATH's. Run: pytest {shlex.join(fixed)}"
    )


def early_args(config: pytest.Config) -> list[str]:
    """The args pytest is about to load the initial conftests for (``Config._decide_args``'s
    rule, read before ``config.args`` exists): the positional args, else ``testpaths`` when
    started in the rootdir, else the current folder. Listing more is safe: it can only refuse."""
    ns = config.known_args_namespace
    if ns.file_or_dir:
        return list(ns.file_or_dir)
    base = config.invocation_params.dir
    if base == config.rootpath:
        testpaths = list(config.getini("testpaths"))
        matched = testpaths if ns.pyargs else [m for p in testpaths for m in sorted(glob.iglob(p, recursive=True))]
        if matched:
            return matched
    return [str(base)]
