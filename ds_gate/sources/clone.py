"""What kind of clone a quest is, read from its git configuration: which branches and
objects it can show at all.

A clone fetched with a depth or a single branch cannot show runs recorded on the branches
it lacks; a partial clone (``--filter=blob:none``) lacks objects, which git would fetch
on demand. ds-gate never fetches (every transport is off, ``GIT_NO_LAZY_FETCH``), so the
gate must know which of these it is looking at and refuse to pass on what it cannot see.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import text_or_none
from ds_gate.kernel.git import GitError, git

# git before 2.39.4 ignores GIT_NO_LAZY_FETCH: reading a partial clone there could reach
# for the promisor remote (the transport ban still stops it, but ds-gate does not lean on
# one safeguard alone).
LAZY_FETCH_SAFE = (2, 39, 4)
ACTIONS = "in GitHub Actions `actions/checkout` with `fetch-depth: 0`"
FETCH_EVERY_BRANCH = (
    "fetch every branch (`git config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*' && "
    f"git fetch origin`; {ACTIONS})"
)


def unshallow(remote: str, narrowed: bool) -> str:
    """The fix for a shallow clone that works as printed: ``--unshallow`` alone leaves a
    ``--depth`` clone fetching one branch (git clones with a depth as ``--single-branch``), so
    the refspec is widened first where it is narrowed."""
    name = shlex.quote(remote)
    widen = (
        f"git config remote.{name}.fetch {shlex.quote(f'+refs/heads/*:refs/remotes/{remote}/*')} && "
        if narrowed
        else ""
    )
    return f"fetch the whole history of every branch (`{widen}git fetch --unshallow {name}`; {ACTIONS})"


REFETCH = (
    "fetch the objects it lacks (`git fetch --refetch --no-filter origin`, or clone without --filter; in GitHub "
    "Actions `actions/checkout` with `filter:` unset)"
)


class CloneConfig:
    """The few settings of a quest's git configuration that say what the clone can show."""

    def __init__(self, root: Path) -> None:
        git_dir = root / ".git"
        text = text_or_none(git_dir / "config") if git_dir.is_dir() else None
        if text is not None:  # read from .git itself: no process on the closure's path
            self.common: Path | None = git_dir
            self.shallow = (git_dir / "shallow").is_file()
            self.remotes = _remote_specs(text)
            self.fetch_specs = [spec for specs in self.remotes.values() for spec in specs]
            self.partial = bool(
                re.search(r"^\s*(promisor\s*=\s*true|partialclone\s*=)", text, re.MULTILINE | re.IGNORECASE)
            )
            return
        self.shallow = git(["rev-parse", "--is-shallow-repository"], root).strip() == b"true"
        try:
            out = git(
                ["config", "--get-regexp", r"^remote\..*\.(fetch|promisor)$|^extensions\.partialclone$"], root
            ).decode("utf-8", "replace")
        except GitError:
            out = ""  # no remote at all
        pairs = [line.split(" ", 1) + [""] for line in out.splitlines()]
        self.remotes = {}
        for key, value, *_ in pairs:
            if key.endswith(".fetch"):
                self.remotes.setdefault(key[len("remote.") : -len(".fetch")], []).append(value)
        self.fetch_specs = [spec for specs in self.remotes.values() for spec in specs]
        self.partial = any(
            key.endswith(".partialclone") or (key.endswith(".promisor") and value == "true") for key, value, *_ in pairs
        )
        try:
            common = git(["rev-parse", "--path-format=absolute", "--git-common-dir"], root)
            self.common = Path(common.decode("utf-8", "surrogateescape").strip())
        except GitError:
            self.common = None


def blindness(root: Path) -> tuple[str, str] | None:
    """Why this clone cannot show every branch, and the one command that fixes it; or None.
    A quest with no remote is the original, not a clone: it sees everything it has."""
    config = CloneConfig(root)
    narrowed = [name for name, specs in config.remotes.items() if not any(_wide(spec) for spec in specs)]
    if config.shallow:
        remote = (narrowed or list(config.remotes) or ["origin"])[0]
        return "this clone is shallow (fetched with a depth)", unshallow(remote, bool(narrowed))
    for name, specs in config.remotes.items():
        if name in narrowed:
            shown = _shown(f"remote.{name}.fetch = {specs[0]}")
            return (
                f"this clone fetches only some branches (--single-branch, or a narrowed refspec: {shown})",
                FETCH_EVERY_BRANCH,
            )
    if config.common is None:
        return None
    remotes = remote_tracking(config.common)
    if remotes and not config.fetch_specs:
        return (
            "this repository holds remote-tracking branches but no remote that fetches every branch "
            "(its branches were fetched by name)"
        ), FETCH_EVERY_BRANCH
    narrow = narrow_fetch(config.common)
    if narrow is not None:
        return f"this clone's branches were fetched by name only (`git {narrow}`)", FETCH_EVERY_BRANCH
    return None


