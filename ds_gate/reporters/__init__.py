"""Reporters turn a ``Report`` into text; nothing else in ds-gate formats output.

Picked by name (``--format``); each is a small class with ``render(report) -> str``.
Imports are lazy so the commit hook's fast path loads none of them.
"""

from __future__ import annotations

import importlib
from typing import Protocol

from ..model import Report

_BUILTIN = {
    "text": "ds_gate.reporters.text:TextReporter",
    "json": "ds_gate.reporters.json:JsonReporter",
    "github": "ds_gate.reporters.github:GithubReporter",
}
NAMES = tuple(_BUILTIN)


class Reporter(Protocol):
    def render(self, report: Report) -> str: ...


def get(name: str) -> Reporter:
    try:
        module, _, cls = _BUILTIN[name].partition(":")
    except KeyError:
        raise ValueError(f"unknown format {name!r}; expected one of: {', '.join(NAMES)}") from None
    return getattr(importlib.import_module(module), cls)()  # type: ignore[no-any-return]
