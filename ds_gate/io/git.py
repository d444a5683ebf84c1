"""The one door to git: plain subprocess calls, safe for a read-only tool.

Not GitPython: importing it costs ~90 ms, more than the whole commit-hook budget, and
everything ds-gate asks of git is a handful of porcelain commands.

Every call runs with ``GIT_OPTIONAL_LOCKS=0`` (no opportunistic index refresh, so
reading never writes the quest) and ``core.fsmonitor=false`` (a quest's config cannot
make ds-gate start a program). The ``GIT_*`` variables git exports to hooks are dropped
so ``-C``/``cwd`` decide which repository is read; only the hook's own index reads keep
``GIT_INDEX_FILE``, because during ``git commit`` the staged state may live in a
temporary index.
"""

from __future__ import annotations

import os
import subprocess

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~3 ms per commit

if TYPE_CHECKING:  # pathlib costs ~4 ms to import; the commit hook's fast path never needs it
    from collections.abc import Iterable, Sequence
    from pathlib import Path

_KEEP = (
    "GIT_CONFIG_",
    "GIT_EXEC_PATH",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_SSH",
    "GIT_ASKPASS",
    "GIT_ALLOW_PROTOCOL",
)
_SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.quotepath=off")


class GitError(Exception):
    """git failed, or is missing; the message is git's own first line."""


def _env(keep_index: bool) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") or key.startswith(_KEEP) or (keep_index and key == "GIT_INDEX_FILE")
    }
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_LAZY_FETCH"] = "1"  # a partial clone must not fetch missing objects (git >= 2.44)
    return env


def git(args: Sequence[str], cwd: Path | str, *, staged: bool = False, stdin: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd`` and return stdout; ``staged`` keeps the hook's index."""
    try:
        proc = subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=_env(staged),
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    except NotADirectoryError as exc:
        raise GitError(f"{cwd} is not a directory") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[0] if message else f"git {args[0]} exited {proc.returncode}")
    return proc.stdout


def split_z(output: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in output.split(b"\0") if item]


def cat_file(cwd: Path | str, names: Iterable[str], *, staged: bool = False) -> dict[str, bytes | None]:
    """Read many objects (``<rev>:<path>``, ``:<path>``, or ids) with one git process.

    A name git cannot resolve maps to None, so callers tell "absent" from "empty".
    """
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    if any("\n" in name for name in wanted):
        raise GitError("object names cannot contain newlines")
    out = git(["cat-file", "--batch"], cwd, staged=staged, stdin="".join(f"{n}\n" for n in wanted).encode())
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
    if any("\n" in name for name in wanted):
        raise GitError("object names cannot contain newlines")
    out = git(["cat-file", "--batch-check=%(objectname) %(objecttype)"], cwd,
              stdin="".join(f"{n}\n" for n in wanted).encode()).decode("utf-8", "surrogateescape")
    result: dict[str, tuple[str, str] | None] = {}
    for name, line in zip(wanted, out.splitlines(), strict=False):
        parts = line.split(" ")
        result[name] = (parts[0], parts[1]) if len(parts) == 2 and parts[1] != "missing" else None
    return result


def staged_names(cwd: Path | str) -> list[str]:
    """Paths (relative to the workspace top) added, copied, modified or retyped in the index:
    what a commit stages, honouring the hook's ``GIT_INDEX_FILE``."""
    out = git(["diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=ACMRT"], cwd, staged=True)
    return split_z(out)
