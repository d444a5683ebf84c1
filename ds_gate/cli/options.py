"""The command line's ``GateOptions``: a flag the caller gave, else the trusted configuration
(``config.settings``), else the quest's where it cannot lower a verdict, else ds-gate's default.
``closure QUEST`` and ``--all-quests`` both build each quest's options here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ds_gate.cli._shared import Default
from ds_gate.config.quest import from_quest
from ds_gate.config.settings import load
from ds_gate.engine.options import GateOptions
from ds_gate.kernel.errors import QuestError, shown
from ds_gate.kernel.places import HOME_VARIABLES
from ds_gate.reporters import registry as reporters
from ds_gate.reporters.registry import FORMATS, TEXT

if TYPE_CHECKING:
    import argparse

    from ds_gate.config.quest import QuestConfig


def gate_options(args: argparse.Namespace, config: QuestConfig) -> tuple[GateOptions, str]:
    """(the gate's options, the output format) for one quest. ``candidates`` has no
    ``--require``/``--home`` (it never fails), so they default here."""
    trusted, quest = load(args.config).values, from_quest(config.defaults)[0]
    flag_require = getattr(args, "require", None)
    require = flag_require is True or (
        flag_require is None
        and (trusted.get("require") is True or ("require" not in trusted and quest.get("require") is True))
    )
    source, refs = _source(args, trusted, quest)
    options = GateOptions(
        require=require if hasattr(args, "require") else False,
        no_require=flag_require is False,
        home=getattr(args, "home", None) or (None if home_from_environment() else trusted.get("home")),
        source=source,
        refs=refs,
        cache=not args.no_cache,
        accept_quest_waivers=bool(getattr(args, "accept_quest_waivers", False)),
        config=args.config,
    )
    return options, _checked_format(_given(args.format, trusted.get("format", quest.get("format", TEXT))))


def configured_source(args: argparse.Namespace, config: QuestConfig) -> tuple[str, tuple[str, ...] | None]:
    """(source, refs) for ``recent``, as the gate's: what it lists is what ``closure`` judges."""
    return _source(args, load(getattr(args, "config", None)).values, from_quest(config.defaults)[0])


def _source(
    args: argparse.Namespace, trusted: dict[str, Any], quest: dict[str, Any]
) -> tuple[str, tuple[str, ...] | None]:
    refs = tuple(args.refs) if args.refs else tuple(trusted["refs"]) if "refs" in trusted else None
    return _given(args.source, trusted.get("source", quest.get("source", "auto"))), refs


def _given(flag: Any, configured: Any) -> Any:
    return configured if flag is None or isinstance(flag, Default) else flag


def home_from_environment() -> bool:
    """``$DEEPSCIENTIST_HOME``/``$DS_HOME`` name the home the user runs now, which the
    trusted configuration's ``home`` does not override."""
    return any(os.environ.get(name, "").strip() for name in HOME_VARIABLES)


def _checked_format(name: str) -> str:
    """A configured format no reporter offers is a usage error (exit 2), as ``--format`` is."""
    if name in FORMATS:
        return name
    try:
        reporters.get(name)
    except ValueError as exc:
        raise QuestError(f"format {shown(name)} of the quest's configuration: {exc}") from None
    return name