def is_original(root: Path) -> bool:
    """The quest as DeepScientist made it, not a clone: no remote configured, no remote-tracking
    branch, and a history that began with a local first commit (HEAD's reflog says ``commit
    (initial)``). Such a repository has no other copy whose branches it could lack, so seeing one
    branch there means the quest has one branch (``git.one-branch`` stays quiet). Anything else
    (a remote, fetched refs, ``git init && git fetch URL main``, no reflog to tell) may be a
    clone that lacks branches: the warning stands."""
    config = CloneConfig(root)
    if config.remotes or config.shallow or config.common is None or remote_tracking(config.common):
        return False
    first = _actions((text_or_none(config.common / "logs" / "HEAD") or "").split("\n", 1)[0])
    return bool(first) and first[0].startswith("commit (initial)")


def _remote_specs(config: str) -> dict[str, list[str]]:
    """Each remote's ``fetch`` refspecs, from the text of a git config file (a ``fetch`` line
    outside a ``[remote "<name>"]`` section counts for a remote named ``""``)."""
    remotes: dict[str, list[str]] = {}
    section = ""
    for line in config.splitlines():
        header = re.match(r'\s*\[\s*([^\]"\s]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]', line)
        if header:
            section = header.group(2) or "" if header.group(1).lower() == "remote" else ""
            continue
        spec = re.match(r"\s*fetch\s*=\s*(\S+)", line, re.IGNORECASE)
        if spec:
            remotes.setdefault(section, []).append(spec.group(1))
    return remotes


def _wide(spec: str) -> bool:
    """A refspec that fetches every branch: its source is ``refs/heads/*``."""
    return spec.lstrip("+").startswith("refs/heads/*:") or spec.lstrip("+") == "refs/heads/*"


def remote_tracking(common: Path) -> bool:
    """Whether the repository holds any remote-tracking branch (loose, packed or in a reftable)."""
    if (common / "reftable").is_dir():
        return bool(git(["for-each-ref", "--count=1", "--format=x", "refs/remotes"], common).strip())
    packed = text_or_none(common / "packed-refs") or ""
    if re.search(r"^[0-9a-f]+ refs/remotes/", packed, re.MULTILINE):
        return True
    for _, _, files in os.walk(common / "refs" / "remotes"):
        if files:
            return True
    return False


# A fetch's options that take their value as the next word (``--depth 1``): that word is
# neither the repository nor a refspec.
_VALUED = {
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "--negotiation-tip",
    "--server-option",
    "-o",
    "--upload-pack",
    "--refmap",
    "--jobs",
    "-j",
    "--filter",
    "--recurse-submodules-default",
    "--submodule-prefix",
}


def fetched_everything(action: str) -> bool | None:
    """What one reflog entry's action (``fetch -q origin +a:b``, as git writes it) says:
    True for a fetch of every branch (the remote's configured refspecs, or ``refs/heads/*``
    named), False for a fetch of branches by name, None for anything else (a push, a branch)."""
    words = action.split()
    if not words or words[0] not in ("fetch", "pull"):
        return None
    positional: list[str] = []
    every = False
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in ("--all", "--multiple"):
            every = True
        elif word in _VALUED:
            skip = True
        elif not word.startswith("-"):
            positional.append(word)
    refspecs = positional[1:]
    return every or not refspecs or any(_wide(spec) for spec in refspecs)


def _shown(text: str) -> str:
    """Text from ``.git`` as a stop's cause shows it: 200 characters, each unprintable one or
    backtick a ``?``, so the agent's reflog cannot close the code span it is quoted in."""
    return "".join(c if c.isprintable() and c != "`" else "?" for c in text[:200])


def _actions(log: str) -> list[str]:
    """The actions of a reflog's entries: the text after the tab, up to the last ``: ``."""
    out = []
    for line in log.splitlines():
        message = line.partition("\t")[2]
        out.append(message.rpartition(": ")[0] or message)
    return out


def narrow_fetch(common: Path) -> str | None:
    """The fetch that brought this clone's remote-tracking branches by name, when the reflogs record
    fetches and none fetched every branch; else None. A ``git init && git fetch origin
    +refs/heads/main:…`` (a CI runner told to fetch one branch) has a wide refspec and no shallow
    file: only the reflog tells. A repository that began as a clone or with a local first commit
    (the original quest) is not judged by its later fetches."""
    head = text_or_none(common / "logs" / "HEAD") or ""
    first = _actions(head.split("\n", 1)[0])
    if first and first[0].startswith(("clone", "commit (initial)")):
        return None
    narrow: str | None = None
    for folder, _, files in os.walk(common / "logs" / "refs" / "remotes"):
        for name in files:
            for action in _actions(text_or_none(os.path.join(folder, name)) or ""):
                if action.startswith("clone"):
                    return None
                verdict = fetched_everything(action)
                if verdict:
                    return None
                if verdict is False and narrow is None:
                    narrow = _shown(action)
    return narrow


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
        shown = ".".join(map(str, found)) or "unknown"
        raise QuestError(
            f"{root} is a partial clone and this git ({shown}) is older than 2.39.4, which ignores "
            "GIT_NO_LAZY_FETCH: ds-gate does not read it",
            f"Upgrade git, or {REFETCH}",
            ". ",
        )


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
    return parse_version(git(["--version"], cwd).decode("utf-8", "replace"))
