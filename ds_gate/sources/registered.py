"""The worktrees git registers, and whether each one's folder is still that worktree.

git lists a worktree from its registration, ``.git/worktrees/<id>``: ``gitdir`` names the
folder's ``.git`` file, ``HEAD`` the commit (a branch, or a detached one). The folder can stop
being that worktree while git still lists it: removed without ``git worktree prune``, replaced
by a symbolic link (git follows it to another workspace's ``.git``, so the registration is not
even prunable), by a file, or by a folder whose ``.git`` leads to another registration or none.
Then the runs committed there live only at the commit the registration's HEAD names, which no
folder shows: ``sources.select`` reads them from git objects (a branch as a branch tip, a
detached HEAD as ``worktrees/<id>/HEAD``), never through the link; where git cannot read that
HEAD, closure stops (``workspace.head-unreadable``, ``engine.unseen``).
"""

from __future__ import annotations

import os
import shlex
import stat
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from ds_gate.kernel import fs
from ds_gate.kernel.catfile import blob_sizes
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.git import GitError
from ds_gate.model.findings import Finding
from ds_gate.sources.problems import WORKSPACE_HEAD_UNREADABLE, WORKSPACE_MISSING

GONE = "is gone"


@dataclass(frozen=True, slots=True)
class Listed:
    """One worktree as ``git worktree list --porcelain`` lists it."""

    path: Path
    branch: str | None  # without refs/heads/; None: a detached HEAD, or one git cannot read
    head: str  # the commit its HEAD names as git printed it (all zeros: git cannot read it)
    prunable: bool = False
    locked: bool = False
    bare: bool = False


@dataclass(frozen=True, slots=True)
class Registration:
    """A linked worktree git registers: where, its branch and HEAD, and why its folder is not
    that worktree (``unlike``; None when it is)."""

    path: Path
    branch: str | None
    head: str | None  # the commit its HEAD names; None: git cannot read one
    prunable: bool = False
    locked: bool = False
    unlike: str | None = None  # "is gone", "is a symbolic link to …", …
    ref: str = ""  # the name its HEAD is read under: refs/heads/<branch>, worktrees/<id>/HEAD, or the commit

    @property
    def detached_tip(self) -> tuple[str, str] | None:
        """(name, commit) to read from git objects: a detached HEAD no folder of its own shows
        (a branch is read as a branch tip, ``gitrefs.unchecked_refs``)."""
        if self.unlike is None or self.branch is not None or self.head is None:
            return None
        return self.ref, self.head


def registrations(root: Path, listed: list[Listed]) -> list[Registration]:
    """Each linked worktree of ``listed`` (the main one, first, is the quest root), with why its
    folder is not that worktree; for those, the HEAD checked to name a commit the quest holds."""
    admin = root / ".git" / "worktrees"  # the common dir: git derives the root from it (``locate``)
    twice = Counter(entry.path for entry in listed[1:])
    kinds: dict[str, str | None] = {}
    out: list[Registration] = []
    for entry in listed[1:]:
        unlike = "is registered twice" if twice[entry.path] > 1 else _unlike(root, str(admin), entry.path, kinds)
        if unlike is None and entry.prunable:
            unlike = "is prunable (git says its .git no longer leads here)"
        head = entry.head if entry.head.strip("0") else None
        ref = f"refs/heads/{entry.branch}" if entry.branch else (head or "")
        out.append(Registration(entry.path, entry.branch, head, entry.prunable, entry.locked, unlike, ref))
    if any(r.unlike for r in out):
        out = _checked_heads(root, admin, out)
    return out


def stray_finding(root: Path, reg: Registration) -> Finding:
    """What a registration whose folder is not that worktree means: where its HEAD is read
    from (``workspace.missing``), or that git cannot read it (``workspace.head-unreadable``)."""
    shown = reg.path.relative_to(root).as_posix() if is_inside(root, reg.path) else str(reg.path)
    prune = forget(root, reg)
    if reg.head is None:
        on = f" (branch {reg.branch})" if reg.branch else ""
        return WORKSPACE_HEAD_UNREADABLE.at(
            None,
            f"the registered worktree {shown} {reg.unlike}, and git cannot read the commit its HEAD names{on}: "
            "the runs committed there cannot be seen",
            hint=f"{prune} (or restore the worktree's folder)",
        )
    if reg.branch is not None:
        read, hint = f"its branch {reg.branch} is read from git objects at its tip", f"`{prune}` forgets it"
    else:
        read = f"its detached HEAD is read from git objects at {reg.ref} (commit {reg.head[:12]})"
        hint = (
            f"`git -C {shlex.quote(str(root))} branch <name> {reg.head}` keeps that commit, then `{prune}` "
            "forgets the worktree (a prune alone would leave its commit on no branch)"
        )
    never = " (a link is never followed)" if "symbolic link" in (reg.unlike or "") else ""
    return WORKSPACE_MISSING.at(
        None,
        f"the registered worktree {shown} {reg.unlike}: not read as that worktree{never}; {read}",
        hint=f"{hint} (ds-gate never changes the quest itself)",
    )


