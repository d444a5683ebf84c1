"""``ds-gate install --template``: guard the quests created from now on, not only today's.

DeepScientist creates each quest with ``git init``, which copies ``init.templateDir`` into the
new ``.git``; so ds-gate writes its hooks into a template folder of its own and points the user's
global ``init.templateDir`` there (only on this opt-in, never over another folder without
``--force``). Not ``core.hooksPath``: that would make every repository of the user run one
folder's hooks, and the pre-commit framework refuses to install where it is set.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import text_or_none
from ds_gate.kernel.git import GitError, git
from ds_gate.model.reports import OK, WARN, Check
from ds_gate.setup.install import HOOKS, MARKER, hook_python, write_hook

KEY = "init.templateDir"


class TemplateInstall(NamedTuple):
    folder: Path
    hooks: list[Path]
    previous: str | None  # init.templateDir before (None: unset)


def template_dir() -> Path:
    """In the user's data folder, never a quest or a home."""
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share") / "ds-gate" / "git-template"


def configured_template() -> str | None:
    try:
        value = git(["config", "--global", "--get", KEY], Path.home() if Path.home().is_dir() else "/")
    except GitError:  # exit 1: unset
        return None
    return os.fsdecode(value).strip() or None


def same_folder(configured: str | None, folder: Path) -> bool:
    if configured is None:
        return False
    return os.path.realpath(os.path.expanduser(configured)) == os.path.realpath(folder)


def install_template(*, force: bool = False) -> TemplateInstall:
    """A different template folder already configured is refused (exit 2) unless ``force``:
    it may hold the user's own hooks, which git would then stop copying."""
    folder = template_dir()
    previous = configured_template()
    if previous is not None and not same_folder(previous, folder) and not force:
        raise QuestError(
            f"your git configuration already sets {KEY} = {previous}; ds-gate does not replace it. Copy "
            f"ds-gate's hooks into {previous}/hooks yourself (ds-gate install --template --force writes them to "
            f"{folder} and points {KEY} there instead)"
        )
    hooks = folder / "hooks"
    try:
        hooks.mkdir(parents=True, exist_ok=True)
        written = [write_hook(hooks, name) for name in HOOKS]
    except OSError as exc:
        raise QuestError(f"cannot write the template folder {folder}: {exc.strerror or exc}") from exc
    if not same_folder(previous, folder):
        try:
            git(["config", "--global", KEY, str(folder)], folder)
        except GitError as exc:
            raise QuestError(f"git config --global {KEY} {folder} failed: {exc}") from exc
    return TemplateInstall(folder, written, previous)


def describe(done: TemplateInstall) -> list[str]:
    notes = [f"wrote {hook}" for hook in done.hooks]
    if same_folder(done.previous, done.folder):
        notes.append(f"{KEY} already points at {done.folder}: your git configuration is unchanged")
    else:
        was = f"it was {done.previous}" if done.previous else "it was unset"
        notes.append(f"changed your global git configuration: git config --global {KEY} {done.folder} ({was})")
    notes.append(
        "every repository created or cloned from now on (git init, git clone: DeepScientist's new quests) "
        "gets a copy of these hooks; existing repositories are unchanged (ds-gate install --home for them)"
    )
    keep = done.previous is not None and not same_folder(done.previous, done.folder)
    undo = f"git config --global {KEY} {done.previous}" if keep else f"git config --global --unset {KEY}"
    notes.append(f"to undo: {undo}")
    return notes


def template_status() -> Check:
    """Doctor's "new quests" line: what ``git init`` gives a new quest. ``$GIT_TEMPLATE_DIR`` beats the setting."""
    variable = os.environ.get("GIT_TEMPLATE_DIR", "").strip()
    configured = variable or configured_template()
    how = "$GIT_TEMPLATE_DIR" if variable else KEY
    opt_in = "ds-gate install --template"
    if configured is None:
        return Check(
            "new quests",
            OK,
            f"new quests get no hook until `ds-gate install` is run on them ({KEY} is unset; the opt-in "
            f"`{opt_in}` covers quests created later)",
        )
    text = text_or_none(Path(os.path.expanduser(configured)) / "hooks" / "pre-commit") or ""
    if MARKER not in text:
        return Check(
            "new quests",
            OK,
            f"{how} is {configured}, which holds no ds-gate hook: new quests get no hook until `ds-gate install`",
            f"{opt_in} (--force to replace {configured})",
        )
    python = hook_python(text)
    if python and os.access(python, os.X_OK):
        return Check("new quests", OK, f"new quests get ds-gate's hook from {configured} ({how}), run by {python}")
    return Check(
        "new quests",
        WARN,
        f"new quests get ds-gate's hook from {configured} ({how}), but it names {python}, which is gone: "
        "their commits that may finalize are blocked unchecked",
        opt_in,
    )
