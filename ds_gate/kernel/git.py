"""The one door to git: plain processes, safe for a read-only tool on a hostile quest.

Not GitPython: importing it costs ~90 ms, more than the whole commit-hook budget, and
everything ds-gate asks of git is a handful of plumbing commands.

A quest's ``.git/config`` is written by an agent ds-gate does not trust, and git runs
programs named there (gpg for ``log.showSignature``, fsmonitor, filters, diff drivers,
pagers, transports). Every call therefore goes through ``argv()``/``_env()``, which switch
off each program-running setting on the command line (``-c`` beats the quest's config and
anything it ``include``s), forbid every transport (``protocol.allow=never``: a promisor
clone cannot lazily fetch), and run ``git`` from an absolute path resolved once, before
any ``cwd`` change, from absolute ``PATH`` entries only (an empty entry would otherwise
mean "the quest"). Commands that would read the work tree through filters (``diff REV``,
``status``) are never run: callers compare blobs with plumbing. ``GIT_OPTIONAL_LOCKS=0``
keeps reads from refreshing the index. The ``GIT_*`` variables git exports to hooks are
dropped so ``-C``/``cwd`` decide which repository is read; only the hook's own index reads
keep ``GIT_INDEX_FILE``, because during ``git commit`` the staged state may live in a
temporary index.
"""

from __future__ import annotations

import os

from ds_gate.kernel import fs
from ds_gate.kernel.spawn import Done, Running
from ds_gate.kernel.spawn import start as spawn_start

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~3 ms per commit

if TYPE_CHECKING:  # pathlib costs ~4 ms to import; the commit hook's fast path never needs it
    from collections.abc import Callable, Collection, Iterable, Sequence
    from pathlib import Path
    from typing import Any

    from ds_gate.kernel.fs import TooLarge

_KEEP = (  # the user's own settings (never the quest's): where git is, which config it reads
    "GIT_CONFIG",  # GIT_CONFIG_GLOBAL/SYSTEM/NOSYSTEM/COUNT/KEY_n/VALUE_n/PARAMETERS: ds-gate's -c still wins
    "GIT_EXEC_PATH",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)
# Each setting git 2.39 knows that makes a read-only command start a program, switched off.
# Per-driver settings (filter.<x>.clean, diff.<x>.textconv) cannot be named here: the
# commands ds-gate runs never apply filters, and diffs carry --no-ext-diff --no-textconv.
SAFE_CONFIG = {
    "core.fsmonitor": "false",
    "core.sshCommand": "false",
    "core.askPass": "false",
    "core.gitProxy": "false",
    "core.alternateRefsCommand": "false",
    "core.quotepath": "off",
    "log.showSignature": "false",
    "gpg.program": "false",
    "gpg.ssh.program": "false",
    "gpg.x509.program": "false",
    "diff.external": "false",
    "credential.helper": "",
    "protocol.allow": "never",
    "uploadpack.packObjectsHook": "false",
    "gc.auto": "0",
    "maintenance.auto": "false",
    "fetch.recurseSubmodules": "false",
}
DIFF_SAFETY = ("--no-ext-diff", "--no-textconv")  # for every diff/log: no diff driver runs
_GIT: dict[str, str] = {}  # PATH -> git's absolute path, resolved once per process (and PATH)


class GitError(Exception):
    """git failed, or is missing; the message is git's own first line."""


def executable() -> str:
    """``git``'s absolute path from the absolute entries of ``PATH``; never a relative one."""
    search = os.environ.get("PATH", os.defpath)
    if search not in _GIT:
        for folder in search.split(os.pathsep):
            candidate = os.path.join(folder, "git")
            if os.path.isabs(folder) and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                _GIT[search] = candidate
                break
        else:
            raise GitError("git is not installed or not on PATH (only absolute PATH entries are searched)")
    return _GIT[search]


def argv(args: Sequence[str]) -> list[str]:
    """The full command line for ``git args``: absolute git, no pager, every safety override."""
    safety = [item for key, value in SAFE_CONFIG.items() for item in ("-c", f"{key}={value}")]
    return [executable(), "--no-pager", *safety, *args]


