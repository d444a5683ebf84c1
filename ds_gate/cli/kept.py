"""A recall's answer kept for the next process that asks the same (``kernel.answers``): the bytes
this process writes to stdout and stderr, recorded as they go out, kept with what the answer read.

Only an answer a later process could be given as it is: no quest named (where a quest lies is
git's answer, which no stat can vouch for), no ``--output`` file, no ``--refresh`` or
``--no-cache``, written to the process's own stdout and stderr (not a caller's stream in
process), stdout not a terminal (text there is laid out for it), and every write whole.
"""

from __future__ import annotations

import io
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, BinaryIO, cast

from ds_gate.kernel.answers import Watch, keep

if TYPE_CHECKING:
    import argparse

    from _typeshed import ReadableBuffer


class _Tee(io.BufferedIOBase):
    """A stream's bytes passed on to it, and recorded, in the order of every stream's writes."""

    def __init__(self, fd: int, target: BinaryIO, chunks: list[tuple[int, bytes]], broken: list[int]) -> None:
        super().__init__()
        self.fd, self.target, self.chunks, self.broken = fd, target, chunks, broken

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer) -> int:
        try:
            self.target.write(data)
        except BaseException:
            self.broken.append(self.fd)  # not all of it went out: this answer is not kept
            raise
        kept = bytes(data)
        self.chunks.append((self.fd, kept))
        return len(kept)

    def flush(self) -> None:
        self.target.flush()

    def fileno(self) -> int:
        return self.target.fileno()

    def isatty(self) -> bool:
        return self.target.isatty()


def _keepable(args: argparse.Namespace) -> bool:
    out, err = sys.stdout, sys.stderr
    if out is None or err is None or not hasattr(out, "buffer") or not hasattr(err, "buffer") or out.isatty():
        return False
    if out is not sys.__stdout__ or err is not sys.__stderr__:
        return False  # a caller's stream, in process
    return (
        getattr(args, "argv", None) is not None
        and args.quest is None
        and args.for_stage is None
        and args.scope != "quest"
        and not (args.no_cache or args.refresh or args.output)
    )


@contextmanager
def _recording(chunks: list[tuple[int, bytes]], broken: list[int]) -> Iterator[None]:
    """stdout and stderr replaced by the same streams recording what they write."""
    real = sys.stdout, sys.stderr
    wrapped = [
        io.TextIOWrapper(
            cast("BinaryIO", _Tee(fd, stream.buffer, chunks, broken)),
            encoding=stream.encoding,
            errors=stream.errors,
            line_buffering=bool(stream.line_buffering),
            write_through=True,
        )
        for fd, stream in ((1, real[0]), (2, real[1]))
    ]
    sys.stdout, sys.stderr = wrapped
    try:
        yield
    finally:
        sys.stdout, sys.stderr = real
        for stream in wrapped:
            try:
                stream.flush()
            except (OSError, ValueError):
                broken.append(0)
            stream.detach()  # the real streams stay open


def answered(args: argparse.Namespace, run: Callable[[argparse.Namespace, Watch | None], int]) -> int:
    """``run(args, watch)``; its answer kept when it may be (``watch`` None when it may not)."""
    if not _keepable(args):
        return run(args, None)
    started = time.time_ns()
    watch = Watch()
    chunks: list[tuple[int, bytes]] = []
    broken: list[int] = []
    with _recording(chunks, broken):
        code = run(args, watch)
    if not broken:
        keep(args.argv, watch, code, chunks, started)
    return code
