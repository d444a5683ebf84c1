"""``ds-gate doctor``: is this quest guarded, and what to fix if not.

Each check is one line, ok / warn / fail, with the fix; doctor reads as the gate reads and
writes nothing. The cases are those users met (docs/hooks.md).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ds_gate.config.settings import shown_config_path
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.places import HOME_VARIABLES
from ds_gate.model.records import DECISION_ENCODING
from ds_gate.model.reports import FAIL, OK, WARN, Check
from ds_gate.plugins.manager import review_encoding_for
from ds_gate.setup.doctor_hooks import framework_config_checks, hook_checks, worktree_checks
from ds_gate.setup.doctor_integration import integration_check
from ds_gate.setup.doctor_pre_commit import CONFIG
from ds_gate.setup.doctor_settings import settings_checks
from ds_gate.setup.template import template_status
from ds_gate.sources.clone import blindness
from ds_gate.sources.fixes import git_refusal_fix
from ds_gate.sources.location import locate, worktree_list
from ds_gate.sources.memory import resolve_home
from ds_gate.sources.quest_yaml import coerce_toggle, read_quest_yaml, short_repr, toggle_finding

if TYPE_CHECKING:
    from collections.abc import Callable

    from ds_gate.kernel.git import GitError


def _home(given: str | None, root: Path, configured: tuple[str, str] | None) -> Check:
    """Which home the gate reads global cards from, and which rule (``GateOptions``'s order) chose it."""
    variable = next((f"${name}" for name in HOME_VARIABLES if os.environ.get(name, "").strip()), None)
    if given:
        how = "--home"
    elif variable:
        how = variable
    elif configured is not None:
        given, how = configured
    path = resolve_home(given, root)
    if not given and not variable:
        how = (
            "the home the quest lies in"
            if root.parent.name == "quests" and path == root.parent.parent.resolve()
            else "the default ~/DeepScientist"
        )
    if os.path.isdir(path / "memory") or os.path.isdir(path / "quests"):
        return Check("home", OK, f"home {path} (from {how})")
    return Check(
        "home",
        WARN,
        f"home {path} (from {how}) does not exist: global cards a review names are not checked",
        f"pass --home DIR, set DEEPSCIENTIST_HOME, or set home in the user's configuration ({shown_config_path()})",
    )


def _toggles(root: Path) -> list[Check]:
    meta, findings = read_quest_yaml(root)
    checks = [Check("quest.yaml", WARN, f.message, f.hint) for f in findings]
    found = meta.get("startup_contract")
    contract: dict[str, object] = found if isinstance(found, dict) else {}
    for name in ("experience_distill", "recall_priors"):
        value = contract.get(name)
        problem = toggle_finding(name, value)
        if problem is not None:
            checks.append(Check(name, WARN, problem.message, problem.hint))
        elif coerce_toggle(value):
            checks.append(Check(name, OK, f"{name} is on ({short_repr(value)})"))
        else:
            gate = (
                "; the closure gate is off for this quest (ds-gate closure --require enforces it)"
                if name == "experience_distill"
                else ""
            )
            said = "not set" if value is None else short_repr(value)  # not "(None)": the quest does not say it
            checks.append(
                Check(
                    name,
                    WARN if gate else OK,
                    f"{name} is off ({said}){gate}",
                    f"startup_contract: {{{name}: on}} in quest.yaml" if gate else None,
                )
            )
    return checks


def _clone(root: Path, ci: bool) -> Check:
    """In CI a clone that lacks branches fails: the job's ``closure`` stops on it (exit 2)."""
    found = blindness(root)
    if found is None:
        return Check("clone", OK, "every branch is visible (not a shallow or single-branch clone)")
    blind, fix = found
    status = FAIL if ci else WARN
    return Check(
        "clone", status, f"{blind}: runs on the branches it lacks are invisible, so closure stops (exit 2)", fix
    )


CI_VALUES_OFF = ("", "0", "false", "no", "off")


def in_ci(flag: bool | None) -> bool:
    """``--ci``/``--no-ci``, else the ``CI`` variable every CI service sets (GitHub Actions, GitLab: ``true``)."""
    return flag if flag is not None else os.environ.get("CI", "").strip().lower() not in CI_VALUES_OFF


def _not_weighed(check: Check) -> Check:
    """A hook check in CI: no commit or push is made in a CI clone, so a missing or stale hook is no failure there."""
    if check.status == OK:
        return check
    return Check(check.name, OK, f"not needed in CI (no commit is made here): {check.message}", check.fix)


def _encoding(root: Path) -> Check:
    message = (
        "reviews are asked for as decision(action='distill_review') (the RFC's, "
        "PR #60): .ds-gate.yaml or a plugin lists the action"
        if review_encoding_for(root) == DECISION_ENCODING
        else "reviews are asked for as report(report_type='distill_review'), what "
        "DeepScientist main accepts; a fork with PR #60 lists decision_actions: [distill_review] in "
        ".ds-gate.yaml"
    )
    return Check("review encoding", OK, message)


def _closure(stop: QuestError | GitError | None) -> Check:
    """In CI, whether the job's ``closure`` stops here (exit 2), with its own cause and fix: ``stop`` is
    what closure's own steps raised (``cli.check.closure_stop``), never a list of cases kept here."""
    if stop is None:
        return Check("closure", OK, "closure can read every place runs may live here (it does not stop)")
    cause, fix = (stop.cause, stop.fix) if isinstance(stop, QuestError) else (str(stop), None)
    return Check("closure", FAIL, f"closure stops here (exit 2): {cause}", fix)


def diagnose(
    path: Path | str,
    home: str | None = None,
    ci: bool = False,
    closure: Callable[[], QuestError | GitError | None] | None = None,
) -> tuple[Path, list[Check]]:
    """(quest root, checks) for any path inside a quest; not a quest is a QuestError (exit 2).
    ``ci``: weighed for a CI clone (``in_ci``): the hooks are not needed, every branch is, and
    ``closure`` (what closure stops on here, asked by the caller that may run the gate) is a check."""
    loc = locate(path)
    root = loc.root
    checks: list[Check] = []
    if ci:
        checks.append(Check("context", OK, "CI: hooks are not needed; what makes closure stop (exit 2) fails"))
    if loc.git_refused:
        error = loc.git_error or ""
        checks.append(
            Check("git", FAIL, f"git cannot read the quest ({error}): no hook can run", git_refusal_fix(root, error))
        )
    elif not loc.is_git:
        checks.append(
            Check(
                "git",
                FAIL,
                f"{root} is not a git repository: no hook can run",
                "DeepScientist creates every quest as a git repository; run doctor on one",
            )
        )
    else:
        registered = [(w.path, w.branch, w.prunable) for w in worktree_list(root) if not w.bare]
        hooks = hook_checks(root, registered)
        uses_framework = (
            os.path.lexists(root / CONFIG)
            or any(c.message.startswith("the pre-commit framework") for c in hooks)
            or any(c.name == "setups" for c in hooks)
        )
        checks += [_not_weighed(c) for c in hooks] if ci else hooks
        checks += framework_config_checks(root, registered, uses_framework)
        checks += worktree_checks(root, registered, loc.registered)
        checks.append(_clone(root, ci))
    if ci and closure is not None:
        checks.append(_closure(closure()))
    template = template_status()
    checks.append(_not_weighed(template) if ci else template)

    settings, configured_home = settings_checks(root)  # which setting came from where, trusted or not
    checks += settings
    checks.append(_home(home, root, configured_home))
    checks += _toggles(root)
    checks.append(_encoding(root))

    checks.append(integration_check(home, root))
    return root, checks
