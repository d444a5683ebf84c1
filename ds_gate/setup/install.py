"""Install ds-gate's plain git hooks into the folder git runs them from (``--git-path hooks``).

A hook that is not ours is renamed ``<name>.ds-gate-chained`` and run first by ours, so
installing never loses a hook; reinstalling updates ours.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ds_gate.config.settings import agent_writable, pins
from ds_gate.kernel import fs
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import is_inside
from ds_gate.kernel.git import GitError, git
from ds_gate.kernel.resources import data_dir
from ds_gate.kernel.version import HOMEPAGE
from ds_gate.model.findings import CONTRACT, ERROR, Rule
from ds_gate.sources.location import locate

INSTALL_FAILED = Rule("install.failed", ERROR, CONTRACT, "a hook could not be installed into a quest of the home")

# pre-merge-commit: `git merge` commits without running pre-commit, so a merge bringing the
# paper bundle in would finalize unjudged; it runs the same script as pre-commit (TEMPLATES)
HOOKS = ("pre-commit", "pre-merge-commit", "pre-push")
TEMPLATES = {"pre-merge-commit": "pre-commit"}
MARKER = "ds-gate-managed-hook"
CHAIN_SUFFIX = ".ds-gate-chained"


@dataclass(frozen=True, slots=True)
class Installed:
    quest: Path
    hook: Path
    updated: bool  # ours was already there
    chained: Path | None  # where the previous hook was kept
    unchanged: bool = False  # ours, byte for byte what this install would write: not written again

    def describe(self) -> str:
        state = "unchanged (already current)" if self.unchanged else "updated" if self.updated else "installed"
        text = f"{state} {self.hook}"
        if self.chained is not None:
            text += f" (the previous hook is kept as {self.chained.name} and runs first)"
        return text


def hooks_dir(quest: Path | str) -> tuple[Path, Path]:
    """(quest root, hooks folder) for any path inside a quest: in this quest or nowhere
    (``locate`` refuses a ``.git`` pointer to another repository)."""
    loc = locate(quest, any_repository=True)
    if not loc.is_git:
        raise QuestError(f"{loc.root} is not a git repository; there is no hooks folder to install into")
    try:
        out = git(["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-path", "hooks"], loc.root)
    except GitError as exc:
        raise QuestError(f"{loc.root}: git cannot locate the hooks folder: {exc}") from exc
    common, hooks = (Path(os.fsdecode(line)).resolve() for line in out.splitlines()[:2])
    if not is_inside(loc.root, common):
        raise QuestError(f"{loc.root}: its git folder is {common}, outside the quest; hooks are not installed there")
    if not (is_inside(common, hooks) or is_inside(loc.root, hooks)):
        raise QuestError(
            f"{loc.root}: git runs hooks from {hooks} (core.hooksPath), outside this quest; installing there "
            "would affect other repositories",
            "Add `ds-gate commit-check` to that hooks folder yourself, or use the pre-commit framework hooks "
            "(.pre-commit-hooks.yaml)",
            ". ",
        )
    return loc.root, hooks


def _script(
    name: str, python: str | None = None, placed: dict[str, str] | None = None, reinstall: str | None = None
) -> str:
    """The hook script, naming ``python`` (this interpreter), the command that reinstalls it
    (``reinstall_command``) and pinning ``placed`` (the trusted places in force now, ``kernel.places``);
    doctor passes a hook's own to see whether the rest is what install writes."""
    text = (data_dir("hooks") / TEMPLATES.get(name, name)).read_text(encoding="utf-8")
    text = text.replace("'@DS_GATE_PYTHON@'", shlex.quote(python or sys.executable))
    text = text.replace("'@DS_GATE_REINSTALL@'", shlex.quote(reinstall or reinstall_command(python or sys.executable)))
    for variable, place in (pins() if placed is None else placed).items():
        text = text.replace(f"'@{variable}@'", shlex.quote(place))
    return text


