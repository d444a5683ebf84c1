"""Reading git's objects: ``cat-file`` in batches, bounded by the file-size limit.

Every read of a blob or tree a quest's git holds goes through here, by object id (never a
quest path in cat-file's line protocol), through ``kernel.git``'s safe door.
"""

from __future__ import annotations

from ds_gate.kernel import fs
from ds_gate.kernel.git import GitError, blob_id, failure, git, run, split_z

TYPE_CHECKING = False  # the kernel's economy: neither typing nor pathlib on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable
    from pathlib import Path
    from typing import Any

    from ds_gate.kernel.fs import TooLarge


# An object git cannot read (corrupt, or absent from a partial clone that may not fetch)
# ends ``cat-file --batch`` early: the one it stopped on is taken as unreadable and the
# rest asked again. A partial clone's known-absent objects are never asked for (callers
# pass them as ``absent``), so retries stay rare; past this many, git itself is broken.
_MAX_RETRIES = 64


def _names(names: Iterable[str]) -> list[str]:
    """cat-file's line protocol: one object name a line. Only ids and ``<rev>:<fixed path>``
    are ever sent (quest paths are turned into blob ids first), so a newline is a caller's bug."""
    wanted = list(dict.fromkeys(names))
    if any("\n" in name for name in wanted):
        raise GitError("object names cannot contain newlines")
    return wanted


def _batches(
    cwd: Path | str,
    names: Iterable[str],
    mode: str,
    parse: Callable[[bytes, list[str], dict[str, Any]], int],
    staged: bool,
    absent: Collection[str],
) -> dict[str, Any]:
    wanted = _names(names)
    result: dict[str, Any] = {name: None for name in wanted if name in absent}
    todo = [name for name in wanted if name not in absent]
    for _ in range(_MAX_RETRIES):
        if not todo:
            return result
        args = ["cat-file", mode]
        proc = run(args, cwd, staged=staged, stdin="".join(f"{n}\n" for n in todo).encode("utf-8", "surrogateescape"))
        done = parse(proc.stdout, todo, result)
        if done == len(todo):
            return result
        if proc.returncode == 0:
            raise GitError(f"git cat-file ended early without an error, after {done} of {len(todo)} objects")
        result[todo[done]] = None  # the object git stopped on cannot be read
        todo = todo[done + 1 :]
    raise failure(proc, ["cat-file"])


def _parse_contents(out: bytes, names: list[str], result: dict[str, Any]) -> int:
    """Fill ``result`` from ``--batch`` output; how many names it answered in full."""
    pos = 0
    for done, name in enumerate(names):
        end = out.find(b"\n", pos)
        if end < 0:
            return done
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) < 3 or header[-1] in (b"missing", b"ambiguous"):
            result[name] = None
            continue
        size = int(header[2])
        if pos + size + 1 > len(out):
            return done  # the content was cut off: git stopped inside it
        content = out[pos : pos + size]
        pos += size + 1  # content is followed by a newline
        oid = header[0].decode("ascii", "replace")
        # git never re-hashes what it reads, and the agent writes .git/objects: a loose object or a
        # pack index entry swapped for another object's is read as unreadable, never as the content
        forged = blob_id(content, "sha256" if len(oid) == 64 else "sha1", header[1]) != oid
        result[name] = None if forged else content
    return len(names)


def _parse_checks(out: bytes, names: list[str], result: dict[str, Any]) -> int:
    lines = out.split(b"\n")
    complete = lines[:-1]  # the last item follows the last newline: empty, or a cut-off line
    for name, line in zip(names, complete, strict=False):
        parts = line.decode("utf-8", "surrogateescape").split(" ")
        result[name] = (parts[0], parts[1]) if len(parts) == 2 and parts[1] != "missing" else None
    return min(len(complete), len(names))


