"""``validate``: the given artifact files and memory cards against their schemas (pre-commit passes the staged ones)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ds_gate.agent.tools import validate_distill_review
from ds_gate.cli._shared import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    emit,
    verdict,
    write,
    write_file,
)
from ds_gate.engine.documents import validate_files
from ds_gate.kernel import fs
from ds_gate.kernel.counting import counted
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.jsonout import dumps
from ds_gate.reporters.escape import json_safe, printable

if TYPE_CHECKING:
    import argparse
    from typing import Any

    from ds_gate.cli._shared import Subparsers


def register(subparsers: Subparsers, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser("validate", parents=[common],
                              help="validate the given run/decision artifact files and memory cards")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--checkpoint", action="store_true",
                   help="judge them as an ordinary checkpoint does (the pre-commit hook): errors of ds-gate's stricter "
                   "(discipline) rules are warnings, only what DeepScientist itself would refuse fails")
    p.set_defaults(handler=run)
    r = subparsers.add_parser("validate-review", parents=[common],
                              help="what closure would say about a distill review payload before it is recorded "
                              "(the MCP tool validate_distill_review)")
    r.add_argument("file", metavar="FILE", help="the payload artifact.record would take, as a JSON file; - reads stdin")
    r.add_argument("--quest", default=".", metavar="PATH",
                   help="the workspace it would be recorded from: any path inside the quest (default: .)")
    r.add_argument("--home", help="the DeepScientist home, for the global cards it names")
    r.set_defaults(handler=run_review)  # its formats: table.FORMATS_OF


@dataclass(frozen=True, slots=True)
class ValidateCommand:
    """``ds-gate validate FILE...``: the files as given, how they are judged, and where the
    report goes (``output``: the namespace's ``--format``, ``--output``, ``--color``, ``--quiet``)."""

    files: tuple[str, ...]
    checkpoint: bool
    output: argparse.Namespace

    def run(self) -> int:
        """A file that cannot be read is a usage error (exit 2), not a failed check: the caller named the wrong thing."""
        report, readable = validate_files(self.files, checkpoint=self.checkpoint)
        emit(report, self.output)
        return verdict(report) if readable else EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    return ValidateCommand(tuple(args.files), bool(args.checkpoint), args).run()


def run_review(args: argparse.Namespace) -> int:
    """0 when the review would cover its runs and raise no error, 1 when not, 2 when the payload
    cannot be read or is no review (one line naming the file)."""
    name = "standard input" if args.file == "-" else args.file
    try:
        raw = sys.stdin.buffer.read(fs.max_file_bytes() + 1) if args.file == "-" else fs.read_file(args.file)
        if len(raw) > fs.max_file_bytes():
            raise QuestError(f"{name} is larger than {fs.MAX_FILE_VARIABLE} allows")
        payload = loads(raw)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise QuestError(f"cannot read a review payload from {name}: {getattr(exc, 'strerror', None) or exc}") from None
    answer = validate_distill_review(args.quest, payload, args.home)
    text = json_safe(dumps(answer, ensure_ascii=False)) + "\n" if args.format == "json" else _text(answer, name)
    if args.output:
        write_file(args.output, text)
    elif sys.stdout is not None:
        write(sys.stdout, text, "utf-8" if args.format == "json" else None)
    return EXIT_OK if answer["ok"] else EXIT_FAILED


def _text(answer: dict[str, Any], name: str) -> str:
    covers = ", ".join(answer["covers"]) or "no run"
    head = (f"ds-gate validate-review: {'OK' if answer['ok'] else 'REJECTED'} - {name} would cover {covers}; "
            f"{counted(answer['pending_after_count'], 'completed run')} pending after it")
    lines = [head]
    for f in answer["findings"]:
        where = f"{f['path']}:{f['line']}" if f["line"] else f["path"]
        lines.append(printable(f"{where}: {f['severity']} [{f['rule']}] {f['message']}"))
        if f["hint"]:
            lines.append(printable(f"  hint: {f['hint']}"))
    lines.extend(printable(f"note: {note}") for note in answer["notes"])
    return "\n".join(lines) + "\n"
