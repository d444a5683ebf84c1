"""``validate-review``: what closure would say about a distill review payload before it is recorded."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ds_gate.agent.tools import validate_distill_review
from ds_gate.cli._shared import EXIT_FAILED, EXIT_OK, write, write_file
from ds_gate.kernel import fs
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.jsondoc import line_of, loads
from ds_gate.reporters.escape import json_text, printable
from ds_gate.reporters.registry import JSON

if TYPE_CHECKING:
    import argparse
    from typing import Any


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("file", metavar="FILE", help="the payload artifact.record would take, as a JSON file; - reads stdin")
    p.add_argument(
        "--quest",
        default=".",
        metavar="PATH",
        help="the workspace it would be recorded from: any path inside the quest (default: .)",
    )
    p.add_argument("--home", help="the DeepScientist home, for the global cards it names")


def run(args: argparse.Namespace) -> int:
    """0 when the review would cover its runs with no error, 1 when not, 2 for an unreadable payload."""
    name = "standard input" if args.file == "-" else args.file
    try:
        raw = sys.stdin.buffer.read(fs.max_file_bytes() + 1) if args.file == "-" else fs.read_file(args.file)
        if len(raw) > fs.max_file_bytes():
            raise QuestError(f"{name} is larger than {fs.MAX_FILE_VARIABLE} allows")
        payload = loads(raw)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise QuestError(f"cannot read a review payload from {name}: {getattr(exc, 'strerror', None) or exc}") from None
    answer = validate_distill_review(args.quest, payload, args.home)
    text = json_text(answer) + "\n" if args.format == JSON else _text(answer, name, raw)
    if args.output:
        write_file(args.output, text)
    elif sys.stdout is not None:
        write(sys.stdout, text, "utf-8" if args.format == JSON else None)
    return EXIT_OK if answer["ok"] else EXIT_FAILED


def _text(answer: dict[str, Any], name: str, raw: bytes) -> str:
    """The answer for a person: a finding about the review is cited in the payload's own file
    (``review.json:4``), the record main would write (``report-<new>.json``) not existing yet."""
    covers = ", ".join(answer["covers"]) or "no run"
    head = (
        f"ds-gate validate-review: {'OK' if answer['ok'] else 'REJECTED'} - {name} would cover {covers}; "
        f"{counted(answer['pending_after_count'], 'completed run')} pending after it"
    )
    lines = [head]
    for f in answer["findings"]:
        where = _payload_place(f, name, raw) if f["path"] == answer["path"] else f["path"]
        where = f"{where}:{f['line']}" if f["line"] and f["path"] != answer["path"] else where
        lines.append(printable(f"{where}: {f['severity']} [{f['rule']}] {f['message']}"))
        if f["hint"]:
            lines.append(printable(f"  hint: {f['hint']}"))
    lines.extend(printable(f"note: {note}") for note in answer["notes"])
    return "\n".join(lines) + "\n"


def _payload_place(finding: dict[str, Any], name: str, raw: bytes) -> str:
    """``name:line`` of the finding's JSON pointer in the payload (the payload's keys are the
    record's top-level keys), ``name`` alone where the pointer is not in it (a field main adds)."""
    parts: list[str | int] = [
        int(p) if p.isdigit() else p.replace("~1", "/").replace("~0", "~") for p in finding["pointer"].split("/")[1:]
    ]
    line = line_of(raw.decode("utf-8", "replace"), parts) if parts else None
    return f"{name}:{line}" if line is not None else name
