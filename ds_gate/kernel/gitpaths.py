"""Files of a quest read from git by blob id, never by name.

A quest's paths may hold a newline or bytes that are not UTF-8, and ``cat-file``'s line
protocol takes one name a line: so paths travel NUL-separated (``-z``) out of git, and
only object ids go back in. Kept apart from ``kernel.git`` (the one door to git) because only
the commit and push hooks need it.
"""

from __future__ import annotations

from ds_gate.kernel.catfile import tree_files
from ds_gate.kernel.git import DIFF_SAFETY, git, split_z

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

    from ds_gate.kernel.fs import TooLarge


def staged_changes(cwd: Path | str) -> dict[str, tuple[str | None, str]]:
    """Each path (relative to the workspace top) added, copied, modified or retyped in the
    index, honouring the hook's ``GIT_INDEX_FILE``: (its blob id at ``HEAD`` or None, its
    staged blob id). The ids come with the names, so no staged path (it may hold a newline
    or bytes that are not UTF-8) is ever sent to cat-file as ``:<path>``."""
    out = git(
        ["diff", "--cached", *DIFF_SAFETY, "--raw", "--no-abbrev", "-z", "--no-renames", "--diff-filter=ACMRT"],
        cwd,
        staged=True,
    )
    fields = out.split(b"\0")
    changes: dict[str, tuple[str | None, str]] = {}
    # each change is two fields: ":<old mode> <new mode> <old> <new> <status>", then its path
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.decode("ascii", "replace").split(" ")
        if len(parts) == 5 and path:
            old = parts[2] if parts[0] != ":000000" and parts[2].strip("0") else None
            changes[path.decode("utf-8", "surrogateescape")] = (old, parts[3])
    return changes


def tree_entries(cwd: Path | str, rev: str, specs: Iterable[str] = ()) -> Iterator[tuple[str, str, str, str]]:
    """(mode, type, object id, path relative to the top) of every entry of ``rev``'s tree,
    recursively, below the pathspecs ``specs`` (all when none), the names NUL-separated (``-z``);
    GitError when git cannot list it. Plain tuples: the hooks' path loads no ``typing``."""
    for item in split_z(git(["ls-tree", "-r", "-z", "--full-tree", rev, "--", *specs], cwd)):
        meta, _, path = item.partition("\t")
        parts = meta.split(" ")
        if len(parts) == 3:
            yield parts[0], parts[1], parts[2], path


def path_entries(cwd: Path | str, rev: str, paths: Iterable[str]) -> dict[str, tuple[str, str, str]]:
    """(mode, type, object id) of each of ``paths`` (relative to the top) at ``rev``, as git's
    tree holds it (a link is its own entry, never followed); an absent path is left out.

    Names travel NUL-separated (``-z``) and the pathspecs are the paths' folders, literal and
    top-relative, so no quest path is parsed as a line, a pattern or an object name."""
    wanted = set(paths)
    if not wanted:
        return {}
    specs = sorted({f":(top,literal){path.rpartition('/')[0] or path}" for path in wanted})
    return {path: (mode, kind, oid) for mode, kind, oid, path in tree_entries(cwd, rev, specs) if path in wanted}


def read_paths(cwd: Path | str, rev: str, paths: Iterable[str]) -> dict[str, bytes | TooLarge | None]:
    """The bytes of each of ``paths`` at ``rev`` (None when absent, or when ``rev`` does not
    exist; a TooLarge over the size limit), whatever the path holds (``catfile.tree_files``)."""
    return tree_files(cwd, rev, paths)[0]
