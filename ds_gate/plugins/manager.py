"""The one PluginManager: built-in rules first, then every ``ds_gate`` entry point.

pluggy is imported only when a plugin is installed, and a hook goes through it only when an
installed plugin implements it (``_plugged``, the one seam); else the built-in function answers alone.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ds_gate.config.quest import read_quest_config
from ds_gate.kernel.entry_points import GROUP, any_installed
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.layout import MANIFEST
from ds_gate.model.records import DECISION_ENCODING, REPORT_ENCODING, REVIEW_ACTION
from ds_gate.plugins import builtin
from ds_gate.rules.cards import card_findings
from ds_gate.rules.coverage import is_completed as builtin_rule
from ds_gate.rules.patch import check_patch
from ds_gate.rules.records import check_record
from ds_gate.rules.vocabulary import DECISION_ACTIONS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    import pluggy

    from ds_gate.model.findings import Finding
    from ds_gate.model.records import Card, Document, Run


class PluginError(QuestError):
    """A plugin could not be loaded or implements a hook that does not exist."""


@functools.cache
def manager() -> pluggy.PluginManager:
    import pluggy  # kernel.lazy.LAZY_PLACES

    from ds_gate.plugins import hookspecs  # pluggy's markers, made when it loads

    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in dir(builtin):
        if name.startswith("ds_gate_"):
            hookspecs.hookimpl(getattr(builtin, name))  # marks the function in place
    pm.register(builtin, name="builtin")
    try:
        pm.load_setuptools_entrypoints(GROUP)
    except Exception as exc:
        raise PluginError(f"a ds_gate plugin failed to load: {type(exc).__name__}: {exc}") from exc
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"{exc} (check the spelling against ds_gate.plugins.hookspecs)") from exc
    return pm


def _plugged(hook_name: str) -> pluggy.HookCaller | None:
    """pluggy's caller of ``hook_name`` when an installed plugin implements it, else None."""
    if not any_installed():
        return None
    hook: pluggy.HookCaller = getattr(manager().hook, hook_name)
    return hook if any(impl.plugin_name != "builtin" for impl in hook.get_hookimpls()) else None


class _Hooks:
    """Every hook by name, answering as pluggy does: a list of answers, plugins' first."""

    def __getattr__(self, name: str) -> Callable[..., list[Any]]:
        hook = _plugged(name)
        if hook is not None:
            return hook  # a list for every hook but the firstresult one (``completed_rule`` asks it)
        impl = getattr(builtin, name, None)
        return lambda **kwargs: [] if impl is None else [impl(**kwargs)]


def hooks() -> _Hooks:
    """The hooks, called by name with keywords (``hooks().ds_gate_check_quest(quest=..., context=...)``)."""
    return _Hooks()


def completed_rule() -> Callable[[Run], bool]:
    """``run -> bool``: the first plugin's answer, else the built-in rule."""
    hook = _plugged("ds_gate_run_is_completed")
    if hook is None:
        return builtin_rule

    return lambda run: bool(hook(run=run))


def _checker(
    hook_name: str, builtin: Callable[..., list[Finding]], names: tuple[str, ...]
) -> Callable[..., list[Finding]]:
    """A check hook as one positional callable: the built-in findings, then every plugin's."""
    hook = _plugged(hook_name)
    if hook is None:
        return builtin

    def check(*args: Any) -> list[Finding]:  # pluggy answers plugins first: reversed, the built-in's come first
        return [f for found in reversed(hook(**dict(zip(names, args, strict=True)))) for f in found or []]

    return check


def _offered(hook_name: str) -> list[str]:
    return [item for found in getattr(hooks(), hook_name)() for item in found or [] if isinstance(item, str)]


def known_actions(root: Path | None = None, *, quest_actions: Iterable[str] | None = None) -> frozenset[str]:
    """The decision actions a quest's DeepScientist accepts: main's, ``distill_review``, the
    plugins' and the quest's ``.ds-gate.yaml`` (``quest_actions``, when the caller read it already)."""
    actions = set(DECISION_ACTIONS)
    actions.update(_offered("ds_gate_decision_actions"))
    actions.update(_quest_actions(root, quest_actions))
    return frozenset(actions)


def review_encoding_for(root: Path | None = None, *, quest_actions: Iterable[str] | None = None) -> str:
    """How this quest's DeepScientist records a review: the RFC's ``distill_review`` decision when a
    plugin or ``.ds-gate.yaml`` lists that action (PR #60, a fork), else main's ``report``."""
    offered = set(_offered("ds_gate_decision_actions"))
    offered.update(_quest_actions(root, quest_actions))
    return DECISION_ENCODING if REVIEW_ACTION in offered else REPORT_ENCODING


def record_checker(root: Path | None = None) -> Callable[[Document], list[Finding]]:
    """``record -> findings`` (``ds_gate_check_record``), with the actions of the quest at ``root``."""
    return keyed_record_checker(root)[0]


def _quest_actions(root: Path | None, given: Iterable[str] | None) -> Iterable[str]:
    if given is not None:
        return given
    return read_quest_config(root).actions if root is not None else ()


def keyed_record_checker(
    root: Path | None = None, *, quest_actions: Iterable[str] | None = None
) -> tuple[Callable[[Document], list[Finding]], bytes | None]:
    """``record_checker`` and what its findings depend on besides a record's bytes, name and kind,
    or None when a plugin's rules run too (a plugin may look at anything: never cached)."""
    actions = known_actions(root, quest_actions=quest_actions)
    builtin = check_record if actions == DECISION_ACTIONS else functools.partial(check_record, actions=actions)
    check = _checker("ds_gate_check_record", builtin, ("record",))
    return check, ("\0".join(sorted(actions)).encode() if check is builtin else None)


def card_checker() -> Callable[[Card], list[Finding]]:
    """``card -> findings`` (``ds_gate_check_card``)."""
    return _checker("ds_gate_check_card", card_findings, ("card",))


def patch_checker() -> Callable[[Card | None, Card, str | None], list[Finding]]:
    """``(before, after, patching quest) -> findings`` (``ds_gate_check_patch``)."""
    return _checker("ds_gate_check_patch", check_patch, ("before", "after", "patching_quest"))


def finalization_patterns() -> list[str]:
    """Glob patterns plugins add to the finalization files (the manifest is built in)."""
    return [p for p in _offered("ds_gate_finalization_patterns") if p != MANIFEST]