def forget(root: Path, reg: Registration) -> str:
    """The command that makes git forget ``reg``: a prune, after what stands in its folder's
    place is put aside (git prunes no registration whose ``.git`` it still finds) or a lock lifted."""
    git_c = f"git -C {shlex.quote(str(root))} worktree"
    there = shlex.quote(str(reg.path))
    if reg.unlike == GONE:
        return f"{git_c} unlock {there} && {git_c} prune" if reg.locked else f"{git_c} prune"
    if _kind(str(reg.path)) in ("link", "a file"):
        return f"rm {there} && {git_c} prune"
    return f"mv {there} {shlex.quote(str(reg.path) + '.moved')} && {git_c} prune"


def _checked_heads(root: Path, admin: Path, found: list[Registration]) -> list[Registration]:
    """The registrations whose folder is not theirs, each HEAD asked of git (one ``cat-file``:
    a commit the quest lacks is a HEAD git cannot read) and each detached one named
    ``worktrees/<id>/HEAD``, as git itself spells it."""
    stray = [r for r in found if r.unlike and r.head]
    try:
        held = blob_sizes(root, [f"{r.head}^{{commit}}" for r in stray])
    except GitError:
        held = {}
    ids = _ids(admin) if any(r.branch is None for r in stray) else {}
    out = []
    for r in found:
        if r.unlike and r.head:
            if held.get(f"{r.head}^{{commit}}") is None:
                r = replace(r, head=None)
            elif r.branch is None and ids.get(r.path) is not None:
                r = replace(r, ref=f"worktrees/{ids[r.path]}/HEAD")
        out.append(r)
    return out


def _ids(admin: Path) -> dict[Path, str | None]:
    """Each registered folder -> the id of its registration (None where two name it), read from
    each registration's ``gitdir`` as git reads it."""
    ids: dict[Path, str | None] = {}
    try:
        entries = sorted(os.scandir(admin), key=lambda e: e.name)
    except OSError:
        return ids
    for entry in entries:
        named = _gitdir(os.path.join(entry.path, "gitdir"), entry.path, prefixed=False)
        if named is not None and entry.is_dir(follow_symlinks=False):
            folder = Path(os.path.dirname(named[0]))
            ids[folder] = None if folder in ids else entry.name
    return ids


def _gitdir(path: str, base: str, *, prefixed: bool) -> tuple[str, os.stat_result] | None:
    """The path a ``gitdir`` file names (``gitdir: X`` in a worktree's ``.git`` when
    ``prefixed``, ``X`` in a registration's ``gitdir``), a relative one from ``base``, and the
    file's stat; None when it is no such file (a link is not followed)."""
    try:
        data, st = fs.read_with_stat(path, follow=False, limit=1 << 16)
    except OSError:
        return None
    text = data.decode("utf-8", "surrogateescape").strip()
    if prefixed:
        if not text.startswith("gitdir:"):
            return None
        text = text.removeprefix("gitdir:").strip()
    return (os.path.normpath(os.path.join(base, text)), st) if text else None


def _unlike(root: Path, admin: str, path: Path, kinds: dict[str, str | None]) -> str | None:
    """Why the folder at ``path`` is not the worktree registered there (never following a
    link), or None when it is: a real folder, reached through no link inside the quest, whose
    ``.git`` names a registration under ``admin`` whose ``gitdir`` names that ``.git`` again.
    ``kinds``: what each path on the way is, shared by the registrations (one ``lstat`` each)."""
    folder = str(path)
    steps = [folder]
    if is_inside(root, path):
        step = str(root)
        steps = []
        for part in path.relative_to(root).parts:
            step = os.path.join(step, part)
            steps.append(step)
    for step in steps:
        if step not in kinds:
            kinds[step] = _kind(step)
        kind = kinds[step]
        if kind == "link":
            return (
                f"is a symbolic link to {_target(step)}" if step == folder else f"lies behind the symbolic link {step}"
            )
        if kind is None:
            return GONE
        if kind != "folder":
            return f"is {kind}, not a folder" if step == folder else GONE
    dotgit = os.path.join(folder, ".git")
    named = _gitdir(dotgit, folder, prefixed=True)
    if named is None and _kind(dotgit) is None:
        return "has no .git (it is not a worktree)" if _enterable(folder) else None  # unenterable: said elsewhere
    if named is None:
        return "has a .git that is not a worktree's link file (a repository of its own, a link, or another file)"
    registration, mine = named
    held_by = os.path.dirname(registration)
    if held_by != admin and os.path.realpath(held_by) != os.path.realpath(admin):
        return f"has a .git leading to {registration}, not to a registration of this quest"
    own = os.path.join(admin, os.path.basename(registration))
    back = _gitdir(os.path.join(own, "gitdir"), own, prefixed=False)
    if back is None or not _same(back[0], mine):
        return f"has a .git leading to the registration {os.path.basename(registration)}, which names another folder"
    return None


def _kind(path: str) -> str | None:
    """What is at ``path``, unfollowed: "folder", "link", another kind's name, None when nothing."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "folder"
    return "a file" if stat.S_ISREG(mode) else "a special file"


def _target(link: str) -> str:
    try:
        return os.readlink(link)
    except OSError:
        return "?"


def _enterable(path: str) -> bool:
    try:
        os.scandir(path).close()
    except OSError:
        return False
    return True


def _same(path: str, st: os.stat_result) -> bool:
    """``path`` (unfollowed) is the file ``st`` was taken of."""
    try:
        other = os.lstat(path)
    except OSError:
        return False
    return (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)
