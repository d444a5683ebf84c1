"""Reporters turn a ``Report`` into text; nothing else in ds-gate formats output.

Picked by name (``--format``); each is a small class with ``render(report) -> str``.
Imports are lazy so the commit hook's fast path loads none of them.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from ds_gate.model.reports import Report
from ds_gate.plugins.builtin import REPORTERS
from ds_gate.plugins.manager import hooks

NAMES = ("text", "json", "github", "sarif")


class Reporter(Protocol):
    def render(self, report: Report) -> str: ...


def available() -> dict[str, Any]:
    """Every format by name: the built-in ones and those plugins add (``ds_gate_reporters``)."""
    found: dict[str, Any] = {}
    for offered in reversed(hooks().ds_gate_reporters()):  # built-in first, plugins may override
        found.update(offered or {})
    return found


def get(name: str) -> Reporter:
    """Built-in formats need no plugin manager (the commit hook prints with them)."""
    target: Any = REPORTERS.get(name)
    if target is None:
        target = available().get(name)
    if target is None:
        raise ValueError(f"unknown format {name!r}; expected one of: {', '.join(sorted(available()))}")
    if isinstance(target, str):
        module, _, cls = target.partition(":")
        target = getattr(importlib.import_module(module), cls)
    return target()  # type: ignore[no-any-return]