def cat_file(
    cwd: Path | str, names: Iterable[str], *, staged: bool = False, absent: Collection[str] = (), bounded: bool = True
) -> dict[str, bytes | TooLarge | None]:
    """Read many objects (``<rev>:<path>``, ``:<path>``, or ids) with one git process; None for one
    git cannot resolve or read. ``absent``: ids known to be missing (``missing_objects``), not asked
    for. With ``bounded`` (blobs), sizes are asked first (``--batch-check``, a few ms) and an
    object over the file limit is a ``TooLarge``, never read: the folder source's verdict, at the
    folder source's cost. Trees are read unbounded (git's own structure)."""
    wanted = _names(names)
    if not bounded:
        return dict(_batches(cwd, wanted, "--batch", _parse_contents, staged, absent))

    limit = fs.max_file_bytes()
    sizes = _sizes(cwd, wanted, staged, absent)
    result: dict[str, bytes | TooLarge | None] = {}
    found: dict[str, str] = {}  # name -> object id, to read by id (the index cannot change in between)
    for name in wanted:
        got = sizes.get(name)
        if got is None or not got[1].isdigit():
            result[name] = None
        elif int(got[1]) > limit:
            result[name] = fs.TooLarge(int(got[1]), limit, name)
        else:
            found[name] = got[0]
    blobs = _batches(cwd, list(dict.fromkeys(found.values())), "--batch", _parse_contents, staged, ()) if found else {}
    return {name: blobs.get(found[name]) if name in found else result.get(name) for name in wanted}


def tree_files(
    cwd: Path | str, rev: str, paths: Iterable[str], around: Iterable[str] = ()
) -> tuple[dict[str, bytes | TooLarge | None], dict[str, str]]:
    """The bytes of each of ``paths`` at ``rev`` (None when absent or not a file; a ``TooLarge``
    over the size limit, never read), and the mode there of each of ``around`` that exists (a
    link is its own entry, never followed). Two git processes: ``ls-tree -r -l`` gives every
    entry's id and size (so no ``--batch-check``), ``cat-file --batch`` the blobs by id. Names
    travel NUL-separated and the pathspecs are literal and top-relative (the paths' folders),
    so no quest path is parsed as a line, a pattern or an object name."""
    wanted, near = list(dict.fromkeys(paths)), set(around)
    specs = sorted({path.rpartition("/")[0] or path for path in wanted} | near)
    listed: dict[str, list[str]] = {}
    if specs:
        try:
            out = git(
                ["ls-tree", "-r", "-l", "-z", "--full-tree", rev, "--", *(f":(top,literal){s}" for s in specs)], cwd
            )
        except GitError:
            out = b""  # no such rev: every path absent
        for item in split_z(out):
            meta, _, path = item.partition("\t")
            parts = meta.split()  # <mode> <type> <id> <size>
            if len(parts) == 4:
                listed[path] = parts
    limit = fs.max_file_bytes()
    sized = {
        path: parts for path in wanted if (parts := listed.get(path, [])) and parts[1] == "blob" and parts[3].isdigit()
    }
    small = sorted({oid for _, _, oid, size in sized.values() if int(size) <= limit})
    read = _batches(cwd, small, "--batch", _parse_contents, False, ()) if small else {}
    result: dict[str, bytes | TooLarge | None] = {}
    for path in wanted:
        _, _, oid, size = sized.get(path, ("", "", "", "0"))
        result[path] = fs.TooLarge(int(size), limit, oid) if int(size) > limit else read.get(oid)
    return result, {path: listed[path][0] for path in near if path in listed}


def _sizes(
    cwd: Path | str, wanted: list[str], staged: bool = False, absent: Collection[str] = ()
) -> dict[str, tuple[str, str] | None]:
    """(object id, size as git prints it) of each name, with one git process; None for a missing one."""
    return _batches(cwd, wanted, "--batch-check=%(objectname) %(objectsize)", _parse_checks, staged, absent)


def blob_sizes(cwd: Path | str, names: Iterable[str]) -> dict[str, int | None]:
    """The size of each object (None: missing), so a caller reading many can bound what it
    holds at once, not only each blob (``cat_file``'s bound)."""
    found = _sizes(cwd, _names(names))
    return {name: int(got[1]) if got is not None and got[1].isdigit() else None for name, got in found.items()}


def missing_objects(cwd: Path | str, starts: Iterable[str]) -> set[str]:
    """The objects below ``starts`` (tree or commit ids) this repository lacks, listed
    without fetching them: a partial clone's reads must skip these, because asking git for
    one makes it try the promisor remote, fail, and stop."""
    wanted = _names(starts)
    if not wanted:
        return set()
    out = git(
        ["rev-list", "--objects", "--no-walk", "--missing=print", "--stdin"],
        cwd,
        stdin="".join(f"{n}\n" for n in wanted).encode(),
    )
    return {line[1:].decode() for line in out.split(b"\n") if line.startswith(b"?")}
