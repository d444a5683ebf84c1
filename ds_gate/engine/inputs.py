"""What a caller asks of one gate run (``GateInputs``), apart from the engine that runs it.

``GateInputs.asked`` maps a command's parsed options onto them in one place, so ``closure
QUEST`` and ``closure --all-quests`` ask each quest the same, and a new option is added once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ds_gate.model.findings import Finding
from ds_gate.model.reports import SCOPES, Scope

COMMANDS = ("check", "closure", "candidates")


def scope_of(command: str | Scope) -> Scope:
    """The ``Scope`` a command names (``check``, ``closure``, ``candidates``), or the one given."""
    scope = command if isinstance(command, Scope) else SCOPES.get(command) if command in COMMANDS else None
    if scope is None:
        raise ValueError(f"unknown command {command!r}; expected one of {COMMANDS}")
    return scope


class GateAsks(Protocol):
    """The options a front end parsed (``cli.options.GateOptions``) that a gate run takes."""

    @property
    def require(self) -> bool: ...
    @property
    def home(self) -> str | None: ...
    @property
    def source(self) -> str: ...
    @property
    def refs(self) -> tuple[str, ...] | None: ...
    @property
    def cache(self) -> bool: ...
    @property
    def no_require(self) -> bool: ...
    @property
    def accept_quest_waivers(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class GateInputs:
    """What a caller asks of one gate run: ``evaluate``'s keywords, which say what each means."""

    scope: Scope
    require: bool = False
    home: Path | str | None = None
    source: str = "auto"
    refs: Sequence[str] | None = None
    finalization: tuple[str, ...] = ()
    staged_findings: tuple[Finding, ...] = ()
    cache: bool = True
    no_require: bool = False
    accept_quest_waivers: bool = False

    @classmethod
    def asked(cls, command: str | Scope, options: GateAsks) -> GateInputs:
        """A command's inputs from its parsed options: one mapping for every front end, so
        ``closure --all-quests`` asks each quest exactly what ``closure QUEST`` asks."""
        return cls(scope_of(command), require=options.require, home=options.home, source=options.source,
                   refs=options.refs, cache=options.cache, no_require=options.no_require,
                   accept_quest_waivers=options.accept_quest_waivers)
