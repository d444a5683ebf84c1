"""``quest.yaml``, ``.ds/runtime_state.json`` and the paper bundle manifest through symbolic links
inside the quest, as the hooks read them from git.

DeepScientist reads ``<quest>/quest.yaml``, ``<quest>/.ds/runtime_state.json`` and
``<workspace>/paper/...`` following links, but in
git a link is a blob holding its target's path: a hook reading ``:quest.yaml`` would read the
path, and a commit completing the file the link names would not stage ``quest.yaml`` at all.
So a link (and a linked folder on the way) to a file of ``FOLLOWED`` is followed through git's
own entries, in the index or at a commit, while it stays inside the worktree; what it leads out
to is never read. Asked only when a link may be on the way, so an ordinary commit pays a few
``lstat`` calls.
"""

from __future__ import annotations

import os
import posixpath

from ds_gate.kernel.catfile import cat_file
from ds_gate.kernel.git import GitError, git, split_z
from ds_gate.kernel.layout import MANIFEST, QUEST_YAML, RUNTIME_STATE

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ds_gate.kernel.fs import TooLarge

LINK, TREE = "120000", "040000"
# the files whose change finalizes, wherever a link inside makes them lead (a callers adds the
# manifest of each workspace root research_state.json names inside the workspace: sources.named_roots)
FOLLOWED = (QUEST_YAML, MANIFEST, RUNTIME_STATE)
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


def resolve(
    entry: Callable[[str], tuple[str, str] | None],
    read: Callable[[str], bytes | None],
    path: str = QUEST_YAML,
    links: list[str] | None = None,
) -> str | None:
    """The regular file ``path`` leads to through links inside the worktree, or None (absent,
    out of the worktree, too many links, a gitlink). ``entry(p)``: git's (mode, id) at ``p``;
    ``links`` collects the path of each link on the way."""
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
        if links is not None:
            links.append(prefix)
        text = read(oid)
        target = link_target(prefix, text) if hops <= MAX_HOPS and text is not None else None
        if target is None:
            return None
        parts, i = target.split("/") + parts[i + 1 :], 0
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


def may_be_link(cwd: str, raw: bytes | TooLarge | None = None, path: str = QUEST_YAML) -> bool:
    """Whether ``path`` (``quest.yaml``, ``.ds/runtime_state.json``) may be a link: the work
    tree's is one, or its blob reads as a path (short, one line, no ``:`` — a YAML mapping or
    a JSON object with a member has one)."""
    if os.path.islink(os.path.join(cwd, path)):
        return True
    return isinstance(raw, bytes) and 0 < len(raw) < 4096 and b"\n" not in raw.rstrip(b"\n") and b":" not in raw


def target(cwd: str, rev: str | None, path: str = QUEST_YAML, links: list[str] | None = None) -> str | None:
    """Where ``path`` leads, in the index (``rev`` None) or at ``rev``; None when it is
    absent or leads out of the worktree. ``links``: as ``resolve``'s."""
    return resolve(_entries(cwd, rev), _reader(cwd), path, links)


def may_hold(cwd: str, rev: str | None, path: str) -> bool:
    """Whether ``path`` holds a file DeepScientist may read: it leads to one inside the worktree,
    or a link on the way leads where ds-gate does not follow (out of the quest, or nowhere)."""
    links: list[str] = []
    return target(cwd, rev, path, links) is not None or bool(links)


def changes_through_links(cwd: str, rev: str | None, path: str, names: list[str]) -> bool:
    """Whether ``names`` (staged or pushed paths) change what ``path`` leads to through a link:
    the file it leads to, or a link on the way (made or retargeted, wherever it now leads: out
    of the quest, which is never read, counts too), is among them."""
    links: list[str] = []
    leads = target(cwd, rev, path, links)
    return (leads is not None and bool(links) and leads in names) or any(link in names for link in links)


def named_elsewhere(path: str, names: list[str]) -> bool:
    """A staged or pushed file of ``path``'s name at another place: a link may lead there."""
    base = path.rpartition("/")[2]
    return any(name != path and name.rpartition("/")[2] == base for name in names)


