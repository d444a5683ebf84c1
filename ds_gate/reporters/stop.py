"""A stop (exit 2: usage, or a quest the gate cannot see) in the format the caller chose, so a CI
step that redirects ``--format sarif`` into a file, or reads GitHub annotations or a Markdown step
summary, shows why it stopped and the fix instead of nothing (issue 39).

Text says it as one line on stderr (docs/fail-closed.md), JSON as its error object; SARIF as a run
whose invocation did not succeed, with the message and the fix in a ``toolExecutionNotifications``
entry; GitHub as an ``::error`` annotation; Markdown as the summary table's row.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from ds_gate.kernel.version import __version__
from ds_gate.reporters.escape import json_text, md, printable, workflow_data, workflow_property
from ds_gate.reporters.registry import GITHUB, JSON, MARKDOWN, SARIF
from ds_gate.reporters.shared import COLUMNS, INFORMATION_URI, SARIF_SCHEMA

STOP_ID = "ds-gate.stop"  # the notification's descriptor: a stop is no rule's finding, and never waived
# where a stop's message hands over to its fix, as the stops word it (engine.unseen, engine.gate_stops,
# sources.fixes, config): a marker, else the last clause that opens with a verb of a fix
_MARKERS = (". Fix: ", "so it does not pass: ", "does not pass on the rest: ")
_FIX_CLAUSE = re.compile(
    r"(?:: |; |\. )(?=(?:pass|run|use|install|keep|restore|fix|point|replace|move|commit|delete|upgrade|remove|"
    r"quests lie below|git|clone)\b)"
)


def split_fix(message: str) -> tuple[str, str | None]:
    """(the cause, the fix) as the stop worded them; the fix None where it names none."""
    for marker in _MARKERS:
        if marker in message:  # the last: a path the quest named, quoted in the cause, may hold a marker too
            cause, fix = message.rsplit(marker, 1)
            return cause + marker.rstrip(": ").removesuffix(". Fix"), fix.strip()
    clauses = list(_FIX_CLAUSE.finditer(message))
    if not clauses:
        return message, None
    return message[: clauses[-1].start()], message[clauses[-1].end() :].strip()


@dataclass(frozen=True, slots=True)
class Stop:
    """What a command that stopped says: ``message`` whole (the cause and its fix), its command and exit code."""

    command: str | None
    message: str
    exit_code: int = 2
    where: str | None = None  # the quest or path the command was given, when it had one

    @property
    def fix(self) -> str | None:
        return split_fix(self.message)[1]

    @property
    def cause(self) -> str:
        return split_fix(self.message)[0]

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
