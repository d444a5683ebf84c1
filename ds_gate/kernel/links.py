"""``quest.yaml`` through symbolic links inside the quest, as the hooks read it from git.

DeepScientist reads ``<quest>/quest.yaml`` with ``Path.read_text``, which follows a link; the
folder reader does too (``sources.quest_yaml``, inside the quest only). In git a link is a
blob holding its target's path, so a hook reading ``:quest.yaml`` read the path, not the
status, and a commit that completes the file the link names did not stage ``quest.yaml`` at
all. Here a link (and a linked folder on the way) is followed through git's own entries, in
the index or at a commit, as long as it stays inside the worktree: what it leads out to is
never read, and such a ``quest.yaml`` is the full path's to report.

Only asked when ``quest.yaml`` may be a link (the work tree's is, or its blob reads as a
path), so an ordinary commit pays nothing.
"""

from __future__ import annotations

import os
import posixpath

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError, git, split_z
from ds_gate.kernel.layout import QUEST_YAML

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ds_gate.kernel.fs import TooLarge

LINK, TREE = "120000", "040000"
MAX_HOPS = 16  # the kernel's own bound on links in one path is 40; a real quest has none


def link_target(link: str, text: bytes) -> str | None:
    """The worktree-relative path a link at ``link`` holding ``text`` names, or None when it
    leads out of the worktree (absolute, or up past its top) or is not a path."""
    try:
        target = text.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not target or "\0" in target or target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    if joined == ".." or joined.startswith("../") or joined in (".", ""):
        return None
    return joined


def resolve(entry: Callable[[str], tuple[str, str] | None], read: Callable[[str], bytes | None],
            path: str = QUEST_YAML) -> str | None:
    """The regular file ``path`` leads to through links inside the worktree, or None (absent,
    out of the worktree, too many links, a gitlink). ``entry(p)``: git's (mode, id) at ``p``."""
    parts, i, hops = path.split("/"), 0, 0
    while i < len(parts):
        prefix = "/".join(parts[: i + 1])
        found = entry(prefix)
        last = i == len(parts) - 1
        if found is None or found[0] == TREE:
            if last:
                return None
            i += 1  # a folder (the index lists no entry of its own; a tree lists it as a tree)
            continue
        mode, oid = found
        if mode != LINK:
            return prefix if last and mode.startswith("100") else None
        hops += 1
        text = read(oid)
        target = link_target(prefix, text) if hops <= MAX_HOPS and text is not None else None
        if target is None:
            return None
        parts, i = target.split("/") + parts[i + 1:], 0
    return None


def _entries(cwd: str, rev: str | None) -> Callable[[str], tuple[str, str] | None]:
    """git's entry at a path, in the index (``rev`` None, the hook's own) or at ``rev``."""

    def entry(path: str) -> tuple[str, str] | None:
        spec = f":(top,literal){path}"
        try:
            if rev is None:
                out = git(["ls-files", "-s", "-z", "--", spec], cwd, staged=True)
            else:
                out = git(["ls-tree", "-z", "--full-tree", rev, "--", spec], cwd)
        except GitError:
            return None
        for item in split_z(out):
            meta, _, name = item.partition("\t")
            fields = meta.split(" ")  # index: <mode> <id> <stage>; tree: <mode> <type> <id>
            if name == path and len(fields) == 3:
                return fields[0], fields[1] if rev is None else fields[2]
        return None

    return entry


def _reader(cwd: str) -> Callable[[str], bytes | None]:
    def read(oid: str) -> bytes | None:
        raw = cat_file(cwd, [oid], staged=True).get(oid)
        return raw if isinstance(raw, bytes) else None

    return read


def may_be_link(cwd: str, raw: bytes | TooLarge | None = None) -> bool:
    """Whether ``quest.yaml`` may be a link: the work tree's is one, or its blob reads as a
    path (short, one line, no ``:`` — a YAML mapping has one)."""
    if os.path.islink(os.path.join(cwd, QUEST_YAML)):
        return True
    return isinstance(raw, bytes) and 0 < len(raw) < 4096 and b"\n" not in raw.rstrip(b"\n") and b":" not in raw


def target(cwd: str, rev: str | None) -> str | None:
    """Where ``quest.yaml`` leads, in the index (``rev`` None) or at ``rev``; None when it is
    absent or leads out of the worktree."""
    return resolve(_entries(cwd, rev), _reader(cwd))


def staged_names(cwd: str, names: list[str]) -> list[str]:
    """``names`` (a commit's staged paths), with ``quest.yaml`` added when it is a link whose
    file the commit stages: that commit changes what DeepScientist reads as ``quest.yaml``."""
    if QUEST_YAML in names or not names or not may_be_link(cwd):
        return names
    followed = target(cwd, None)
    return [*names, QUEST_YAML] if followed is not None and followed != QUEST_YAML and followed in names else names


def followed(cwd: str, blobs: Mapping[str, bytes | TooLarge | None], keys: Mapping[str, str | None]) -> dict[str, bytes | TooLarge | None]:
    """``keys``: the blob key of ``quest.yaml`` at each rev (``":quest.yaml"`` → None for the
    index, ``"HEAD:quest.yaml"`` → ``"HEAD"``). The file each one leads to, for those that are
    links; a link that leads nowhere inside reads as absent."""
    out: dict[str, bytes | TooLarge | None] = {}
    for key, rev in keys.items():
        raw = blobs.get(key)
        if not may_be_link(cwd, raw):
            continue
        entry = _entries(cwd, rev)(QUEST_YAML)
        if entry is None or entry[0] != LINK:
            continue
        path = resolve(_entries(cwd, rev), _reader(cwd))
        oid = _entries(cwd, rev)(path) if path is not None else None
        out[key] = cat_file(cwd, [oid[1]], staged=True).get(oid[1]) if oid is not None else None
    return out


def is_link(cwd: str, rev: str, path: str = QUEST_YAML) -> bool:
    """Whether ``path`` at ``rev`` is a symbolic link (one ``ls-tree``, no blob read)."""
    entry = _entries(cwd, rev)(path)
    return entry is not None and entry[0] == LINK


def pushed_names(root: str, tip: str, names: list[str], blobs: dict[str, bytes | TooLarge | None]) -> list[str]:
    """The pre-push gate's ``names`` (the paths the pushed commits touch) and ``blobs``
    (``<tip>:<path>``, updated in place): when ``quest.yaml`` at ``tip`` is a link, its blob
    becomes the file it leads to, and a push touching that file touches ``quest.yaml``."""
    key = f"{tip}:{QUEST_YAML}"
    if not may_be_link(root, blobs.get(key)):
        return names
    entry = _entries(root, tip)(QUEST_YAML)
    if entry is None or entry[0] != LINK:
        return names
    path = resolve(_entries(root, tip), _reader(root))
    blobs.update(followed(root, blobs, {key: tip}))
    return [*names, QUEST_YAML] if path is not None and path in names and QUEST_YAML not in names else names