def _linked_on_the_way(cwd: str, path: str) -> bool:
    """The work tree has a link at ``path`` or at a folder on the way to it."""
    parts = path.split("/")
    return any(os.path.islink(os.path.join(cwd, *parts[: i + 1])) for i in range(len(parts)))


def staged_names(cwd: str, names: list[str], also: tuple[str, ...] = ()) -> list[str]:
    """``names`` (a commit's staged paths), with each of ``FOLLOWED`` (and of ``also``) added
    when a link leads it to a file the commit stages: that commit changes what DeepScientist
    reads there."""
    out = list(names)
    for path in (*FOLLOWED, *also) if names else ():
        if path in out or not (
            _linked_on_the_way(cwd, path)
            or named_elsewhere(path, names)
            or (path in (QUEST_YAML, RUNTIME_STATE) and may_be_link(cwd, path=path))
        ):
            continue
        if changes_through_links(cwd, None, path, names):
            out.append(path)
    return out


def followed(
    cwd: str, blobs: Mapping[str, bytes | TooLarge | None], keys: Mapping[str, str | None], path: str = QUEST_YAML
) -> dict[str, bytes | TooLarge | None]:
    """``keys``: the blob key of ``path`` (``quest.yaml``, ``.ds/runtime_state.json``) at each
    rev (``":quest.yaml"`` → None for the index, ``"HEAD:quest.yaml"`` → ``"HEAD"``). The file
    each one leads to, for those that are links (or lie behind a linked folder); a link that
    leads nowhere inside reads as absent."""
    out: dict[str, bytes | TooLarge | None] = {}
    for key, rev in keys.items():
        raw = blobs.get(key)
        if raw is not None and not may_be_link(cwd, raw, path):
            continue  # a file there (absent: a linked folder on the way may hide it)
        links: list[str] = []
        leads = resolve(_entries(cwd, rev), _reader(cwd), path, links)
        if not links:
            continue
        oid = _entries(cwd, rev)(leads) if leads is not None else None
        out[key] = cat_file(cwd, [oid[1]], staged=True).get(oid[1]) if oid is not None else None
    return out


def on_the_way(paths: tuple[str, ...]) -> list[str]:
    """Every path on the way to each of ``paths``, the paths themselves included."""
    return sorted({"/".join(p.split("/")[: i + 1]) for p in paths for i in range(p.count("/") + 1)})


ON_THE_WAY = on_the_way(FOLLOWED)


def links_at(cwd: str, rev: str, also: tuple[str, ...] = ()) -> bool:
    """Whether a link at ``rev`` lies on the way to a file of ``FOLLOWED`` (or of ``also``): one
    ``ls-tree``, no blob read."""
    way = on_the_way((*FOLLOWED, *also)) if also else ON_THE_WAY
    try:
        out = git(["ls-tree", "-z", "--full-tree", rev, "--", *(f":(top,literal){p}" for p in way)], cwd)
    except GitError:
        return True  # every doubt: the caller reads further
    return any(item.split(" ", 1)[0] == LINK for item in split_z(out))


def pushed_names(
    root: str,
    tip: str,
    names: list[str],
    blobs: dict[str, bytes | TooLarge | None],
    linked: bool | None = None,
    also: tuple[str, ...] = (),
) -> list[str]:
    """The pre-push gate's ``names`` (the paths the pushed commits touch) and ``blobs``
    (``<tip>:<path>``, updated in place): when ``quest.yaml`` or ``.ds/runtime_state.json`` at
    ``tip`` is a link, its blob becomes the file it leads to; a push touching the file a link of
    ``FOLLOWED`` (or of ``also``) leads to touches that path. ``linked``: ``links_at(root, tip)``,
    when the caller has it (and no ``also`` is asked)."""
    out = list(names)
    paths = (*FOLLOWED, *also)
    if any(named_elsewhere(path, names) for path in paths) or (
        links_at(root, tip, also) if linked is None or also else linked
    ):
        out += [path for path in paths if path not in out and changes_through_links(root, tip, path, names)]
    for path in (QUEST_YAML, RUNTIME_STATE):  # read as DeepScientist reads them: what a link leads to
        key = f"{tip}:{path}"
        raw = blobs.get(key)
        if path in out and (raw is None or may_be_link(root, raw, path)):
            blobs.update(followed(root, blobs, {key: tip}, path))
    return out
