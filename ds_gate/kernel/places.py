"""Where ds-gate's trusted places may lie: pinned at install, never inside a quest or a home.

The user's configuration file (it may lower a verdict) and the cache folder (it may only save
time) are found from ``HOME`` and ``XDG_*``, which inside DeepScientist are the runner's, set for
the agent (Kimi's ``HOME`` lies in the home, OpenCode's in the quest). So the hooks and the
integration **pin** both at install (``pins``; a pin wins over the environment), and a place
**inside a quest or a DeepScientist home** (``agent_writable``) is never trusted, whatever chose
it. The rule, and the fix the user is given: docs/threat-model.md, "Where trust lives".
"""

from __future__ import annotations

import os

from ds_gate.kernel.fs import is_inside

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the fast path
if TYPE_CHECKING:
    from collections.abc import Callable

try:
    import pwd
except ImportError:  # not POSIX: no account database, every folder up to the root is looked at
    pwd = None  # type: ignore[assignment]

PIN_CONFIG = "DS_GATE_PINNED_CONFIG"  # the trusted configuration file, pinned at install (it may not exist)
PIN_CACHE = "DS_GATE_PINNED_CACHE"  # the cache folder, pinned at install
HOME_VARIABLES = ("DEEPSCIENTIST_HOME", "DS_HOME")  # DeepScientist's own names of its home
HOME_MARKS = ("quests", "memory")  # folders: a home (a quest keeps memory/ too)
QUEST_MARKS = ("quest.yaml", ".ds")  # a quest root, or a worktree of one


def account_home() -> str | None:
    """The account's home folder from the password database: a runner sets ``HOME``, not this."""
    try:
        return os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir) if pwd is not None else None
    except (KeyError, OSError):
        return None


def _marked(folder: str) -> str | None:
    for mark in QUEST_MARKS:
        if os.path.lexists(os.path.join(folder, mark)):
            return f"the quest {folder} (it holds {mark})"
    for mark in HOME_MARKS:
        if os.path.isdir(os.path.join(folder, mark)):
            return f"{folder}, which holds {mark}/ (a DeepScientist home or quest)"
    return None


def agent_writable(
    path: str | os.PathLike[str], account: str | None = None, seen: Callable[[str], object] | None = None
) -> str | None:
    """Where ``path`` lies inside a quest or a DeepScientist home (what to say), else None.
    ``account`` is the account's home folder (default: the password database's, ``account_home``);
    ``seen`` is told each mark before it is looked at (a kept answer that trusted ``path`` looks again)."""
    spelled = os.path.abspath(os.path.expanduser(os.fspath(path)))
    real = os.path.realpath(spelled)
    mine = os.path.realpath(account) if account is not None else account_home()
    for candidate in dict.fromkeys((spelled, real)):
        folder = candidate
        while True:
            if seen is not None:
                for mark in (*QUEST_MARKS, *HOME_MARKS):
                    seen(os.path.join(folder, mark))
            if mine is not None and is_inside(folder, mine):  # the account's home or above it
                if os.path.realpath(folder) == mine and all(
                    os.path.isdir(os.path.join(folder, mark)) for mark in HOME_MARKS
                ):
                    return f"{folder}, the account's home, which holds quests/ and memory/ (a DeepScientist home)"
                break
            found = _marked(folder)
            if found is not None:
                return found
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    for name in HOME_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            home = os.path.abspath(os.path.expanduser(value))
            for candidate in (spelled, real):
                for root in {home, os.path.realpath(home)}:
                    if is_inside(root, candidate):
                        return f"the DeepScientist home {root} (${name})"
    return None


def pinned(name: str) -> str | None:
    """The place a hook or the integration pinned (``PIN_CONFIG``/``PIN_CACHE``), else None."""
    value = os.environ.get(name, "").strip()
    return value if value and os.path.isabs(value) else None


def env_config_file() -> tuple[str, str, bool]:
    """The configuration file the environment names: (path, how, named explicitly)."""
    named = os.environ.get("DS_GATE_CONFIG", "").strip()
    if named:
        return os.path.expanduser(named), "$DS_GATE_CONFIG", True
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    folder = base if base and os.path.isabs(base) else os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(folder, "ds-gate", "config.yaml"), "the user's configuration", False


def env_cache_dir() -> str:
    """The cache folder the environment names (``$DS_GATE_CACHE_DIR``, ``$XDG_CACHE_HOME/ds-gate``, ``~/.cache/ds-gate``)."""
    given = os.environ.get("DS_GATE_CACHE_DIR", "").strip()
    if given:
        return os.path.abspath(os.path.expanduser(given))
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return os.path.abspath(
        os.path.join(os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".cache"), "ds-gate")
    )


def pins() -> dict[str, str]:
    """What an install pins: the places in force now (an existing pin, else the environment's), absolute."""
    return {
        PIN_CONFIG: pinned(PIN_CONFIG) or os.path.abspath(env_config_file()[0]),
        PIN_CACHE: pinned(PIN_CACHE) or env_cache_dir(),
    }


def planted_link(path: str | os.PathLike[str]) -> str | None:
    """The first symbolic link on ``path`` (absolute) that lies inside a quest or a home, as
    ``link -> target, inside <where>``, else None. A trusted entry naming a quest by a path
    through such a link names whatever the agent points it at (``quests/<deleted> -> 001``),
    so it must match nothing; a link the user made outside (``~/DeepScientist -> /data/ds``) is fine."""
    parts = os.path.abspath(os.fspath(path)).split(os.sep)
    prefix = os.sep
    for part in parts:
        if not part:
            continue
        prefix = os.path.join(prefix, part)
        if os.path.islink(prefix):
            where = agent_writable(os.path.realpath(os.path.dirname(prefix)))
            if where is not None:
                return f"{prefix} -> {os.path.realpath(prefix)}, a symbolic link inside {where}"
    return None


_THROUGH_LINK: set[str] = set()  # quest roots this process was given by a path through a planted link


def note_given(given: object, start: str | os.PathLike[str]) -> None:
    """``locate`` notes a path it was given through a link inside a quest or a home (``quests/002
    -> legacy``): no trusted entry may match the quest holding it, as none may through its own path."""
    if isinstance(given, (str, os.PathLike)) and planted_link(os.path.expanduser(os.fspath(given))) is not None:
        _THROUGH_LINK.add(os.path.realpath(start))


def given_through_link(root: str | os.PathLike[str]) -> bool:
    """Whether this process was given a path in the quest at ``root`` through a planted link."""
    real = os.path.realpath(root)
    return any(p == real or p.startswith(real.rstrip(os.sep) + os.sep) for p in _THROUGH_LINK)


def pins_note(what: str) -> str:
    """What an install pinned, said once in its report (and why it matters inside DeepScientist)."""
    pinned_now = pins()
    config, cache = pinned_now[PIN_CONFIG], pinned_now[PIN_CACHE]
    text = (
        f"{what} trust the configuration {config}{'' if os.path.isfile(config) else ' (none there yet)'} "
        f"and the cache folder {cache}, pinned now: the HOME/XDG_* a DeepScientist runner sets for the agent "
        "does not move them (install again after moving your configuration)"
    )
    reachable = agent_writable(config) or agent_writable(cache)
    if reachable is not None:
        text += (
            f"; warning: they lie inside {reachable}, which a quest's agent can write, so the gate will not "
            "trust them: install from your own shell"
        )
    return text
