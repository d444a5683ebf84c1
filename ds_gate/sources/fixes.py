"""The commands that let ds-gate see what it could not: named in the findings and in the
refusals (exit 2) of ``closure``, finalization commits and the pre-push gate, so every
stop says how to end it."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.errors import NotAQuest
from ds_gate.kernel.fs import text_or_none
from ds_gate.kernel.layout import homes_below


def git_refusal_fix(root: Path, error: str) -> str:
    """The command that lets git read ``root`` again, from git's own complaint."""
    quoted = shlex.quote(os.fspath(root))
    if "dubious ownership" in error or "safe.directory" in error:
        return (
            f"`git config --global --add safe.directory {quoted}` (git refuses a repository another user owns), "
            "or run ds-gate as the quest's owner"
        )
    if "not installed" in error or "could not be started" in error:
        return "install git (or put it on PATH)"
    return f"make `git -C {quoted} worktree list` work (it fails with the error above)"


def outside_fix(root: Path, path: Path, origin: str) -> str:
    """How to bring a workspace that leads out of the quest back in (DeepScientist keeps
    every worktree under ``.ds/worktrees/``)."""
    target = shlex.quote(str(root / ".ds" / "worktrees" / path.name))
    if origin.endswith("_root"):  # a key of .ds/research_state.json (sources.named_roots)
        return (
            f"point {origin} in .ds/research_state.json at a worktree inside the quest "
            "(under .ds/worktrees/), or remove the key"
        )
    if origin == "registered worktree":
        relink = copied_worktree_fix(root, path)
        if relink is not None:
            return relink
        return (
            f"move it into the quest: `git -C {shlex.quote(str(root))} worktree move {shlex.quote(str(path))} {target}`"
        )
    link = first_link(root, path)
    return (
        f"replace the link {shlex.quote(str(link))} with the folder itself (move the worktree there: "
        f"`git worktree move <its path> {target}` after removing the link)"
    )


def copied_worktree_fix(root: Path, path: Path) -> str | None:
    """The fix for a copy of a quest (``cp -r``): the copy's ``.git/worktrees/<name>/gitdir`` still
    names the original's worktree ``path`` and the copied worktree's ``.git`` file the original's
    ``.git/worktrees/<name>``. ``git worktree move`` refuses ("validation failed"), and ``git
    worktree repair`` run in the copy rewrites the original's links to point at the copy (git's
    docs: it repairs "in both directions"). So the fix writes the copy's two link files and
    nothing else; None when ``.ds/worktrees/<its name>`` in the quest is not such a copy."""
    copied = root / ".ds" / "worktrees" / path.name
    pointer = text_or_none(copied / ".git") if fs.is_file(copied / ".git") else None
    if pointer is None or not pointer.startswith("gitdir: "):
        return None
    name = os.path.basename(pointer.removeprefix("gitdir: ").strip().rstrip("/"))
    admin = root / ".git" / "worktrees" / name
    back = text_or_none(admin / "gitdir") if name not in ("", ".", "..") and fs.is_dir(admin) else None
    if back is None or Path(back.strip()) != path / ".git":
        return None
    q = shlex.quote
    return (
        "this quest is a copy whose worktree still points at the original's: relink the copy's own "
        f"(`printf 'gitdir: %s\\n' {q(str(admin))} > {q(str(copied / '.git'))} && "
        f"printf '%s\\n' {q(str(copied / '.git'))} > {q(str(admin / 'gitdir'))}`; "
        "not git worktree repair, which run in the copy rewrites the original's links)"
    )


def first_link(root: Path, path: Path) -> Path:
    """The first symbolic link on the way from ``root`` down to ``path`` (``path`` if none)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return path
    step = root
    for part in parts:
        step = step / part
        if step.is_symlink():
            return step
    return path


def not_a_quest(root: Path, message: str, *, in_git: bool) -> NotAQuest:
    """The stop for a folder with no ``quest.yaml`` at its root, ``message`` followed by its fix:
    ``--all-quests`` when quests lie below it, else the quest's own folder (or, in git, its
    ``quest.yaml`` restored)."""
    homes = homes_below(root)
    if homes:
        fix = f"quests lie below it: `ds-gate closure --all-quests --home {shlex.quote(str(homes[0]))}` judges each of them"
    elif in_git:
        fix = (
            "pass the quest's own folder, or restore its quest.yaml (`git log --diff-filter=D -- quest.yaml` "
            "names the commit that removed it)"
        )
    else:
        fix = "pass a quest's own folder (DeepScientist writes quest.yaml at the root of every quest)"
    return NotAQuest(message, str(root), fix, "; ")
