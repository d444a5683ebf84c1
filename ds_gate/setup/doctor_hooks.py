"""``ds-gate doctor``'s checks of the hooks: which hook each worktree runs, whether it is ours
(as ``install`` writes it) or the framework's with ds-gate in its config, and whether every
worktree's link and branch can run it: a quest is guarded only where every worktree is.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import text_or_none
from ds_gate.kernel.git import GitError, git
from ds_gate.model.reports import FAIL, OK, WARN, Check
from ds_gate.setup.doctor_framework_script import PRE_COMMIT_MARK, framework_problems
from ds_gate.setup.doctor_pre_commit import CONFIG, SNIPPET, config_name, config_problems
from ds_gate.setup.install import (
    CHAIN_SUFFIX,
    HOOKS,
    MARKER,
    as_installed,
    hook_python,
    hooks_dir,
    interpreter_problem,
    pins_problem,
)
from ds_gate.sources.registered import Registration, forget

PRE_PUSH_ID = "ds-gate-pre-push"  # .pre-commit-hooks.yaml's id of the push gate
Registered = list[tuple[Path, str | None, bool]]  # each worktree git lists: (path, branch, prunable)


def _text(path: Path) -> str:
    return text_or_none(path) or ""


OUTDATED = '"$DS_GATE_PYTHON" -m ds_gate'  # how hooks before the fix ran ds-gate
REPINNED = (
    "a hook whose pins were changed trusts the configuration and cache its writer chose (or none), so doctor "
    "cannot vouch for its verdict. If you installed it from another environment on purpose, run doctor there"
)


def hook_checks(root: Path, registered: Registered) -> list[Check]:
    try:
        _, folder = hooks_dir(root)
    except QuestError as exc:
        return [Check("hook", FAIL, str(exc), "ds-gate install, or add ds-gate commit-check to that hooks folder")]
    checks: list[Check] = []
    install = f"ds-gate install {shlex.quote(str(root))}"
    hook = _text(folder / "pre-commit")
    chained = _text(folder / f"pre-commit{CHAIN_SUFFIX}")
    ours = MARKER in hook
    framework = PRE_COMMIT_MARK in hook or PRE_COMMIT_MARK in chained
    if ours:
        python = hook_python(hook)
        ours_now = {n: t for n in HOOKS if MARKER in (t := _text(folder / n))}  # each installed hook, read once
        changed = [name for name, text in ours_now.items() if not as_installed(name, text)]
        doubts = [  # what doctor cannot vouch for in a hook otherwise install's: its interpreter, its pins
            (n, f"names {hook_python(t)}, {why}", "reinstall from the Python you use")
            for n, t in ours_now.items()
            if (why := interpreter_problem(hook_python(t))) is not None
        ] + [
            (n, f"{why}: {REPINNED}", "reinstall from your own shell")
            for n, t in ours_now.items()
            if (why := pins_problem(t))
        ]
        if OUTDATED in hook or OUTDATED in _text(folder / "pre-push"):
            checks.append(
                Check(
                    "hook",
                    FAIL,
                    f"the hooks in {folder} run `python -m ds_gate`, which puts the worktree "
                    "first on sys.path: Python files the quest holds (a ds_gate/ folder, a json.py) "
                    "would run in the hook",
                    f"reinstall: {install}",
                )
            )
        elif changed:
            checks.append(
                Check(
                    "hook",
                    FAIL,
                    f"the {' and '.join(changed)} hook in {folder} is not what `ds-gate "
                    "install` writes (its interpreter and pins aside): the hook was changed (a line such "
                    "as `exit 0` added), or an older ds-gate wrote it; doctor cannot vouch that it runs "
                    "the gate",
                    f"reinstall: {install}",
                )
            )
        elif doubts:
            checks.append(
                Check("hook", FAIL, f"the {doubts[0][0]} hook in {folder} {doubts[0][1]}", f"{doubts[0][2]}: {install}")
            )
        else:
            checks.append(Check("hook", OK, f"ds-gate's commit hook is installed in {folder}, run by {python}"))
        for name, lost in (
            ("pre-merge-commit", "a local merge that brings the paper bundle in is not gated"),
            ("pre-push", "finalization pushes are not gated"),
        ):
            if MARKER not in _text(folder / name):
                checks.append(Check(f"{name} hook", WARN, f"no ds-gate {name} hook: {lost}", install))
    elif PRE_COMMIT_MARK in hook:  # a framework script kept as chained runs only from ds-gate's own hook
        tops = [root, *(p for p, _, prunable in registered if not prunable and os.path.isdir(p))]
        problems = config_problems(tops, config_name(hook))
        scripts = framework_problems(folder, tops)
        if scripts or any(fails for fails, _ in problems):  # the framework's hook runs what the config lists
            checks.append(
                Check(
                    "hook",
                    FAIL,
                    "the pre-commit framework's hook is installed in "
                    f"{folder}, but it does not run ds-gate's commit gate: "
                    + "; ".join([*scripts, *(m for fails, m in problems if fails)]),
                    (
                        "pre-commit install -f from your own Python, with nothing named above at a worktree's top; "
                        if scripts
                        else ""
                    )
                    + f"use {SNIPPET} and rerun pre-commit install, or (agent-driven quest) {install}",
                )
            )
        else:
            checks.append(Check("hook", OK, f"the pre-commit framework's hook is installed in {folder}"))
        checks += [
            Check("pre-commit hooks", WARN, m, f"as the message says, or the hooks as in {SNIPPET}")
            for fails, m in problems
            if not fails
        ]
        if PRE_PUSH_ID in _text(root / CONFIG) and PRE_COMMIT_MARK not in _text(folder / "pre-push"):
            checks.append(
                Check(
                    "pre-push hook",
                    FAIL,
                    f"{CONFIG} lists {PRE_PUSH_ID}, but the framework installed no "
                    "pre-push hook (plain `pre-commit install` installs the pre-commit stage only): "
                    "finalization pushes are not gated",
                    "pre-commit install --hook-type pre-push, or add "
                    f"default_install_hook_types: [pre-commit, pre-push] to {CONFIG} and rerun pre-commit install",
                )
            )
    else:
        checks.append(
            Check(
                "hook",
                FAIL,
                f"no commit hook in {folder}: finalization commits are not gated",
                install + "   (or, for a human-driven repo, pre-commit install with the config in docs/hooks.md)",
            )
        )
    checks += _worktree_hooks(folder, registered)
    checks += _skips_missing_config(folder, root)
    if ours and framework:
        checks.append(
            Check(
                "setups",
                WARN,
                "both ds-gate's hook and the pre-commit framework's are installed: the gate runs twice on every commit",
                f"keep one: remove the ds-gate hooks from {CONFIG}, or delete {folder / ('pre-commit' + CHAIN_SUFFIX)}",
            )
        )
    return checks


def _worktree_hooks(folder: Path, registered: Registered) -> list[Check]:
    """Git asked in each worktree where it runs hooks there: a ``core.hooksPath`` set for some
    worktrees only (an ``includeIf``, a ``config.worktree``) leaves the root guarded and them not."""
    elsewhere: list[str] = []
    for path, _, prunable in registered:
        if prunable or not os.path.isdir(path):
            continue  # doctor's "worktrees" check names it
        try:
            out = git(["rev-parse", "--path-format=absolute", "--git-path", "hooks"], path)
            hooks = Path(os.fsdecode(out.splitlines()[0])).resolve()
        except (GitError, IndexError) as exc:
            elsewhere.append(f"{path} (git cannot say: {exc})")
            continue
        if hooks != folder:
            elsewhere.append(f"{path} runs the hooks in {hooks}")
    if not elsewhere:
        return []
    return [
        Check(
            "worktree hooks",
            FAIL,
            f"{counted(len(elsewhere), 'worktree')} not guarded by the hooks in "
            f"{folder}: " + "; ".join(elsewhere) + " (core.hooksPath set for that worktree by the quest's git "
            "configuration: an includeIf, a config.worktree); its commits and pushes are not gated",
            "remove that core.hooksPath (`git config --show-origin --get-all core.hooksPath`, run in the "
            "worktree, names the file), then ds-gate doctor again",
        )
    ]


def _skips_missing_config(folder: Path, root: Path) -> list[Check]:
    """``pre-commit install --allow-missing-config``: on a branch made before the config was committed
    (DeepScientist makes them all the time) every commit passes with no hook run."""
    lax = [
        name
        for name in ("pre-commit", "pre-push")
        if "--skip-on-missing-config" in (text := _text(folder / name)) and PRE_COMMIT_MARK in text
    ]
    checks = []
    if lax:
        checks.append(
            Check(
                "missing config",
                FAIL,
                f"the framework's {' and '.join(lax)} hook in {folder} was installed "
                "with pre-commit's --allow-missing-config: on a branch without .pre-commit-config.yaml "
                "finalization commits pass ungated",
                "for an agent-driven quest use the plain hook: ds-gate "
                f"install {shlex.quote(str(root))}; else reinstall without the flag ("
                + "; ".join("pre-commit install" + ("" if n == "pre-commit" else " --hook-type pre-push") for n in lax)
                + f") and commit {CONFIG} on every branch",
            )
        )
    if os.environ.get("PRE_COMMIT_ALLOW_NO_CONFIG"):
        checks.append(
            Check(
                "missing config (environment)",
                WARN,
                "PRE_COMMIT_ALLOW_NO_CONFIG is set: where the "
                "framework runs, a branch without .pre-commit-config.yaml commits ungated",
                "unset PRE_COMMIT_ALLOW_NO_CONFIG",
            )
        )
    return checks


def framework_config_checks(root: Path, registered: Registered, uses: bool) -> list[Check]:
    """With the framework in use, every worktree's branch needs the config."""
    if not uses:
        return []
    missing = [
        f"{branch or path.name} ({path})"
        for path, branch, prunable in registered
        if not prunable and os.path.isdir(path) and not os.path.lexists(path / CONFIG)
    ]
    if not missing:
        return [Check("pre-commit config", OK, f"{CONFIG} is on every checked-out branch ({len(registered)})")]
    return [
        Check(
            "pre-commit config",
            FAIL,
            f"{CONFIG} is missing on {counted(len(missing), 'checked-out branch', 'checked-out branches')}: "
            + ", ".join(missing)
            + "; pre-commit fails every commit there (DeepScientist's checkpoints "
            "stop), and with --allow-missing-config finalization commits pass ungated",
            "for an agent-driven quest use the plain hook (ds-gate install), which needs no file on the "
            f"branch; else commit {CONFIG} on those branches",
        )
    ]


