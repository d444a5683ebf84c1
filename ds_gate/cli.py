"""``ds-gate``: build the parser from the command modules, run one, turn what escapes into an exit code.

Exit codes: 0 ok, 1 gate failed, 2 usage error or unreadable input, 3 internal error.
Bad input never shows a traceback; an internal error shows one line and asks for
``--debug``, which shows the traceback.
"""

from __future__ import annotations

import argparse
import sys

from ds_gate import __version__
from ds_gate.commands import COMMANDS, MODULE_OF
from ds_gate.commands._shared import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, FORMATS

TYPE_CHECKING = False  # typing costs ~3 ms on the commit hook's path
if TYPE_CHECKING:
    from collections.abc import Sequence


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser, or with ``only`` (a command module's name) that module's alone:
    parsing one command needs only its own parser, and the commit hook runs on every commit.
    Each command module imports only argparse-level things until its ``run`` is called."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--format", default="text", metavar="FORMAT", help=f"output format: {', '.join(FORMATS)}, or one a plugin adds (default: text)"
    )
    common.add_argument("--debug", action="store_true", help="show the Python traceback of an internal error")
    common.add_argument("-q", "--quiet", action="store_true",
                        help="text: print the verdict line and the errors only (other formats stay complete)")
    common.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text verdict and severities: auto (on a terminal, unless NO_COLOR is set), "
                        "always or never (default: auto)")
    common.add_argument("--output", "-o", metavar="FILE",
                        help="write the report to FILE instead of stdout; the exit code is still the verdict")

    parser = argparse.ArgumentParser(
        prog="ds-gate",
        description="Experience-distillation closure discipline for DeepScientist quests.",
    )
    parser.add_argument("--version", action="version", version=f"ds-gate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (only,) if only else COMMANDS:
        module = f"ds_gate.commands.{name}"
        __import__(module)  # the import statement's path, which -X importtime reports (import_module's is not)
        sys.modules[module].register(sub, common)
    return parser


def _command_module(argv: Sequence[str]) -> str | None:
    """The module of the command ``argv`` names first, or None (help, version, a typo)."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    return MODULE_OF.get(first) if first is not None and first == argv[0] else None


def _say(message: str) -> None:
    """One line on stderr: a message may quote a quest's path or value, escaped like any report."""
    from ds_gate.reporters.escape import printable

    if sys.stderr is not None:
        print(printable(message), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_module(argv) if argv else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from ds_gate.errors import QuestError
    from ds_gate.io.git import GitError

    try:
        if args.format not in FORMATS:
            from ds_gate import reporters

            try:
                reporters.get(args.format)
            except ValueError as exc:
                _say(f"ds-gate {args.command}: error: {exc}")
                return EXIT_USAGE
        return int(args.handler(args))
    except (QuestError, GitError) as exc:
        _say(f"ds-gate: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if args.debug:
            import traceback

            traceback.print_exc()
            return EXIT_INTERNAL
        _say(f"ds-gate: internal error: {type(exc).__name__}: {exc} (rerun with --debug to see the traceback)")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
