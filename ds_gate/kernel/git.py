"""The one door to git: plain processes, safe for a read-only tool on a hostile quest.

Not GitPython: importing it costs more than the whole commit hook (bench/RESULTS.md), and
ds-gate asks git only a handful of plumbing commands. A quest's ``.git/config`` is written by an
agent ds-gate does not trust, so every call goes through ``argv()``/``_env()``: an absolute
``git`` (from absolute ``PATH`` entries only), every program-running setting off with ``-c``, no
transport, replace refs, grafts and the commit-graph ignored, the ``GIT_*`` variables git
exports to hooks dropped (the hook's own index reads keep ``GIT_INDEX_FILE``: during ``git
commit`` the staged state may live in a temporary index). Commands that read the work tree
through filters are never run. The full list and why: docs/threat-model.md.
"""

from __future__ import annotations

import os
import stat

from ds_gate.kernel.spawn import Done, Running
from ds_gate.kernel.spawn import start as spawn_start

TYPE_CHECKING = False  # the kernel's economy: neither typing nor pathlib on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path


try:
    from _sha1 import sha1 as _sha1  # type: ignore[import-not-found]  # CPython's own SHA-1, without OpenSSL
except ImportError:  # a Python built without it
    _sha1 = None

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
    "core.commitGraph": "false",  # .git/objects/info/commit-graph is the quest's: a forged one rewrites parents
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
NO_GRAFTS = os.path.join(os.devnull, "ds-gate-reads-no-grafts")  # never a file: os.devnull is no folder
DIFF_SAFETY = ("--no-ext-diff", "--no-textconv")  # for every diff/log: no diff driver runs
_GIT: dict[str, str] = {}  # PATH -> git's absolute path, resolved once per process (and PATH)


GIT_MISSING = "git is not installed or not on PATH (only absolute PATH entries are searched)"


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
            raise GitError(GIT_MISSING)
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
    env["GIT_OPTIONAL_LOCKS"] = "0"  # a read never refreshes the quest's index
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_LAZY_FETCH"] = "1"  # a partial clone must not fetch missing objects (git >= 2.39.4)
    env["GIT_PROTOCOL_FROM_USER"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"  # refs/replace/ in the quest must not swap the objects read
    # nor .git/info/grafts rewrite a commit's parents (git 2.39 applies grafts despite the line above):
    # a graft file that cannot exist, below a device, so git reads none
    env["GIT_GRAFT_FILE"] = NO_GRAFTS
    env["GIT_ALLOW_PROTOCOL"] = "none"  # beats the quest's protocol.<name>.allow: no transport at all
    return env


def _folder_problem(cwd: Path | str) -> str | None:
    """Why git cannot be pointed at ``cwd`` (``git -C``), in the words ds-gate reports."""
    try:
        st = os.stat(cwd)
    except FileNotFoundError:
        return f"{cwd} does not exist"
    except NotADirectoryError:
        return f"{cwd} is not a directory"
    except OSError as exc:
        return f"{cwd} cannot be entered ({exc.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return f"{cwd} is not a directory"
    if not os.access(cwd, os.X_OK):
        return f"{cwd} cannot be entered (Permission denied)"
    return None


def run(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> Done:
    """``git args`` in ``cwd``, to its end: ``git -C`` rather than a chdir (``posix_spawn``
    cannot change folder before Python 3.13)."""
    if cwd != ".":
        problem = _folder_problem(cwd)
        if problem is not None:
            raise GitError(problem)
        args = ["-C", os.fspath(cwd), *args]
    return _spawned(args, staged, stdin).wait()


def _spawned(args: Sequence[str], staged: bool, stdin: bytes | None) -> Running:
    try:
        return spawn_start(argv(args), _env(staged), stdin)
    except FileNotFoundError as exc:
        raise GitError(f"git could not be started ({executable()}: {exc.strerror})") from exc


def failure(proc: Done, args: Sequence[str]) -> GitError:
    message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    fatal = [line for line in message if line.startswith(("fatal:", "error:"))]
    return GitError((fatal or message or [f"git {args[0]} exited {proc.returncode}"])[0])


def _stdout(proc: Done, args: Sequence[str]) -> bytes:
    if proc.returncode != 0:
        raise failure(proc, args)
    return proc.stdout


def git(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd`` and return stdout; ``staged`` keeps the hook's index."""
    return _stdout(run(args, cwd, staged=staged, stdin=stdin), args)


def started(args: Sequence[str], cwd: Path | str) -> Callable[[], bytes]:
    """``git args`` started now, its stdout (or ``GitError``) from the function returned,
    which must be called (it reaps git): the commit hook lists the worktrees while it judges
    the staged records. Elsewhere than this process's folder it runs when called."""
    if cwd != ".":
        return lambda: git(args, cwd)
    running = _spawned(args, False, None)
    return lambda: _stdout(running.wait(), args)


def blob_id(data: bytes, object_format: str = "sha1", kind: bytes = b"blob") -> str:
    """The id git gives ``data`` as a blob (``git hash-object`` without filters), or as an object
    of another ``kind``, computed here. SHA-1 comes from CPython's own ``_sha1`` where it is built:
    ``hashlib`` loads OpenSSL first, and the commit hook asks this of every record a checkpoint stages."""
    blob = kind + b" %d\0" % len(data) + data
    if object_format == "sha1" and _sha1 is not None:
        return str(_sha1(blob).hexdigest())
    import hashlib  # kernel.lazy.LAZY_PLACES: SHA-256 repositories, or a Python without _sha1

    return hashlib.new(object_format, blob).hexdigest()


def split_z(output: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in output.split(b"\0") if item]
