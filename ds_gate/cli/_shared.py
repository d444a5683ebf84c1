"""What every command shares, so their exit codes and output behave alike: exit codes, printing a
report (a closed pipe, ``--output``, a terminal that cannot encode a character), the source options.
"""

from __future__ import annotations

import codecs
import os
import sys
from typing import TYPE_CHECKING

from ds_gate.engine.options import FROM_GIT, HELP
from ds_gate.kernel.errors import QuestError
from ds_gate.reporters import registry as reporters
from ds_gate.reporters.view import view_for

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable
    from typing import BinaryIO, TextIO

    from ds_gate.model import Report

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
HOME_HELP = (
    f"{HELP['home']} (default: $DEEPSCIENTIST_HOME, $DS_HOME, home in the trusted configuration, ~/DeepScientist)"
)
PATH_HELP = "any path inside the quest (default: .)"


class Default(str):
    """An option's value when its flag was not given: a configuration may replace it, never a typed flag."""

    __slots__ = ()


def emit(report: Report, args: argparse.Namespace | str) -> None:
    """Render with the chosen reporter and write it (to ``--output FILE`` when given); a reader that
    closed the pipe does not change the exit code. ``args``: the command's namespace, or a format name."""
    fmt = args if isinstance(args, str) else args.format
    output = None if isinstance(args, str) else getattr(args, "output", None)
    reporter = reporters.get(fmt)
    if hasattr(reporter, "view"):  # the text reporter: laid out for where it goes
        reporter.view = view_for(
            None if output else sys.stdout,
            getattr(args, "color", "auto") or "auto",
            bool(getattr(args, "quiet", False)),
        )
    # a reporter that renders in parts (JSON) is written a part at a time: never whole in memory
    parts = reporter.render_parts(report) if hasattr(reporter, "render_parts") else None
    text: str | Iterable[str] = reporter.render(report) if parts is None else parts
    if output:
        write_file(output, text, getattr(reporter, "encoding", None))
        return
    if sys.stdout is None:  # started with stdout closed (`>&-`): nothing to print to, the verdict stands
        return
    try:
        write(sys.stdout, text, getattr(reporter, "encoding", None))
    except BrokenPipeError:  # `| head`: the reader left, the verdict still stands (exit 1 stays 1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit flush cannot fail again


def write_file(path: str, text: str | Iterable[str], encoding: str | None = None) -> None:
    """``--output FILE``, in the format's encoding (else UTF-8); unwritable: exit 2, not a verdict."""
    try:
        with open(path, "wb") as out:
            _write_encoded(out, text, encoding or "utf-8")
    except OSError as exc:
        raise QuestError(f"cannot write the report to {path}: {exc.strerror or exc}") from exc


def write(stream: TextIO, text: str | Iterable[str], encoding: str | None = None) -> None:
    """Write ``text`` so that no character can make writing fail, in any locale: in the format's own
    encoding (JSON: UTF-8, valid in ``LC_ALL=C``), else the stream's, backslash-escaping what it cannot hold."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a StringIO put in place by a caller: it holds str, nothing to encode
        stream.write(text if isinstance(text, str) else "".join(text))
        stream.flush()
        return
    stream.flush()
    _write_encoded(buffer, text, encoding or stream.encoding or "utf-8")
    buffer.flush()


def _write_encoded(out: BinaryIO, text: str | Iterable[str], encoding: str) -> None:
    """A part, or a megabyte, at a time: encoded whole, the report was a second copy at peak memory."""
    encoder = codecs.getincrementalencoder(encoding)("backslashreplace")  # one BOM at most, as whole
    step = 1 << 20
    for part in (text,) if isinstance(text, str) else text:
        for start in range(0, len(part), step):
            out.write(encoder.encode(part[start : start + step]))
    out.write(encoder.encode("", final=True))


def verdict(report: Report) -> int:
    return EXIT_OK if report.ok else EXIT_FAILED


def source_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    for flag, source, text in (
        ("--from-git", "git", f"{FROM_GIT} instead of the worktree folders (CI clones)"),
        (
            "--from-folders",
            "folders",
            "read artifacts from the worktree folders only (default: the folders, plus every branch tip "
            "no folder has checked out, read from git objects: what a fresh clone needs)",
        ),
        ("--also-git", "both", "read artifacts from the worktree folders and from the tips of git branches"),
    ):
        where.add_argument(flag, dest="source", action="store_const", const=source, default=Default("auto"), help=text)
    p.add_argument("--refs", action="append", metavar="PATTERN", help=f"with --from-git/--also-git: {HELP['refs']}")
