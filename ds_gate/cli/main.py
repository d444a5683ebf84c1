"""``ds-gate``: build the parser from the command modules, run one, turn what escapes into an exit code
(``EPILOG``). Bad input never shows a traceback; with ``--format json`` it is a JSON object too, so a
script reading stdout always gets JSON.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import textwrap
import traceback
from itertools import pairwise
from typing import TYPE_CHECKING, Protocol, cast

from ds_gate.cli._shared import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, Default, write, write_file
from ds_gate.cli.table import BY_NAME, COMMANDS, Command
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.git import GitError
from ds_gate.kernel.version import __version__
from ds_gate.reporters import registry as reporters
from ds_gate.reporters.escape import printable
from ds_gate.reporters.registry import FORMATS, GITHUB, JSON, MARKDOWN, TEXT
from ds_gate.reporters.stop import Stop, render_stop
from ds_gate.reporters.view import columns

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

EPILOG = """\
exit codes:
  0  ok
  1  the gate failed (a pending run, an invalid artifact or card, a refused commit or push)
  2  usage error or unreadable input (not a quest, a missing file, a bad option)
  3  internal error (one line; --debug shows the traceback)

environment:
  DEEPSCIENTIST_HOME, DS_HOME  the DeepScientist home (else the home a quest lies in, else ~/DeepScientist)
  DS_GATE_MAX_FILE_MB          the largest file read, in MB (default 64)
  DS_GATE_CACHE_DIR            the recall and record caches (else $XDG_CACHE_HOME/ds-gate, ~/.cache/ds-gate)
  NO_COLOR                     no colour with --color auto
  COLUMNS                      the width text wraps at when not on a terminal (default 80)
  PRE_COMMIT, PRE_COMMIT_TO_REF, PRE_COMMIT_REMOTE_NAME  pre-push under pre-commit: every tip the remote lacks
  DS_QUEST_ROOT                the quest of the MCP server (ds-gate mcp)

defaults: your configuration (--config FILE, $DS_GATE_CONFIG, else ~/.config/ds-gate/config.yaml) may set home, require, format, source and refs for check, closure and candidates; the quest's .ds-gate.yaml (or [tool.ds-gate] in pyproject.toml) only what makes the gate stricter (require: true, source: both, format); a flag wins

diagnose a quest's setup: ds-gate doctor [PATH]
"""


class UsageError(Exception):
    """What argparse would print and exit 2 for, raised so that ``main`` can say it as JSON."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class Formatter(argparse.HelpFormatter):
    """argparse's, except that a description or epilog keeps its own lines, each wrapped with a
    hanging indent (argparse re-flows them, or raw lets a line run on), and ``--format``'s help
    names the command's own formats."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        # not shutil's terminal size: see reporters.view.columns
        kwargs.setdefault("width", columns(sys.__stdout__) - 2)
        super().__init__(prog, **kwargs)
        self.command = prog.split(" ", 1)[1] if " " in prog else ""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.dest == "format" and self.command in BY_NAME:
            return BY_NAME[self.command].format_help()
        return action.help

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(line for raw in text.splitlines() for line in help_lines(raw, width, indent))


def help_lines(line: str, width: int, indent: str = "") -> list[str]:
    """One line of a description or epilog, wrapped at ``width``: a table row continues under its
    second column, prose under its start, an example's ``# comment`` on its own line (so a paste runs)."""
    line = indent + line.rstrip()
    if len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip())]
    command, sep, comment = line.partition("   # ")
    if sep and len(command.rstrip()) <= width:  # an example: the command, then its comment
        return [command.rstrip(), *help_lines(f"# {comment}", width, lead)]
    column = re.search(r"\S  +(?=\S)", line[len(lead) :])
    hang = " " * (len(lead) + column.end()) if column and column.end() < width // 2 else lead
    return textwrap.wrap(
        line, width, initial_indent="", subsequent_indent=hang, break_long_words=False, break_on_hyphens=False
    ) or [line]


class Parser(argparse.ArgumentParser):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(**kwargs)
        self.commands: dict[str, argparse.ArgumentParser] = {}  # the top parser's: each command's own parser

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """An unknown argument is the command's error, with its usage (``closure --bogus``), not the top's."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = self.commands.get(getattr(parsed, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message + self.did_you_mean(message))

    def did_you_mean(self, message: str) -> str:
        """A mistyped command or flag (``closur``, ``--requre``): the closest this parser knows."""
        if (choice := re.search(r"invalid choice: '([^']*)'", message)) and self.commands:
            names, typed = list(self.commands), [choice.group(1)]
        elif message.startswith("unrecognized arguments: "):
            names = [option for option in self._option_string_actions if option.startswith("--")]
            typed = [arg.split("=", 1)[0] for arg in message.split(": ", 1)[1].split() if arg.startswith("--")]
        else:
            return ""
        close = [match for word in typed for match in difflib.get_close_matches(word, names, n=1, cutoff=0.6)]
        return f"; did you mean {' or '.join(dict.fromkeys(close))}?" if close else ""


class CommandModule(Protocol):
    def arguments(self, parser: argparse.ArgumentParser, name: str) -> None: ...
    def run(self, args: argparse.Namespace) -> int: ...


def build_parser(only: Command | None = None) -> argparse.ArgumentParser:
    """Every command's parser, or with ``only`` that command's alone (the commit hook runs on every commit)."""
    common = Parser(add_help=False)
    common.add_argument(
        "--format",
        default=Default(TEXT),
        metavar="FORMAT",
        help="output format (each command's own: table.Command.formats)",
    )
    common.add_argument("--debug", action="store_true", help="show the Python traceback of an internal error")
    common.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="text: print the verdict line and the errors only (other formats stay complete)",
    )
    common.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text verdict and severities: auto (on a terminal, unless NO_COLOR is set), "
        "always or never (default: auto)",
    )
    common.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE instead of stdout; the exit code is still the verdict",
    )

    parser = Parser(
        prog="ds-gate",
        description="Experience-distillation closure discipline for DeepScientist quests.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"ds-gate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (only,) if only else COMMANDS:
        name = f"ds_gate.cli.{command.module}"
        __import__(name)  # the import statement's path, which -X importtime reports (import_module's is not)
        module = cast("CommandModule", sys.modules[name])
        # every command's help opens with its one-line description and ends with an example
        p = sub.add_parser(
            command.name,
            parents=[common],
            help=command.help,
            description=command.description or command.help,
            epilog=f"example:\n  {command.example}",
        )
        module.arguments(p, command.name)
        p.set_defaults(handler=module.run)
    parser.commands = dict(sub.choices)
    return parser


def _command(argv: Sequence[str]) -> Command | None:
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return BY_NAME.get(first) if first is not None and first == argv[0] else None


def _say(message: str) -> None:
    """One line on stderr: a message may quote a quest's path or value, escaped like any report."""
    if sys.stderr is not None:
        print(printable(message), file=sys.stderr)


