"""The output formats, in one table: reporters turn a ``Report`` into text, and nothing else in ds-gate formats output.

Each format is named here once; a plugin adds its own through ``ds_gate_reporters``. A reporter's
module is imported when its format is asked for, so a command that prints nothing loads none.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from ds_gate.kernel.errors import shown
from ds_gate.model.reports import Report

TEXT, JSON, GITHUB, SARIF, MARKDOWN = "text", "json", "github", "sarif", "markdown"
BUILTIN = (TEXT, JSON, GITHUB, SARIF, MARKDOWN)
# The formats every report renders in: each command that renders a gate report offers them (and a
# plugin's). Markdown is for a CI step summary ($GITHUB_STEP_SUMMARY).
FORMATS = (TEXT, JSON, GITHUB, SARIF, MARKDOWN)


class Reporter(Protocol):
    def render(self, report: Report) -> str: ...


def reporter_class(name: str) -> type[Reporter] | None:
    """A built-in format's reporter class, its module imported now; None for a name not built in."""
    if name == TEXT:
        from ds_gate.reporters.text import TextReporter

        return TextReporter
    if name == JSON:
        from ds_gate.reporters.json import JsonReporter

        return JsonReporter
    if name == GITHUB:
        from ds_gate.reporters.github import GithubReporter

        return GithubReporter
    if name == SARIF:
        from ds_gate.reporters.sarif import SarifReporter

        return SarifReporter
    if name == MARKDOWN:
        from ds_gate.reporters.summary import MarkdownReporter

        return MarkdownReporter
    return None


def available() -> dict[str, Any]:
    """Every format by name: the built-in ones and those plugins add (``ds_gate_reporters``), which may
    override. The plugin manager (with the rules and configuration it loads) is imported here, so a
    command printing a built-in format (``recall``, ``recent``) loads none of it."""
    from ds_gate.plugins.manager import hooks

    found: dict[str, Any] = dict.fromkeys(BUILTIN)
    for offered in reversed(hooks().ds_gate_reporters()):
        found.update(offered or {})
    return found


def get(name: str) -> Reporter:
    """The reporter of format ``name``: a built-in one needs no plugin manager (the commit hook prints with them)."""
    target: Any = reporter_class(name) or available().get(name)
    if target is None:
        raise ValueError(f"unknown format {shown(name)}; expected one of: {', '.join(sorted(available()))}")
    if isinstance(target, str):  # a plugin's "module:Class", imported when asked for (hookspecs.ds_gate_reporters)
        module, _, cls = target.partition(":")
        target = getattr(importlib.import_module(module), cls)
    return target()  # type: ignore[no-any-return]
