"""What kind of clone a quest is, read from its git configuration: which branches and
objects it can show at all.

A clone fetched with a depth or a single branch cannot show runs recorded on the branches
it lacks; a partial clone (``--filter=blob:none``) lacks objects, which git would fetch
on demand. ds-gate never fetches (every transport is off, ``GIT_NO_LAZY_FETCH``), so the
gate must know which of these it is looking at and refuse to pass on what it cannot see.
"""

from __future__ import annotations

import re
from pathlib import Path

from ds_gate.io.fs import text_or_none
from ds_gate.io.git import GitError, git

# git before 2.39.4 ignores GIT_NO_LAZY_FETCH: reading a partial clone there could reach
# for the promisor remote (the transport ban still stops it, but ds-gate does not lean on
# one safeguard alone).
LAZY_FETCH_SAFE = (2, 39, 4)
REFETCH = ("fetch the objects it lacks (`git fetch --refetch --no-filter origin`, or clone without --filter; in GitHub "
           "Actions `actions/checkout` with `filter:` unset)")


class CloneConfig:
    """The few settings of a quest's git configuration that say what the clone can show."""

    def __init__(self, root: Path) -> None:
        git_dir = root / ".git"
        text = text_or_none(git_dir / "config") if git_dir.is_dir() else None
        if text is not None:  # read from .git itself: no process on the closure's path
            self.shallow = (git_dir / "shallow").is_file()
            self.fetch_specs = re.findall(r"^\s*fetch\s*=\s*(\S+)", text, re.MULTILINE)
            self.partial = bool(re.search(r"^\s*(promisor\s*=\s*true|partialclone\s*=)", text,
                                          re.MULTILINE | re.IGNORECASE))
            return
        self.shallow = git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
        try:
            out = git(["config", "--get-regexp", r"^remote\..*\.(fetch|promisor)$|^extensions\.partialclone$"],
                      root).decode("utf-8", "replace")
        except GitError:
            out = ""  # no remote at all
        pairs = [line.split(" ", 1) + [""] for line in out.splitlines()]
        self.fetch_specs = [value for key, value, *_ in pairs if key.endswith(".fetch")]
        self.partial = any(key.endswith(".partialclone") or (key.endswith(".promisor") and value == "true")
                           for key, value, *_ in pairs)


def clone_blindness(root: Path) -> str | None:
    """Why this clone cannot show every branch (shallow, or fetching one branch), or None.
    A quest with no remote is the original, not a clone: it sees everything it has."""
    config = CloneConfig(root)
    if config.shallow:
        return "this clone is shallow (fetched with a depth)"
    if config.fetch_specs and not any(spec.lstrip("+").startswith("refs/heads/*:") for spec in config.fetch_specs):
        return "this clone fetches only some branches (--single-branch)"
    return None


def is_partial(root: Path) -> bool:
    """A partial clone (a promisor remote): objects may be absent until fetched."""
    return CloneConfig(root).partial


def lazy_fetch_safe(found: tuple[int, ...]) -> bool:
    """Whether a git of this version honours GIT_NO_LAZY_FETCH (an unknown version does not)."""
    return len(found) >= 2 and found >= LAZY_FETCH_SAFE


def refuse_unsafe_partial(root: Path) -> None:
    """A partial clone read with a git that ignores GIT_NO_LAZY_FETCH: exit 2, not a read."""
    found = version(root)
    if not lazy_fetch_safe(found):
        from ds_gate.errors import QuestError

        shown = ".".join(map(str, found)) or "unknown"
        raise QuestError(f"{root} is a partial clone and this git ({shown}) is older than 2.39.4, which ignores "
                         f"GIT_NO_LAZY_FETCH: ds-gate does not read it. Upgrade git, or {REFETCH}")


def parse_version(text: str) -> tuple[int, ...]:
    """``git version 2.39.5`` (or ``2.39.5.windows.1``, ``2.40.0-rc1``) → (2, 39, 5)."""
    words = text.split()
    out: list[int] = []
    for part in (words[2] if len(words) > 2 else "").split("."):
        digits = part.split("-")[0]
        if not digits.isdigit():
            break
        out.append(int(digits))
    return tuple(out)


def version(cwd: Path | str = ".") -> tuple[int, ...]:
    """The version of the git ds-gate runs."""
    from ds_gate.io.git import git

    return parse_version(git(["--version"], cwd).decode("utf-8", "replace"))