def _format_of(argv: Sequence[str]) -> str:
    """The ``--format`` argv names (the last), for a stop before the arguments parsed; text when none."""
    named = [b for a, b in pairwise(argv) if a == "--format"] + [
        a.split("=", 1)[1] for a in argv if a.startswith("--format=")
    ]
    return named[-1] if named else TEXT


def _fail(
    argv: Sequence[str],
    command: str | None,
    said: str | QuestError | GitError,
    code: int = EXIT_USAGE,
    args: argparse.Namespace | None = None,
    prefix: str = "",
) -> int:
    """A stop (a usage error or a quest the gate cannot see) in the chosen format (``reporters.stop``):
    text, a plugin's format or one the command does not offer: one line on stderr; JSON its error
    object on stdout alone; SARIF, GitHub and Markdown their document on stdout (or ``--output``),
    with the line on stderr too where the document goes to a file. A ``QuestError`` brings its fix apart."""
    fmt = str(args.format) if args is not None else _format_of(argv)
    row = BY_NAME.get(command or "")
    offered = row.formats + ((MARKDOWN,) if row.takes_plugin_formats else ()) if row is not None else ()
    if row is not None and fmt not in (JSON, *offered):  # markdown: taken, not advertised
        fmt = TEXT  # a format this command refuses is said in text (``--format sarif`` of recall)
    output = getattr(args, "output", None) if args is not None else None
    where = getattr(args, "path", None) if args is not None else None
    error = said if isinstance(said, QuestError) else QuestError(str(said))
    stop = Stop(command, prefix + error.cause, code, where if isinstance(where, str) else None, error.fix, error.joint)
    text = render_stop(stop, fmt)
    if text is None or (fmt != JSON and (output or fmt != GITHUB)):
        _say(stop.message)
    if text is None:
        return code
    try:
        if output:
            write_file(output, text, "utf-8")
        elif sys.stdout is not None:
            write(sys.stdout, text, "utf-8")
    except (QuestError, BrokenPipeError):  # the report's file cannot be written: the line above said why it stopped
        pass
    return code


def _refused_format(args: argparse.Namespace) -> QuestError | None:
    """Why this command cannot honour ``--format``, or None."""
    command = BY_NAME[args.command]
    offered = command.formats
    if args.format not in offered and not command.takes_plugin_formats:
        fix = f"use one of: {', '.join(offered)}"
        return QuestError(f"ds-gate {args.command}: --format {args.format} is not offered by {args.command}", fix, "; ")
    if args.format not in FORMATS:
        try:
            reporters.get(args.format)
        except ValueError as exc:
            return QuestError(f"ds-gate {args.command}: error: {exc}")
    return None


def _as_text(args: argparse.Namespace) -> argparse.Namespace:
    """A refused format says its refusal in text (JSON stays JSON: a script reading stdout gets JSON)."""
    return argparse.Namespace(**{**vars(args), "format": JSON if args.format == JSON else TEXT, "output": None})


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command(argv) if argv else None)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        prog = exc.parser.prog
        command = prog.split(" ", 1)[1] if " " in prog else (argv[0] if argv and argv[0] in BY_NAME else None)
        if _format_of(argv) != JSON:
            exc.parser.print_usage(sys.stderr)
        return _fail(argv, command, f"{exc.parser.prog}: error: {exc.message}")
    except SystemExit as exc:  # argparse: --help/--version exit 0
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE

    args.argv = tuple(argv)  # what a kept answer is asked by (cli.kept)
    try:
        refused = _refused_format(args)
        if refused is not None:
            return _fail(argv, args.command, refused, args=_as_text(args))
        return int(args.handler(args))
    except (QuestError, GitError) as exc:
        return _fail(argv, args.command, exc, args=args, prefix="ds-gate: ")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # the last line of defence
        if args.debug:
            traceback.print_exc()
            return EXIT_INTERNAL
        _say(f"ds-gate: internal error: {type(exc).__name__}: {exc} (rerun with --debug to see the traceback)")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