@functools.cache  # this process's install record: read once, though each hook written or checked names it
def install_source() -> str:
    """What pip installs this ds-gate from, as its install recorded it (PEP 610 ``direct_url.json``):
    a git commit, a local folder (``-e`` when editable), an archive; else the documented source
    (ds-gate is not on the package index: a name there could be anyone's)."""
    try:
        raw = importlib.metadata.distribution("ds-gate").read_text("direct_url.json")
        direct = json.loads(raw or "{}")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        direct = {}
    url = direct.get("url") if isinstance(direct, dict) else None
    if not isinstance(url, str) or not url:
        return shlex.quote(f"ds-gate @ git+{HOMEPAGE}@<sha from: git ls-remote {HOMEPAGE} HEAD>")
    vcs = direct.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        commit = vcs.get("commit_id")
        return shlex.quote(f"ds-gate @ git+{url}" + (f"@{commit}" if isinstance(commit, str) else ""))
    path = url.removeprefix("file://") if url.startswith("file://") else url
    editable = isinstance(direct.get("dir_info"), dict) and direct["dir_info"].get("editable")
    return ("-e " if editable else "") + shlex.quote(path)


def reinstall_command(python: str) -> str:
    """The commands that put back the ``python`` a hook runs with: its virtual environment made
    again, this ds-gate installed into it from where it came from, the hooks written again."""
    bin_dir = os.path.dirname(python)
    venv = os.path.dirname(bin_dir)
    base = getattr(sys, "_base_executable", None) if python == sys.executable else None  # what made the venv
    make = (
        f"{shlex.quote(base or 'python3')} -m venv {shlex.quote(venv)} && "
        if os.path.basename(bin_dir) == "bin" and os.path.isfile(os.path.join(venv, "pyvenv.cfg"))
        else ""
    )
    pip = f"{shlex.quote(python)} -m pip install {install_source()}"
    return f"{make}{pip} && {shlex.quote(os.path.join(bin_dir, 'ds-gate'))} install"


def _value(line: str) -> str | None:
    """The value of an assignment line ``VARIABLE=...`` as install writes it (the value alone,
    ``shlex.quote``d or in single quotes), else None: ``'/x'$(true)`` is one shell word too."""
    spelled = line.partition("=")[2]
    try:
        words = shlex.split(spelled)
    except ValueError:
        return None
    return words[0] if len(words) == 1 and spelled in (shlex.quote(words[0]), f"'{words[0]}'") else None


def hook_python(text: str) -> str | None:
    """The interpreter a hook script's first ``DS_GATE_PYTHON=`` line names, or None (none as install writes it)."""
    return next((_value(line) for line in text.splitlines() if line.startswith("DS_GATE_PYTHON=")), None)


def pins_problem(text: str) -> str | None:
    """Why a hook's pins cannot be vouched for, else None. ``as_installed`` sets them aside, and
    they are quest-written: a copy of the hook pinning a file the agent wrote (or none) trusts
    what the agent chose. Doctor runs from the user's shell, whose places are the ones to pin."""
    for variable, place in pins().items():
        named = next((_value(line) for line in text.splitlines() if line.startswith(f"{variable}=")), None)
        if named != place:
            return f"pins {variable}={named}, but ds-gate here trusts {place}"
    return None


def interpreter_problem(python: str | None) -> str | None:
    """Why the interpreter a hook names cannot be vouched for, else None. ``as_installed`` sets
    it aside (each user's differs), and it is quest-written: ``/bin/true`` or an ``exit 0`` script
    in ``.git/info`` passes every commit. Judged by where it lies and what it is, never by running it."""
    if not python or not os.path.isabs(python) or not os.path.exists(real := os.path.realpath(python)):
        return "which is gone (its virtual environment was deleted?): only commits that may finalize are blocked, unchecked"
    if (where := agent_writable(python)) is not None:
        return f"which lies in {where}, where the agent can write: it runs in place of ds-gate, unchecked"
    if not os.path.isfile(real) or not os.access(real, os.X_OK) or not os.path.basename(real).startswith("python"):
        return f"which is {real}, not a Python interpreter: it runs in place of ds-gate, and finalization commits pass"
    return None


