"""Where a quest is: its root, whether it is a git repository, and the worktrees git registers.

Any path inside a quest (its root, a worktree, a subfolder) leads to the root through git: ``git
worktree list`` names the main worktree first, derived from the common dir. When git cannot answer
(a quest folder that was moved breaks its worktrees' ``.git`` links; git missing; a quest copied
without ``.git``) the folder layout still can: ``<root>/.ds/worktrees/<slug>`` and ``<root>/quest.yaml``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.git import GIT_MISSING, GitError, git
from ds_gate.kernel.given_path import given_path
from ds_gate.kernel.layout import QUEST_YAML
from ds_gate.kernel.places import note_given
from ds_gate.model.findings import Finding
from ds_gate.sources.fixes import git_refusal_fix, not_a_quest
from ds_gate.sources.problems import (
    QUEST_NOT_GIT,
)
from ds_gate.sources.registered import Listed, Registration, registrations


def linked_outside(root: Path, path: Path) -> str | None:
    """Where ``path`` leads when it, or a folder on the way to it (``.ds`` for
    ``.ds/research_state.json``), is a symbolic link out of ``root`` (never followed), else None."""
    if not path.is_symlink() and is_inside(root, Path(os.path.realpath(path.parent))):
        return None
    real = os.path.realpath(path)
    return None if is_inside(root, Path(real)) else real


@dataclass(slots=True)
class Location:
    root: Path
    top: Path  # the workspace the given path lies in
    is_git: bool
    registered: list[Registration] = field(default_factory=list)  # the linked worktrees git lists
    findings: list[Finding] = field(default_factory=list)
    checked_out: set[str] = field(default_factory=set)  # branches a worktree's own folder (the root's included) has out
    root_branch: str | None = None  # the branch the quest root has checked out
    git_error: str | None = None  # git's complaint when it cannot read the quest (then ``is_git`` is False)

    @property
    def detached_tips(self) -> list[tuple[str, str]]:
        """(name, commit) of each detached HEAD whose worktree has no folder of its own: read from git objects."""
        return [tip for r in self.registered if (tip := r.detached_tip) is not None]

    @property
    def git_refused(self) -> bool:
        """git is missing, or refuses a repository that is there: not "no repository" (a quest copied
        without ``.git``), so the fix is ``git_refusal_fix``'s, as in closure's stop."""
        return self.git_error is not None and (self.git_error == GIT_MISSING or os.path.lexists(self.root / ".git"))


def worktree_list(path: Path) -> list[Listed]:
    """Parse ``git worktree list --porcelain -z``, main first. NUL-terminated, so a worktree
    path holding a newline is still one path."""
    out = git(["worktree", "list", "--porcelain", "-z"], path)
    entries: list[Listed] = []
    for block in out.split(b"\0\0"):
        fields: dict[str, str] = {}
        for line in block.split(b"\0"):
            key, _, value = line.decode("utf-8", "surrogateescape").partition(" ")
            fields.setdefault(key, value)
        if "worktree" in fields:
            branch = fields.get("branch")
            entries.append(
                Listed(
                    Path(fields["worktree"]),
                    branch.removeprefix("refs/heads/") if branch else None,
                    fields.get("HEAD", ""),
                    prunable="prunable" in fields,
                    locked="locked" in fields,
                    bare="bare" in fields,
                )
            )
    return entries


def _from_git(loc: Location, entries: list[Listed]) -> Location:
    """``loc`` with what ``git worktree list`` says. ``checked_out``: the branches a worktree's
    own folder has out; a registration whose folder is gone or not its own (a link, a file, a
    ``.git`` leading elsewhere: ``sources.registered``) leaves its HEAD in git only, read from
    git objects as any other tip."""
    loc.is_git = True
    loc.registered = registrations(loc.root, entries)
    loc.checked_out = {r.branch for r in loc.registered if r.branch and r.unlike is None}
    if entries and entries[0].branch:
        loc.checked_out.add(entries[0].branch)
    loc.root_branch = entries[0].branch if entries else None
    return loc


def _git_pointer(start: Path) -> str:
    """The file that sent git elsewhere: a ``.git`` file (``gitdir:``) or ``.git/commondir``."""
    for folder in (start, *start.parents):
        dotgit = folder / ".git"
        if dotgit.is_file() or dotgit.is_symlink():
            return str(dotgit)
        if dotgit.is_dir():
            return str(dotgit / "commondir") if (dotgit / "commondir").exists() else str(dotgit)
    return "a git pointer above it"


def _folder_root(path: Path) -> Path | None:
    parts = path.parts
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == ".ds" and parts[i + 1] == "worktrees":
            return Path(*parts[:i])
    for candidate in (path, *path.parents):
        if (candidate / "quest.yaml").is_file():
            return candidate
    return None


def locate(path: Path | str | Location, *, any_repository: bool = False) -> Location:
    """The quest ``path`` lies in (a ``Location`` is its own answer: located once, handed on). A git
    repository without ``quest.yaml`` is ``NotAQuest``, unless ``any_repository`` (``install``, ``check``)."""
    if isinstance(path, Location):
        return path
    start = given_path(path, "quest")
    note_given(path, start)
    if start.is_file():
        start = start.parent
    try:
        entries = worktree_list(start)
    except GitError as exc:
        return _locate_by_folders(start, exc, any_repository)
    if not entries or entries[0].bare:
        raise QuestError(f"{start}: a bare git repository is not a quest (no working tree)")
    root = entries[0].path.resolve()
    if not is_inside(root, start):
        raise QuestError(
            f"{start}: git says this folder's repository is {root}, which is neither it nor a folder above it; "
            f"{_git_pointer(start)} points there. ds-gate reads only the quest it is given",
            "remove the pointer (a quest is its own git repository) or pass the quest root itself",
            ": ",
        )
    loc = _from_git(Location(root=root, top=root, is_git=True), entries)
    # the workspace holding `start`: the deepest worktree that contains it
    best = root
    for wt in [root, *(r.path for r in loc.registered if r.unlike is None)]:
        if fs.is_dir(wt):
            resolved = wt.resolve()
            if is_inside(resolved, start) and len(resolved.parts) > len(best.parts):
                best = resolved
    loc.top = best
    if not os.path.lexists(root / QUEST_YAML):
        nested = _folder_root(start)
        if nested is not None and nested != root and is_inside(root, nested):
            raise QuestError(
                f"{start}: the quest at {nested} is inside the git repository {root} but is not its "
                "root; ds-gate expects each quest to be its own git repository (as DeepScientist creates it)"
            )
        if not any_repository:  # a hook in a repository that is no quest gates nothing
            raise not_a_quest(
                root,
                f"{root}: not a quest: this git repository has no quest.yaml at its root "
                "(DeepScientist writes one in every quest)",
                in_git=True,
            )
    return loc


def _locate_by_folders(start: Path, error: GitError, any_repository: bool) -> Location:
    root = _folder_root(start)
    if root is None or not (any_repository or os.path.lexists(root / QUEST_YAML)):
        raise not_a_quest(
            root or start,
            f"{start} is not inside a quest: git says '{error}' and no quest.yaml was found above it",
            in_git=False,
        )
    loc = Location(root=root.resolve(), top=start, is_git=False)
    try:
        _from_git(loc, worktree_list(loc.root))
    except GitError as root_error:
        loc.git_error = str(root_error)
        repository = os.path.lexists(loc.root / ".git")  # a repository git refuses, not a quest copied without git
        loc.findings.append(
            QUEST_NOT_GIT.at(
                None,
                f"git cannot read the quest ({root_error}); workspaces were found from folders only",
                hint=git_refusal_fix(loc.root, str(root_error)) + " (closure stops until then)"
                if repository
                else "registered worktrees outside .ds/worktrees/ are not visible; run ds-gate where git works",
            )
        )
    wt_parts = start.relative_to(loc.root).parts if is_inside(loc.root, start) else ()
    if len(wt_parts) >= 3 and wt_parts[:2] == (".ds", "worktrees"):
        loc.top = loc.root.joinpath(*wt_parts[:3])
    else:
        loc.top = loc.root
    return loc