def _env(keep_index: bool) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") or key.startswith(_KEEP) or (keep_index and key == "GIT_INDEX_FILE")
    }
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_LAZY_FETCH"] = "1"  # a partial clone must not fetch missing objects (git >= 2.39.4)
    env["GIT_PROTOCOL_FROM_USER"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"  # refs/replace/ in the quest must not swap the objects read
    env["GIT_ALLOW_PROTOCOL"] = "none"  # beats the quest's protocol.<name>.allow: no transport at all
    return env


def _run(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> Done:
    if hasattr(os, "posix_spawn") and (cwd == "." or fs.enterable(cwd)):
        # ``git -C`` rather than a chdir (posix_spawn cannot before Python 3.13); a folder it
        # cannot enter goes through subprocess, which names the problem as it always has
        return _spawned(args if cwd == "." else ["-C", os.fspath(cwd), *args], staged, stdin).wait()
    import subprocess

    try:
        done = subprocess.run(argv(args), cwd=cwd, input=stdin, capture_output=True, env=_env(staged), check=False)
    except FileNotFoundError as exc:
        if not os.path.isdir(cwd):
            raise GitError(f"{cwd} does not exist") from exc
        raise GitError(f"git could not be started ({executable()}: {exc.strerror})") from exc
    except NotADirectoryError as exc:
        raise GitError(f"{cwd} is not a directory") from exc
    except PermissionError as exc:
        raise GitError(f"{cwd} cannot be entered ({exc.strerror})") from exc
    return Done(done.returncode, done.stdout, done.stderr)


def _spawned(args: Sequence[str], staged: bool, stdin: bytes | None) -> Running:
    try:
        return spawn_start(argv(args), _env(staged), stdin)
    except FileNotFoundError as exc:
        raise GitError(f"git could not be started ({executable()}: {exc.strerror})") from exc


def _failure(proc: Done, args: Sequence[str]) -> GitError:
    message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    fatal = [line for line in message if line.startswith(("fatal:", "error:"))]
    return GitError((fatal or message or [f"git {args[0]} exited {proc.returncode}"])[0])


def _stdout(proc: Done, args: Sequence[str]) -> bytes:
    if proc.returncode != 0:
        raise _failure(proc, args)
    return proc.stdout


def git(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd`` and return stdout; ``staged`` keeps the hook's index."""
    return _stdout(_run(args, cwd, staged=staged, stdin=stdin), args)


def started(args: Sequence[str], cwd: Path | str) -> Callable[[], bytes]:
    """``git args`` started now, its stdout (or ``GitError``) from the function returned,
    which must be called (it reaps git): the commit hook lists the worktrees while it judges
    the staged records. Elsewhere than this process's folder it runs when called."""
    if cwd != "." or not hasattr(os, "posix_spawn"):
        return lambda: git(args, cwd)
    running = _spawned(args, False, None)
    return lambda: _stdout(running.wait(), args)


def blob_id(data: bytes, object_format: str = "sha1") -> str:
    """The id git gives ``data`` as a blob (``git hash-object`` without filters), computed here."""
    import hashlib

    return hashlib.new(object_format, b"blob %d\0" % len(data) + data).hexdigest()


def split_z(output: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in output.split(b"\0") if item]


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


def _batches(cwd: Path | str, names: Iterable[str], mode: str, parse: Callable[[bytes, list[str], dict[str, Any]], int],
             staged: bool, absent: Collection[str]) -> dict[str, Any]:
    wanted = _names(names)
    result: dict[str, Any] = {name: None for name in wanted if name in absent}
    todo = [name for name in wanted if name not in absent]
    for _ in range(_MAX_RETRIES):
        if not todo:
            return result
        args = ["cat-file", mode]
        proc = _run(args, cwd, staged=staged, stdin="".join(f"{n}\n" for n in todo).encode("utf-8", "surrogateescape"))
        done = parse(proc.stdout, todo, result)
        if done == len(todo):
            return result
        if proc.returncode == 0:
            raise GitError(f"git cat-file ended early without an error, after {done} of {len(todo)} objects")
        result[todo[done]] = None  # the object git stopped on cannot be read
        todo = todo[done + 1 :]
    raise _failure(proc, ["cat-file"])


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
        result[name] = out[pos : pos + size]
        pos += size + 1  # content is followed by a newline
    return len(names)


def _parse_checks(out: bytes, names: list[str], result: dict[str, Any]) -> int:
    lines = out.split(b"\n")
    complete = lines[:-1]  # the last item follows the last newline: empty, or a cut-off line
    for name, line in zip(names, complete, strict=False):
        parts = line.decode("utf-8", "surrogateescape").split(" ")
        result[name] = (parts[0], parts[1]) if len(parts) == 2 and parts[1] != "missing" else None
    return min(len(complete), len(names))


def cat_file(cwd: Path | str, names: Iterable[str], *, staged: bool = False, absent: Collection[str] = (),
             bounded: bool = True) -> dict[str, bytes | TooLarge | None]:
    """Read many objects (``<rev>:<path>``, ``:<path>``, or ids) with one git process.

    A name git cannot resolve or read (missing, corrupt) maps to None, so callers tell
    "absent" from "empty". ``absent``: ids known to be missing (``missing_objects``), not
    asked for. With ``bounded`` (blobs: records, cards, YAML), sizes are asked first
    (``--batch-check``, one more process, a few ms) and an object over the file limit maps
    to a ``TooLarge`` and is never read: a 1 GB blob costs what a 1 GB file does, nothing,
    and the verdict is the folder source's. Trees are read unbounded (git's own structure).
    """
    wanted = _names(names)
    if not bounded:
        return dict(_batches(cwd, wanted, "--batch", _parse_contents, staged, absent))
    from ds_gate.kernel.fs import TooLarge, max_file_bytes

    limit = max_file_bytes()
    sizes = _sizes(cwd, wanted, staged, absent)
    result: dict[str, bytes | TooLarge | None] = {}
    found: dict[str, str] = {}  # name -> object id, to read by id (the index cannot change in between)
    for name in wanted:
        got = sizes.get(name)
        if got is None or not got[1].isdigit():
            result[name] = None
        elif int(got[1]) > limit:
            result[name] = TooLarge(int(got[1]), limit, name)
        else:
            found[name] = got[0]
    blobs = _batches(cwd, list(dict.fromkeys(found.values())), "--batch", _parse_contents, staged, ()) if found else {}
    return {name: blobs.get(found[name]) if name in found else result.get(name) for name in wanted}


def _sizes(cwd: Path | str, wanted: list[str], staged: bool = False, absent: Collection[str] = ()
           ) -> dict[str, tuple[str, str] | None]:
    """(object id, size as git prints it) of each name, with one git process; None for a missing one."""
    return _batches(cwd, wanted, "--batch-check=%(objectname) %(objectsize)", _parse_checks, staged, absent)


def blob_sizes(cwd: Path | str, names: Iterable[str]) -> dict[str, int | None]:
    """The size of each object (None: missing), so a caller reading many can bound what it
    holds at once, not only each blob (``cat_file``'s bound)."""
    found = _sizes(cwd, _names(names))
    return {name: int(got[1]) if got is not None and got[1].isdigit() else None for name, got in found.items()}


def cat_file_check(cwd: Path | str, names: Iterable[str]) -> dict[str, tuple[str, str] | None]:
    """(object id, type) of many objects with one git process; None for a missing one."""
    return _batches(cwd, names, "--batch-check=%(objectname) %(objecttype)", _parse_checks, False, ())


def missing_objects(cwd: Path | str, starts: Iterable[str]) -> set[str]:
    """The objects below ``starts`` (tree or commit ids) this repository lacks, listed
    without fetching them: a partial clone's reads must skip these, because asking git for
    one makes it try the promisor remote, fail, and stop."""
    wanted = _names(starts)
    if not wanted:
        return set()
    out = git(["rev-list", "--objects", "--no-walk", "--missing=print", "--stdin"], cwd,
              stdin="".join(f"{n}\n" for n in wanted).encode())
    return {line[1:].decode() for line in out.split(b"\n") if line.startswith(b"?")}