def as_installed(name: str, text: str) -> bool:
    """Whether ``text`` is, byte for byte, the hook ``install`` writes now, with the hook's own
    interpreter and pins put back: the marker alone proves nothing, a copy with ``exit 0``
    added carries it too. A hook an older ds-gate wrote differs as well (reinstall heals both)."""
    lines = text.split("\n")
    values: dict[str, str] = {}
    for i, line in enumerate(lines):
        variable = line.partition("=")[0]
        if variable in ("DS_GATE_PYTHON", "DS_GATE_REINSTALL", *pins()) and variable not in values:
            value = _value(line)
            if value is None:
                return False
            values[variable] = value
            lines[i] = f"{variable}={shlex.quote(value)}"  # the spelling _script gives it
    python, reinstall = values.pop("DS_GATE_PYTHON", None), values.pop("DS_GATE_REINSTALL", None)
    return (
        python is not None
        and set(values) == set(pins())
        # the reinstall line is printed to the user as the fix: only the one install writes for this python
        and reinstall in (None, reinstall_command(python), reinstall_command(sys.executable))
        and "\n".join(lines) == _script(name, python, values, reinstall)
    )


def _hook_text(hook: Path) -> str:
    """One over the size limit is not ds-gate's (it is chained, unread)."""
    try:
        return fs.read_file(hook).decode("utf-8", "replace")
    except fs.TooLarge:
        return ""


def write_hook(folder: Path, name: str) -> Path:
    """Write hook ``name`` into ``folder`` atomically, executable; its path."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(_script(name))
    os.chmod(tmp, 0o755)
    os.replace(tmp, folder / name)
    return folder / name


def install(quest: Path | str) -> list[Installed]:
    root, folder = hooks_dir(quest)
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for name in HOOKS:
        hook, kept = folder / name, folder / f"{name}{CHAIN_SUFFIX}"
        present = hook.exists() or hook.is_symlink()
        updated = present and hook.is_file() and MARKER in _hook_text(hook)
        chained = kept if updated and kept.exists() else None
        if present and not updated:
            if kept.exists() or kept.is_symlink():
                raise QuestError(
                    f"{hook} is not ds-gate's and {kept.name} already exists; merge them by hand, "
                    f"then run ds-gate install again"
                )
            os.replace(hook, kept)
            chained = kept
        if updated and _hook_text(hook) == _script(name) and os.access(hook, os.X_OK):
            done.append(Installed(root, hook, updated, chained, unchanged=True))
            continue
        done.append(Installed(root, write_hook(folder, name), updated, chained))
    return done


def uninstall(quest: Path | str) -> list[str]:
    """Take ds-gate's hooks out of a quest: each hook of ours removed, or replaced by the hook
    ``install`` kept beside it (``<name>.ds-gate-chained``), as it was; a hook not ours is left.
    What was done, a line per hook."""
    _, folder = hooks_dir(quest)
    said = []
    for name in HOOKS:
        hook, kept = folder / name, folder / f"{name}{CHAIN_SUFFIX}"
        if not (hook.is_file() and not hook.is_symlink() and MARKER in _hook_text(hook)):
            if os.path.lexists(hook):
                said.append(f"left {hook}: it is not ds-gate's")
            continue
        if os.path.lexists(kept):
            os.replace(kept, hook)
            said.append(f"restored {hook}: the hook it chained (was {kept.name})")
        else:
            hook.unlink()
            said.append(f"removed {hook}")
    return said


def install_home(home: Path | str) -> tuple[list[Installed], list[str], list[str]]:
    """Every quest under ``<home>/quests``: (installed, skipped, failures)."""
    quests_dir = Path(home).expanduser() / "quests"
    if not os.path.isdir(quests_dir):
        raise QuestError(f"{quests_dir} does not exist; --home takes a DeepScientist home (the folder holding quests/)")
    installed: list[Installed] = []
    skipped: list[str] = []
    failed: list[str] = []
    home_real = Path(os.path.realpath(quests_dir.parent))
    try:
        quests = sorted(Path(e.path) for e in os.scandir(quests_dir) if e.is_dir())
    except OSError as exc:
        raise QuestError(f"cannot list {quests_dir}: {exc.strerror or exc}") from exc
    for quest in quests:
        real = Path(os.path.realpath(quest))
        if quest.is_symlink() and not is_inside(home_real, real):
            skipped.append(f"skipped {quest}: a symbolic link to {real}, outside the home (not followed)")
            continue
        if not os.path.lexists(quest / ".git"):
            skipped.append(f"skipped {quest}: not a git repository")
            continue
        try:
            installed.extend(install(quest))
        except QuestError as exc:
            failed.append(str(exc))
    return installed, skipped, failed
