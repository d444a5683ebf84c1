"""The one door to git: plain subprocess calls, safe for a read-only tool on a hostile quest.

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
import subprocess

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~3 ms per commit

if TYPE_CHECKING:  # pathlib costs ~4 ms to import; the commit hook's fast path never needs it
    from collections.abc import Iterable, Sequence
    from pathlib import Path

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


def git(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd`` and return stdout; ``staged`` keeps the hook's index."""
    try:
        proc = subprocess.run(
            argv(args),
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=_env(staged),
            check=False,
        )
    except FileNotFoundError as exc:
        if not os.path.isdir(cwd):
            raise GitError(f"{cwd} does not exist") from exc
        raise GitError(f"git could not be started ({executable()}: {exc.strerror})") from exc
    except NotADirectoryError as exc:
        raise GitError(f"{cwd} is not a directory") from exc
    except PermissionError as exc:
        raise GitError(f"{cwd} cannot be entered ({exc.strerror})") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[0] if message else f"git {args[0]} exited {proc.returncode}")
    return proc.stdout


def blob_id(data: bytes, object_format: str = "sha1") -> str:
    """The id git gives ``data`` as a blob (``git hash-object`` without filters), computed here."""
    import hashlib

    return hashlib.new(object_format, b"blob %d\0" % len(data) + data).hexdigest()


def split_z(output: bytes) -> list[str]:
    """NUL-separated names as str, any bytes kept: a byte that is not UTF-8 becomes a lone
    surrogate (``surrogateescape``, as ``os.listdir`` does), so the name still opens the file
    and reporters show it as ``\\xff``."""
    return [item.decode("utf-8", "surrogateescape") for item in output.split(b"\0") if item]


def _name_bytes(names: list[str]) -> bytes:
    """cat-file's line protocol: one object name a line. Only ids and ``<rev>:<fixed path>``
    are ever sent (quest paths are turned into blob ids first), so a newline is a caller's bug."""
    if any("\n" in name for name in names):
        raise GitError("object names cannot contain newlines")
    return "".join(f"{n}\n" for n in names).encode("utf-8", "surrogateescape")


def cat_file(cwd: Path | str, names: Iterable[str], *, staged: bool = False) -> dict[str, bytes | None]:
    """Read many objects (ids, or ``<rev>:<path>`` of a fixed path) with one git process;
    a path from a quest is read by the blob id ``staged_changes`` or ``read_paths`` finds.

    A name git cannot resolve maps to None, so callers tell "absent" from "empty".
    """
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    out = git(["cat-file", "--batch"], cwd, staged=staged, stdin=_name_bytes(wanted))
    result: dict[str, bytes | None] = {}
    pos = 0
    for name in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) < 3 or header[-1] in (b"missing", b"ambiguous"):
            result[name] = None
            continue
        size = int(header[2])
        result[name] = out[pos : pos + size]
        pos += size + 1  # content is followed by a newline
    return result


def cat_file_check(cwd: Path | str, names: Iterable[str]) -> dict[str, tuple[str, str] | None]:
    """(object id, type) of many objects with one git process; None for a missing one."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    out = git(["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd,
              stdin=_name_bytes(wanted)).decode("utf-8", "surrogateescape")
    result: dict[str, tuple[str, str] | None] = {}
    for name, line in zip(wanted, out.splitlines(), strict=False):
        parts = line.split(" ")
        result[name] = (parts[0], parts[1]) if len(parts) == 2 and parts[1] != "missing" else None
    return result


def staged_changes(cwd: Path | str) -> dict[str, tuple[str | None, str]]:
    """Each path (relative to the workspace top) added, copied, modified or retyped in the
    index, honouring the hook's ``GIT_INDEX_FILE``: (its blob id at ``HEAD`` or None, its
    staged blob id). The ids come with the names, so no staged path (it may hold a newline
    or bytes that are not UTF-8) is ever sent to cat-file as ``:<path>``."""
    out = git(["diff", "--cached", *DIFF_SAFETY, "--raw", "--no-abbrev", "-z", "--no-renames", "--diff-filter=ACMRT"],
              cwd, staged=True)
    fields = out.split(b"\0")
    changes: dict[str, tuple[str | None, str]] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):  # ":<old mode> <new mode> <old> <new> <status>", path
        parts = meta.decode("ascii", "replace").split(" ")
        if len(parts) == 5 and path:
            old = parts[2] if parts[0] != ":000000" and parts[2].strip("0") else None
            changes[path.decode("utf-8", "surrogateescape")] = (old, parts[3])
    return changes


def path_blobs(cwd: Path | str, rev: str, paths: Iterable[str]) -> dict[str, str]:
    """The blob id of each of ``paths`` (relative to the top) at ``rev``; an absent path is left out.

    Names travel NUL-separated (``-z``) and the pathspecs are the paths' folders, literal and
    top-relative, so no quest path is parsed as a line, a pattern or an object name."""
    wanted = set(paths)
    if not wanted:
        return {}
    specs = sorted({f":(top,literal){path.rpartition('/')[0] or path}" for path in wanted})
    found: dict[str, str] = {}
    for item in split_z(git(["ls-tree", "-r", "-z", "--full-tree", rev, "--", *specs], cwd)):
        meta, _, path = item.partition("\t")
        parts = meta.split(" ")  # <mode> <type> <id>
        if path in wanted and len(parts) == 3 and parts[1] == "blob":
            found[path] = parts[2]
    return found


def read_paths(cwd: Path | str, rev: str, paths: Iterable[str]) -> dict[str, bytes | None]:
    """The bytes of each of ``paths`` at ``rev`` (None when absent, or when ``rev`` does not
    exist), whatever the path holds: listed with ``ls-tree -z``, read by blob id."""
    wanted = list(dict.fromkeys(paths))
    try:
        ids = path_blobs(cwd, rev, wanted)
    except GitError:
        ids = {}
    blobs = cat_file(cwd, sorted(set(ids.values())))
    return {path: blobs.get(ids[path]) if path in ids else None for path in wanted}
