"""``GateOptions``: what one gate run needs, however it was asked for (CLI flags or pytest options).

One shape for whichever surface asked, so each surface's rules (pytest's precedence of
options over ini values, ``candidates`` having no ``--require``) live in one constructor
and the engine is called the same way: the gate commands' ``GateCommand`` and the pytest
plugin take one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ds_gate.cli._shared import FORMATS
from ds_gate.cli.flags import PYTEST, Default
from ds_gate.config.quest import from_quest, read_defaults
from ds_gate.config.settings import load
from ds_gate.kernel.errors import QuestError
from ds_gate.reporters import registry as reporters
from ds_gate.sources.location import Location, locate
from ds_gate.sources.memory import HOME_VARIABLES

if TYPE_CHECKING:
    import argparse

    import pytest

    from ds_gate.engine.quest_config import QuestConfig


@dataclass(frozen=True, slots=True)
class GateOptions:
    paths: tuple[Path | str, ...]  # CLI: the one path as given; pytest: quests or homes, ini ones relative to the ini file
    home: str | None = None
    require: bool = False
    source: str = "auto"  # auto, folders, git or both (sources.select.SOURCES)
    refs: tuple[str, ...] | None = None  # None: the source's default refs
    format: str = "text"
    cache: bool = True  # the record cache in the user's cache folder (--no-cache)
    no_require: bool = False  # --no-require: the gate is off even where experience_distill is on (trusted only)
    accept_quest_waivers: bool = False  # --accept-quest-waivers: the quest's own waivers may lower the verdict
    config: str | None = None  # --config FILE: the trusted configuration file (else $DS_GATE_CONFIG, the user's)

    @classmethod
    def from_args(cls, args: argparse.Namespace, location: Location | None = None,
                  config: QuestConfig | None = None) -> GateOptions:
        """A flag the caller gave wins; else the trusted configuration's value (``--config``,
        ``$DS_GATE_CONFIG``, the user's file: ``ds_gate.config.settings``); else what the quest's own
        files say where it cannot lower a verdict (``config.from_quest``); else ds-gate's.
        ``candidates`` has no ``--require``/``--home`` (it never fails), so they default here.
        Not a quest is a QuestError (exit 2), as the gate's. ``location``/``config``: the quest
        located and its configuration read already (the gate run uses the same ones)."""
        config_file = getattr(args, "config", None)
        trusted, quest = load(config_file).values, _quest_settings(location or args.path, config)
        flag_require = getattr(args, "require", None)
        require = flag_require is True or (flag_require is None and (
            trusted.get("require") is True or ("require" not in trusted and quest.get("require") is True)))
        return cls(
            paths=(args.path,),
            home=getattr(args, "home", None) or (None if _home_from_environment() else trusted.get("home")),
            require=require if hasattr(args, "require") else False,
            source=_given(args.source, trusted.get("source", quest.get("source", "auto"))),
            refs=tuple(args.refs) if args.refs else tuple(trusted["refs"]) if "refs" in trusted else None,
            format=_checked_format(_given(args.format, trusted.get("format", quest.get("format", "text")))),
            cache=not getattr(args, "no_cache", False),
            no_require=flag_require is False,
            accept_quest_waivers=bool(getattr(args, "accept_quest_waivers", False)),
            config=config_file,
        )

    @classmethod
    def from_pytest(cls, config: pytest.Config) -> GateOptions:
        """Options win over ini values (a command line overrides the project's defaults); ini
        paths are relative to the ini file (pytest's ``paths`` ini type resolves them)."""
        def option(field: str) -> Any:
            return config.getoption(f"ds_gate_{field}")

        def ini(field: str) -> Any:
            return config.getini(PYTEST[field]["ini"])

        require = option("require")
        no_require = bool(option("no_require"))
        return cls(
            paths=tuple(Path(p) for p in option("paths") or []) or tuple(Path(p) for p in ini("paths")),
            home=option("home") or ini("home") or None,
            require=not no_require and bool(ini("require") if require is None else require),
            source=option("source") or ("git" if ini("source") else "auto"),
            refs=tuple(option("refs")) or None,
            cache=not option("no_cache"),
            no_require=no_require,
            accept_quest_waivers=bool(option("accept_quest_waivers") or ini("accept_quest_waivers")),
        )


def configured_source(args: argparse.Namespace, location: Location | None = None
                      ) -> tuple[str, tuple[str, ...] | None]:
    """(source, refs) for a command that reads artifacts but is no gate (``recent``): as the
    gate's, so that what it lists is what ``closure`` judges."""
    trusted, quest = load(getattr(args, "config", None)).values, _quest_settings(location or args.path)
    refs = tuple(args.refs) if args.refs else tuple(trusted["refs"]) if "refs" in trusted else None
    return _given(args.source, trusted.get("source", quest.get("source", "auto"))), refs


def _quest_settings(path: Path | str | Location, config: QuestConfig | None = None) -> dict[str, Any]:
    """What the quest's own files say that may apply (never what would lower a verdict): from
    ``config`` when the caller read it, else read at the quest ``path`` lies in."""
    if config is not None:
        return from_quest(config.defaults)[0]
    root = path.root if isinstance(path, Location) else locate(path).root
    return from_quest(read_defaults(root))[0]


def _given(flag: Any, configured: Any) -> Any:
    """The flag's value when the caller gave the flag, else the configured default."""
    return configured if flag is None or isinstance(flag, Default) else flag


def _home_from_environment() -> bool:
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
        raise QuestError(f"format {name!r} of the quest's configuration: {exc}") from None
    return name