def worktree_checks(root: Path, registered: Registered, found: Sequence[Registration] = ()) -> list[Check]:
    """Every worktree's link intact, and every registered folder that worktree (``found``:
    ``sources.registered``'s verdict; a folder replaced by a link passes ``isdir``)."""
    broken = [str(path) for path, _, prunable in registered if prunable or not os.path.isdir(path)]  # gone, locked too
    folder = root / ".ds" / "worktrees"
    if os.path.isdir(folder):
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            text = _text(Path(entry.path) / ".git") if entry.is_dir(follow_symlinks=False) else ""
            if text.startswith("gitdir:") and not os.path.isdir(text.partition(":")[2].strip()):
                broken.append(entry.path)
    foreign = [r for r in found if r.unlike is not None and str(r.path) not in broken]
    if not broken and not foreign:
        return [Check("worktrees", OK, f"{counted(len(registered), 'worktree')}, every link intact")]
    said, fixes = [], []
    git_c = f"git -C {shlex.quote(str(root))} worktree"
    if broken:
        said.append(
            f"{counted(len(broken), 'worktree link')} broken (the quest or a worktree was moved): " + ", ".join(broken)
        )
        repair = [shlex.quote(p) for p in broken if os.path.isdir(p)]
        fixes.append(f"{git_c} repair {' '.join(repair) or '<the folder it was moved to>'}")
        kept = [
            f"`git -C {shlex.quote(str(root))} branch <name> {r.head}` first keeps {r.path}'s detached HEAD, "
            "which a prune would leave on no branch"
            for r in found
            if r.unlike is not None and r.branch is None and r.head and str(r.path) in broken
        ]
        if len(repair) < len(broken):
            fixes[-1] += f", or {git_c} prune forgets the worktrees that are gone" + (
                f" ({'; '.join(kept)})" if kept else ""
            )
    if foreign:
        said.append(
            f"{counted(len(foreign), 'registered worktree')} whose folder is not that worktree: "
            + "; ".join(f"{r.path} {r.unlike}" for r in foreign)
            + " (ds-gate never follows it: it reads that worktree's HEAD from git objects)"
        )
        fixes += [forget(root, r) for r in foreign]
        fixes[-1] += f", then `{git_c} add <path> <branch>` puts a worktree back"
    return [Check("worktrees", FAIL, "; ".join(said), "; ".join(fixes))]
