"""A stop (exit 2: usage, or a quest the gate cannot see) in the format the caller chose, so a CI
step that redirects ``--format sarif`` into a file, or reads GitHub annotations or a Markdown step
summary, shows why it stopped and the fix instead of nothing (issue 39).

Text says it as one line on stderr (docs/fail-closed.md), JSON as its error object; SARIF as a run
whose invocation did not succeed, with the message and the fix in a ``toolExecutionNotifications``
entry; GitHub as an ``::error`` annotation; Markdown as the summary table's row.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ds_gate.kernel.errors import FIX
from ds_gate.kernel.version import __version__
from ds_gate.reporters.escape import json_text, md, printable, workflow_data, workflow_property
from ds_gate.reporters.registry import GITHUB, JSON, MARKDOWN, SARIF
from ds_gate.reporters.shared import COLUMNS, INFORMATION_URI, SARIF_SCHEMA

STOP_ID = "ds-gate.stop"  # the notification's descriptor: a stop is no rule's finding, and never waived


@dataclass(frozen=True, slots=True)
class Stop:
    """What a command that stopped says, its command and exit code. ``cause`` and ``fix`` come apart
    from where the stop was raised (``QuestError``'s), never cut from the message, which may quote
    the quest's text; ``fix`` None: it names none. ``message``: the two as the stop words them."""

    command: str | None
    cause: str
    exit_code: int = 2
    where: str | None = None  # the quest or path the command was given, when it had one
    fix: str | None = None
    joint: str = FIX  # what the message puts between the cause and the fix

    @property
    def message(self) -> str:
        return self.cause if self.fix is None else f"{self.cause}{self.joint}{self.fix}"

    def as_dict(self) -> dict[str, Any]:
        """The JSON error object (``schema_version`` 1; ``fix`` is additive)."""
        return {
            "schema_version": 1,
            "command": self.command,
            "ok": False,
            "error": self.message,
            "fix": self.fix,
            "exit_code": self.exit_code,
        }


def _sarif(stop: Stop) -> str:
    notification: dict[str, Any] = {"level": "error", "message": {"text": stop.message}, "descriptor": {"id": STOP_ID}}
    if stop.fix:
        notification["properties"] = {"fix": stop.fix}
    run = {
        "tool": {"driver": {"name": "ds-gate", "version": __version__, "informationUri": INFORMATION_URI}},
        "results": [],
        "invocations": [
            {
                "executionSuccessful": False,
                "exitCode": stop.exit_code,
                "toolExecutionNotifications": [notification],
                "properties": {"command": stop.command},
            }
        ],
    }
    return json_text({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}) + "\n"


def _github(stop: Stop) -> str:
    title = f"ds-gate {stop.command or ''}".rstrip() + f": stopped (exit {stop.exit_code})"
    text = printable(stop.cause) + (f"\nfix: {printable(stop.fix)}" if stop.fix else "")
    return f"::error title={workflow_property(printable(title))}::{workflow_data(text)}\n"


def _markdown(stop: Stop) -> str:
    """The all-quests table's row for a quest that could not be judged: ``unreadable``, the cause and fix below."""
    name = md(os.path.basename(os.path.abspath(stop.where or ".")) or "/")
    lines = [
        f"### ds\\-gate {md(stop.command or '')}: STOPPED (exit {stop.exit_code})",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|---|---|--:|--:|--:|---|",
        f"| {name} | – | – | – | – | ⚠️ unreadable |",
        "",
        f"- cannot read: {md(stop.cause)}",
    ]
    if stop.fix:
        lines.append(f"- fix: {md(stop.fix)}")
    return "\n".join(lines) + "\n"


def _json(stop: Stop) -> str:
    return json_text(stop.as_dict()) + "\n"


RENDER = {SARIF: _sarif, GITHUB: _github, MARKDOWN: _markdown, JSON: _json}


def render_stop(stop: Stop, fmt: str) -> str | None:
    """The stop as ``fmt`` prints it on stdout (or ``--output``); None for text, and for a plugin's
    format, which say it as one line on stderr."""
    render = RENDER.get(fmt)
    return render(stop) if render is not None else None
